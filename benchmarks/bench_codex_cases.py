"""Wall time of ``dsh run --hooks codex`` and of the real Codex 0.171 on the recorded Codex cases.

Run: .venv/bin/python benchmarks/bench_codex_cases.py [--repeats N] [--no-codex] [CASE ...]

For each case of the shared conformance corpus's ``codex/`` (found as the tests
find it; absent, the bench says so and does nothing, except under ``CI=true``):
one ``python3`` hook on all twelve Codex events (``matcher: "*"``, in
``$CODEX_HOME/hooks.json``: the recording's layout), answering as the case's
``hook_answers`` say and appending its event to a log; then, interleaved run by
run:

- dsh: the real ``dsh run --hooks codex --dangerously-bypass-hook-trust``
  (``no-trust-flag``: without the flag, so nothing runs) as a subprocess with
  the case's ``openai`` script as a scripted model; ``then`` prompts as further
  ``dsh run --resume`` processes (summed). The session log gives the time inside
  hook processes (the union of the ``hook/result`` intervals); dsh's own time is
  wall minus that.
- Codex (when ``codex_path()`` finds it: ``$DSH_CODEX``, PATH or ``make
  bench-tools``; else skipped, said so): ``codex exec`` with the same hooks
  against ``ResponsesMock`` playing the same script over loopback HTTP, flags
  as the recording's payloads show (``--dangerously-bypass-approvals-and-sandbox``;
  the ``perm-*`` cases ``-s workspace-write``, ``approval_policy =
  "on-request"`` and ``--approve-for-me``, whose reviewer asks the mock too;
  ``auto-compact`` a reported usage over ``model_auto_compact_token_limit``);
  ``then`` prompts as ``codex exec resume --last``. Each case's ``$CODEX_HOME``
  is set up by one untimed run first (Codex installs its skills there on first
  use) and kept. Every Codex run is checked, or the bench fails: exit codes and
  the order of hook events as recorded, and every hook-derived item of the
  recorded ``model_view`` in what Codex sent the model.

Prints per case the medians over the repeats, the median over cases, the ratio
dsh/Codex of wall times, and ``basic`` with ``--hooks claude`` and no Claude
Code hooks (no hook runs at all) as dsh's baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from _codex_side import ResponsesMock, codex_env, codex_path, provider_toml
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

# The events the recorded cases declare hooks on (not the later model-request pair).
EVENTS = tuple(e for e in CODEX_HOOK_EVENTS if not e.endswith("ModelRequest"))
# The answering hook, which also appends its event to $BENCH_HOOK_LOG (both tools run it).
LOG_LINE = 'with open(os.environ["BENCH_HOOK_LOG"], "a") as log:\n    log.write(label + "\\n")\n'
assert "sys.stdin.read()\n" in HOOK_SCRIPT
LOGGING_HOOK = HOOK_SCRIPT.replace("sys.stdin.read()\n", "sys.stdin.read()\n" + LOG_LINE, 1)
BIG_USAGE = 10**6
COMPACT_LIMIT = 200_000


class CodexCase:
    """One recorded case and its hooks, run through dsh (``run``) and Codex (``run_codex``)."""

    def __init__(self, case_dir: Path, root: Path) -> None:
        self.data = json.loads((case_dir / "case.json").read_text())
        self.name = case_dir.name
        self.root = root / self.name
        self.prompts = [self.data["prompt"], *(self.data["then"] or [])]
        self.root.mkdir(parents=True)
        self.answers = self.root / "answers.json"
        self.answers.write_text(json.dumps(self.data.get("hook_answers") or {}))
        hook = self.root / "hook.py"
        hook.write_text(LOGGING_HOOK)
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
        self.codex_home = self.root / "codex" / "home" / ".codex"

    def _run_dir(self) -> tuple[Path, Path, dict[str, str]]:
        self.runs += 1
        run_dir = self.root / f"run{self.runs}"
        project = run_dir / "project"
        project.mkdir(parents=True)
        hook_env = {
            "BENCH_HOOK_ANSWERS": str(self.answers),
            "BENCH_HOOK_STATE": str(run_dir / "times"),
            "BENCH_HOOK_LOG": str(run_dir / "order.log"),
        }
        return run_dir, project, hook_env

    def run(self, *, hooks: bool = True) -> Sample:
        run_dir, project, hook_env = self._run_dir()
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
            **hook_env,
        }
        argv = [str(DSH), "run", "--model", f"scripted:{script}", "--project", str(project)]
        argv += ["--session-dir", str(sessions), "--hooks", "codex" if hooks else "claude"]
        if hooks and self.name != "no-trust-flag":
            argv.append("--dangerously-bypass-hook-trust")
        return run_prompts(self.name, argv, self.prompts, run_dir=run_dir, env=env)

    # --- the real Codex ---------------------------------------------------------------------

    def _codex_flags(self) -> tuple[list[str], dict[str, str]]:
        """``codex exec`` flags (after the subcommand) and config for this case."""
        flags = ["--skip-git-repo-check"]
        if self.name != "no-trust-flag":
            flags.append("--dangerously-bypass-hook-trust")
        if self.name.startswith("perm-"):
            return [*flags, "--approve-for-me"], {
                "approval": "on-request",
                "sandbox": "workspace-write",
            }
        flags.append("--dangerously-bypass-approvals-and-sandbox")
        if self.name == "auto-compact":
            flags += ["-c", f"model_auto_compact_token_limit={COMPACT_LIMIT}"]
        return flags, {}

    def run_codex(self, codex: str, mock: ResponsesMock) -> float:
        """One Codex run of every prompt (wall seconds, summed); fails if it was not as recorded."""
        run_dir, project, hook_env = self._run_dir()
        home = self.codex_home
        home.mkdir(parents=True, exist_ok=True)
        flags, settings = self._codex_flags()
        (home / "hooks.json").write_text(json.dumps(self.hooks))
        (home / "config.toml").write_text(provider_toml(mock.url, project, **settings))
        mock.load_script(self.data["model_script"]["openai"])
        if self.name == "auto-compact":
            mock.input_tokens = lambda body: BIG_USAGE if body.get("tools") else 100
        else:
            mock.input_tokens = lambda body: 100
        env = codex_env(home, **hook_env)
        wall = 0.0
        codes = []
        for n, prompt in enumerate(self.prompts):
            sub = (
                ["exec", "resume", "--last"]
                if n
                else ["exec", "--color", "never", "-C", str(project)]
            )
            start = time.perf_counter()
            done = subprocess.run(
                [codex, *sub, *flags, prompt],
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                check=False,
                timeout=300,
            )
            wall += time.perf_counter() - start
            codes.append(done.returncode)
        problems = self._codex_problems(codes, run_dir, project, mock)
        if problems:
            raise RuntimeError(f"{self.name}: the real Codex did not do as recorded: {problems}")
        return wall

    def _codex_problems(
        self, codes: list[int], run_dir: Path, project: Path, mock: ResponsesMock
    ) -> list[str]:
        problems = [f"mock: {e}" for e in mock.errors]
        recorded = self.data["exit_code"]
        if codes != (recorded if isinstance(recorded, list) else [recorded]):
            problems.append(f"exit codes {codes}, recorded {recorded}")
        log = run_dir / "order.log"
        order = log.read_text().split() if log.is_file() else []
        if order != self.data["hook_order"]:
            problems.append(f"hook order {order}, recorded {self.data['hook_order']}")
        places = {"${PROJECT_DIR}": str(project), "${HOME}": str(self.codex_home.parent)}
        seen = [_normal(t, {}) for t in _request_texts(mock.requests)]
        for view in self.data["model_view"]:
            for item in view["hook_relevant"]:
                want = _normal(item.get("output", item.get("text", "")), places)
                if not any(want in text for text in seen):
                    problems.append(f"the model never saw {want[:120]!r}")
        return problems


_VOLATILE = re.compile(r"^(Chunk ID|Wall time): .*\n", re.M)


def _normal(text: str, places: Mapping[str, str]) -> str:
    for placeholder, path in places.items():
        text = text.replace(placeholder, path)
    return _VOLATILE.sub("", text)


def _request_texts(requests: list[dict[str, Any]]) -> list[str]:
    """Each tool output and message text Codex sent the model."""
    texts = []
    for body in requests:
        for item in body.get("input") or ():
            if not isinstance(item, dict):
                continue
            if item.get("type") == "function_call_output":
                texts.append(str(item.get("output")))
            for part in item.get("content") or ():
                if isinstance(part, dict) and "text" in part:
                    texts.append(str(part["text"]))
    return texts


def cases_dir() -> Path | None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.shared_paths import conformance_dir

    found = conformance_dir("codex")  # raises CorpusNotFoundError on CI
    if found.is_dir():
        return found
    print(f"bench_codex_cases: no conformance corpus at {found}: nothing to run", file=sys.stderr)
    return None


def ratio(dsh: float, codex: float | None) -> str:
    return f"{dsh / codex:9.2f}" if codex else f"{'-':>9}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per case and tool (median)")
    parser.add_argument("--no-codex", action="store_true", help="dsh only")
    parser.add_argument("cases", nargs="*", help="case names (default: every case)")
    args = parser.parse_args()
    cases = cases_dir()
    if cases is None:
        return
    dirs = sorted(p for p in cases.iterdir() if (p / "case.json").is_file())
    if args.cases:
        dirs = [d for d in dirs if d.name in args.cases]
    codex = None if args.no_codex else codex_path()
    began = time.perf_counter()
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="dsh-bench-codex-") as tmp, ResponsesMock() as mock:
        root = Path(tmp)
        print(f"{len(dirs)} recorded Codex cases, median of {args.repeats}, interleaved")
        print(f"hooks: {PYTHON3} on {len(EVENTS)} events, for dsh and Codex alike")
        if codex is None:
            why = "--no-codex" if args.no_codex else "not found (DSH_CODEX, PATH, make bench-tools)"
            print(f"real Codex: {why}, so not measured")
        else:
            version = subprocess.run([codex, "--version"], capture_output=True, text=True)
            print(f"real Codex: {codex} ({version.stdout.strip()}), against a loopback mock")
        print(
            f"{'case':26} {'dsh s':>7} {'hooks s':>8} {'own s':>7} {'runs':>5}"
            f" {'codex s':>8} {'dsh/codex':>9}"
        )
        rows: list[tuple[float, float, float, float | None]] = []
        for case_dir in dirs:
            case = CodexCase(case_dir, root)
            if codex is not None:
                case.run_codex(codex, mock)  # sets up $CODEX_HOME, checked, not timed
            samples: list[Sample] = []
            codex_walls: list[float] = []
            for _ in range(args.repeats):
                samples.append(case.run())
                if codex is not None:
                    codex_walls.append(case.run_codex(codex, mock))
            wall, hooks, own = median_sample(samples)
            theirs = statistics.median(codex_walls) if codex_walls else None
            rows.append((wall, hooks, own, theirs))
            shown = f"{theirs:8.3f}" if theirs is not None else f"{'-':>8}"
            print(
                f"{case.name:26} {wall:7.3f} {hooks:8.3f} {own:7.3f} {samples[-1].hook_runs:5d}"
                f" {shown} {ratio(wall, theirs)}"
            )
        walls = statistics.median(r[0] for r in rows)
        theirs_all = [r[3] for r in rows if r[3] is not None]
        codex_median = statistics.median(theirs_all) if theirs_all else None
        shown = f"{codex_median:8.3f}" if codex_median is not None else f"{'-':>8}"
        print(
            f"{'median over cases':26} {walls:7.3f} {statistics.median(r[1] for r in rows):8.3f}"
            f" {statistics.median(r[2] for r in rows):7.3f} {'':5} {shown}"
            f" {ratio(walls, codex_median)}"
        )
        if (cases / "basic").is_dir():
            baseline = CodexCase(cases / "basic", root / "baseline")
            b = median_sample([baseline.run(hooks=False) for _ in range(max(args.repeats, 5))])
            print(f"{'basic, no hooks (dsh)':26} {b[0]:7.3f} {b[1]:8.3f} {b[2]:7.3f}")
    print(f"bench took {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
