"""Wall time of ``dsh run --hooks codex`` on the recorded Codex cases, hooks as real processes.

Run: .venv/bin/python benchmarks/bench_codex_cases.py [--repeats N] [CASE ...]

For each case of the shared conformance corpus's ``codex/`` (found as the tests
find it; absent, the bench says so and does nothing, except under ``CI=true``):
a fresh ``$CODEX_HOME`` whose ``hooks.json`` registers a real ``python3`` hook
on all twelve Codex events, answering as the case's ``hook_answers`` say (the
recording's layout: the hooks in the user layer), and the real ``dsh run
--hooks codex --dangerously-bypass-hook-trust`` (``no-trust-flag``: without the
flag, so nothing runs) as a subprocess with the case's ``openai`` script as a
scripted model, timed from process start to exit; ``then`` prompts run as
further ``dsh run --resume`` processes (summed). The session log gives the time
inside hook processes (the union of the ``hook/result`` intervals); dsh's own
time is wall minus that. Prints per case the median over the repeats, the
median over cases, and ``basic`` with ``--hooks claude`` and no Claude Code
hooks (no hook runs at all) as the baseline. The real Codex CLI is not
installed on the machine this was written on, so there is no Codex column.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_claude_cases import (
    DSH,
    HOOK_SCRIPT,
    PYTHON3,
    ROOT,
    Sample,
    compile_bytecode,
    median_sample,
    run_prompts,
)

from dsh.hooks.codex import CODEX_HOOK_EVENTS

EVENTS = CODEX_HOOK_EVENTS


class CodexCase:
    def __init__(self, case_dir: Path, root: Path) -> None:
        self.data = json.loads((case_dir / "case.json").read_text())
        self.name = case_dir.name
        self.root = root / self.name
        self.prompts = [self.data["prompt"], *(self.data["then"] or [])]
        self.root.mkdir(parents=True)
        self.answers = self.root / "answers.json"
        self.answers.write_text(json.dumps(self.data.get("hook_answers") or {}))
        hook = self.root / "hook.py"
        hook.write_text(HOOK_SCRIPT)
        self.hooks = {
            "hooks": {
                event: [
                    {
                        "matcher": "*",
                        "hooks": [{"type": "command", "command": f"{PYTHON3} {hook} {event}"}],
                    }
                ]
                for event in EVENTS
            }
        }
        self.runs = 0

    def run(self, *, hooks: bool = True) -> Sample:
        self.runs += 1
        run_dir = self.root / f"run{self.runs}"
        project = run_dir / "project"
        project.mkdir(parents=True)
        codex_home = run_dir / "home" / ".codex"
        codex_home.mkdir(parents=True)
        (codex_home / "hooks.json").write_text(json.dumps(self.hooks))
        script = run_dir / "script.json"
        script.write_text(json.dumps(self.data["model_script"]))
        sessions = run_dir / "sessions"
        env = {
            **os.environ,
            "NO_COLOR": "1",
            "HOME": str(run_dir / "home"),
            "CODEX_HOME": str(codex_home),
            "BENCH_HOOK_ANSWERS": str(self.answers),
            "BENCH_HOOK_STATE": str(run_dir / "times"),
        }
        argv = [str(DSH), "run", "--model", f"scripted:{script}", "--project", str(project)]
        argv += ["--session-dir", str(sessions), "--hooks", "codex" if hooks else "claude"]
        if hooks and self.name != "no-trust-flag":
            argv.append("--dangerously-bypass-hook-trust")
        return run_prompts(self.name, argv, self.prompts, run_dir=run_dir, env=env)


def cases_dir() -> Path | None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.shared_paths import conformance_dir

    found = conformance_dir("codex")  # raises CorpusNotFoundError on CI
    if found.is_dir():
        return found
    print(f"bench_codex_cases: no conformance corpus at {found}: nothing to run", file=sys.stderr)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per case (median)")
    parser.add_argument("cases", nargs="*", help="case names (default: every case)")
    args = parser.parse_args()
    cases = cases_dir()
    if cases is None:
        return
    dirs = sorted(p for p in cases.iterdir() if (p / "case.json").is_file())
    if args.cases:
        dirs = [d for d in dirs if d.name in args.cases]
    began = time.perf_counter()
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="dsh-bench-codex-") as tmp:
        root = Path(tmp)
        print(
            f"dsh run --hooks codex on {len(dirs)} recorded Codex cases, median of {args.repeats}"
        )
        print(f"hooks: {PYTHON3} on {len(EVENTS)} events")
        print(f"{'case':26} {'wall s':>7} {'hooks s':>8} {'own s':>7} {'hook runs':>9}  exit")
        walls: list[float] = []
        hook_times: list[float] = []
        owns: list[float] = []
        for case_dir in dirs:
            case = CodexCase(case_dir, root)
            samples = [case.run() for _ in range(args.repeats)]
            wall, hooks, own = median_sample(samples)
            walls.append(wall)
            hook_times.append(hooks)
            owns.append(own)
            codes = ",".join(map(str, samples[-1].exit_codes))
            print(
                f"{case.name:26} {wall:7.3f} {hooks:8.3f} {own:7.3f}"
                f" {samples[-1].hook_runs:9d}  {codes}"
            )
        print(
            f"{'median over cases':26} {statistics.median(walls):7.3f} "
            f"{statistics.median(hook_times):8.3f} {statistics.median(owns):7.3f}"
        )
        if (cases / "basic").is_dir():
            baseline = CodexCase(cases / "basic", root / "baseline")
            b = median_sample([baseline.run(hooks=False) for _ in range(max(args.repeats, 5))])
            print(f"{'basic, no hooks':26} {b[0]:7.3f} {b[1]:8.3f} {b[2]:7.3f}")
    print("real Codex: not installed on this machine, so not measured")
    print(f"bench took {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
