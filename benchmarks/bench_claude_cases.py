"""End-to-end wall time of ``dsh run`` on the recorded Claude Code cases, hooks as real processes.

Run: .venv/bin/python benchmarks/bench_claude_cases.py [--repeats N] [--baseline DIR] [CASE ...]

For each case of the shared conformance corpus's ``claude/`` (issue 7's
benchmark; found as the tests find it, ``tests/shared_paths.py``, so
``DSH_SHARED_DIR`` moves it; absent, the bench says so and does nothing,
except under ``CI=true``, where that is a failure): a
temporary project whose ``.claude/settings.json`` registers a real ``python3``
hook script on every event the bridge supports, answering as the case's
``hook_answers`` say; the real ``dsh run`` (``.venv/bin/dsh``) as a subprocess
with the case's ``model_script`` as a scripted model, timed from process start
to exit. A case's ``then`` prompts run as further ``dsh run --resume`` processes
(summed), ``/compact`` included (``dsh run`` compacts, as Claude Code's slash
command does). The session log gives the time spent inside hook processes: the
union of the ``hook/result`` intervals (``[time - duration, time]``; parallel
hooks overlap); dsh's own time is the wall time minus that.

Prints per case the median over the repeats of wall, hook and own time, the
median over cases, the same for ``basic`` with ``--no-claude-hooks`` (the
baseline: no hook runs at all), and ``dsh --version`` start-up. The package's
bytecode is compiled first, as an install does (with ``PYTHONDONTWRITEBYTECODE``
set, an editable checkout would otherwise recompile every module it changed on
each run). Targets
(issue 7): start-up <= 0.15 s, dsh's own time per case <= 0.25 s median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DSH = Path(sys.executable).with_name("dsh")
# The interpreter itself, not a venv or version-manager shim: a hook is a plain python3.
PYTHON3 = os.path.realpath(sys.executable)
VERSION_RUNS = 15
START_UP_TARGET = 0.15
OWN_TARGET = 0.25

# Answers as the conformance `hook_answers` say (exit, stdout, stderr, times); records nothing.
HOOK_SCRIPT = """\
import json, os, sys
label = sys.argv[1]
sys.stdin.read()
with open(os.environ["BENCH_HOOK_ANSWERS"]) as f:
    answer = (json.load(f) or {}).get(label)
if answer:
    if "times" in answer:
        state = os.environ["BENCH_HOOK_STATE"] + "." + label
        used = os.path.getsize(state) if os.path.exists(state) else 0
        if used >= answer["times"]:
            sys.exit(0)
        with open(state, "a") as f:
            f.write("x")
    out = answer.get("stdout")
    if out is not None:
        sys.stdout.write(out if isinstance(out, str) else json.dumps(out))
    if answer.get("stderr"):
        sys.stderr.write(answer["stderr"])
    sys.exit(int(answer.get("exit", 0)))
"""


def supported_events() -> list[str]:
    from dsh.hooks.claude import HOOK_EVENT_HOST_SUPPORT

    return [e for e, row in HOOK_EVENT_HOST_SUPPORT.items() if row.status != "not-supported"]


@dataclass(frozen=True, slots=True)
class Sample:
    wall: float
    hooks: float
    hook_runs: int
    exit_codes: tuple[int, ...]

    @property
    def own(self) -> float:
        return self.wall - self.hooks


def union_length(intervals: list[tuple[float, float]]) -> float:
    total = 0.0
    end = float("-inf")
    for lo, hi in sorted(intervals):
        if hi <= end:
            continue
        total += hi - max(lo, end)
        end = hi
    return total


def hook_intervals(log: Path) -> list[tuple[float, float]]:
    out = []
    for line in log.read_text().splitlines():
        event = json.loads(line)
        if event.get("type") == "hook/result":
            out.append((event["time"] - event["duration"], event["time"]))
    return out


def run_prompts(
    name: str, argv: list[str], prompts: list[str], *, run_dir: Path, env: dict[str, str]
) -> Sample:
    """Each prompt as its own ``dsh run`` process (``argv`` names ``--session-dir``; after the
    first, ``--resume`` the session), timed from start to exit; the hook time from its log."""
    sessions = Path(argv[argv.index("--session-dir") + 1])
    wall = 0.0
    codes = []
    session_id: str | None = None
    for prompt in prompts:
        resume = ["--resume", session_id] if session_id is not None else []
        start = time.perf_counter()
        done = subprocess.run(
            [*argv, *resume, "--", prompt], cwd=run_dir, env=env, capture_output=True, check=False
        )
        wall += time.perf_counter() - start
        codes.append(done.returncode)
        if done.returncode in (2, 70):
            raise RuntimeError(f"{name}: dsh run exited {done.returncode}:\n{done.stderr.decode()}")
        # A background subagent's own log sits beside the run's; only the run's names a project.
        logs = [p for p in sessions.glob("*.jsonl") if '"project":' in p.open().readline()]
        if len(logs) != 1:
            raise RuntimeError(f"{name}: expected one session log, found {logs}")
        session_id = logs[0].stem
    assert session_id is not None
    intervals = hook_intervals(sessions / f"{session_id}.jsonl")
    return Sample(wall, union_length(intervals), len(intervals), tuple(codes))


def substitute(value: Any, project: Path) -> Any:
    return json.loads(json.dumps(value).replace("__PROJ__", str(project)))


class Case:
    def __init__(self, case_dir: Path, root: Path, events: list[str]) -> None:
        self.data = json.loads((case_dir / "case.json").read_text())
        self.name = case_dir.name
        self.root = root / self.name
        then = self.data["then"] or []
        self.prompts = [self.data["prompt"], *then]
        self.root.mkdir(parents=True)
        self.answers = self.root / "answers.json"
        self.answers.write_text(json.dumps(self.data.get("hook_answers", {})))
        hook = self.root / "hook.py"
        hook.write_text(HOOK_SCRIPT)
        self.settings = {
            "hooks": {
                event: [{"hooks": [{"type": "command", "command": f"{PYTHON3} {hook} {event}"}]}]
                for event in events
            }
        }
        self.runs = 0

    def run(self, *, hooks: bool = True, dsh: Path = DSH) -> Sample:
        """One fresh project and session: every prompt of the case, each its own process."""
        self.runs += 1
        run_dir = self.root / f"run{self.runs}"
        project = run_dir / "project"
        (project / ".claude").mkdir(parents=True)
        (project / ".claude" / "settings.json").write_text(json.dumps(self.settings))
        script = run_dir / "script.json"
        script.write_text(json.dumps(substitute(self.data["model_script"], project)))
        sessions = run_dir / "sessions"
        env = {
            **os.environ,
            "NO_COLOR": "1",
            "BENCH_HOOK_ANSWERS": str(self.answers),
            "BENCH_HOOK_STATE": str(run_dir / "times"),
            # Trust recorded by --trust-project stays in the run's own data directory
            # (dsh's data directory follows XDG_DATA_HOME; DSH_DATA_DIR is for sessions only).
            "XDG_DATA_HOME": str(run_dir / "data"),
        }
        argv = [str(dsh), "run", "--model", f"scripted:{script}", "--project", str(project)]
        # The cases were recorded with permissions bypassed.
        argv += ["--session-dir", str(sessions), "--permission-mode", "bypassPermissions"]
        # The project's hooks run only once trusted (without this, none run at all).
        argv.append("--trust-project")
        if not hooks:
            argv.append("--no-claude-hooks")
        return run_prompts(self.name, argv, self.prompts, run_dir=run_dir, env=env)


def compile_bytecode(checkout: Path = ROOT) -> None:
    """Compile a checkout's modules as ``pip install`` does (whatever PYTHONDONTWRITEBYTECODE)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    python = checkout / ".venv" / "bin" / "python"
    package = checkout / "src" / "dsh"
    subprocess.run([str(python), "-m", "compileall", "-q", str(package)], env=env, check=True)


def version_startup(root: Path) -> float:
    samples = []
    for _ in range(VERSION_RUNS):
        start = time.perf_counter()
        subprocess.run([str(DSH), "--version"], cwd=root, check=True, capture_output=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def median_sample(samples: list[Sample]) -> tuple[float, float, float]:
    return (
        statistics.median(s.wall for s in samples),
        statistics.median(s.hooks for s in samples),
        statistics.median(s.own for s in samples),
    )


def cases_dir() -> Path | None:
    """The recorded Claude Code cases, or ``None`` (said on stderr) when absent off CI."""
    # A script's path starts at benchmarks/; the finder is the tests' (one finder, not two).
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.shared_paths import conformance_dir

    found = conformance_dir("claude")  # raises CorpusNotFoundError on CI
    if found.is_dir():
        return found
    print(f"bench_claude_cases: no conformance corpus at {found}: nothing to run", file=sys.stderr)
    return None


def runnable(dirs: list[Path]) -> list[Path]:
    """The cases `dsh run` can replay; those driven through stdin (stream-json) are not yet."""
    kept = []
    for case_dir in dirs:
        if json.loads((case_dir / "case.json").read_text()).get("prompt") is None:
            print(f"skipped {case_dir.name}: driven by stream-json control requests, not sent here")
        else:
            kept.append(case_dir)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per case (median)")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout with its own .venv: every run is paired with one of its dsh,"
        " interleaved, and the ratio of own times printed",
    )
    parser.add_argument("cases", nargs="*", help="case names (default: every case)")
    args = parser.parse_args()
    if args.baseline is not None:
        paired(args.baseline, args.repeats, args.cases)
        return
    cases = cases_dir()
    if cases is None:
        return
    events = supported_events()
    dirs = sorted(p for p in cases.iterdir() if (p / "case.json").is_file())
    if args.cases:
        dirs = [d for d in dirs if d.name in args.cases]
    dirs = runnable(dirs)
    began = time.perf_counter()
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="dsh-bench-cases-") as tmp:
        root = Path(tmp)
        startup = version_startup(root)
        print(f"dsh run on {len(dirs)} recorded Claude Code cases, median of {args.repeats} runs")
        print(f"hooks: {PYTHON3} on {len(events)} events: {', '.join(events)}")
        print(f"{'case':26} {'wall s':>7} {'hooks s':>8} {'own s':>7} {'hook runs':>9}  exit")
        owns: list[float] = []
        walls: list[float] = []
        hook_times: list[float] = []
        hook_runs = 0
        for case_dir in dirs:
            case = Case(case_dir, root, events)
            samples = [case.run() for _ in range(args.repeats)]
            wall, hooks, own = median_sample(samples)
            owns.append(own)
            walls.append(wall)
            hook_times.append(hooks)
            hook_runs += samples[-1].hook_runs
            codes = ",".join(map(str, samples[-1].exit_codes))
            print(
                f"{case.name:26} {wall:7.3f} {hooks:8.3f} {own:7.3f} "
                f"{samples[-1].hook_runs:9d}  {codes}"
            )
        if dirs and hook_runs == 0:
            # A run with every hook left out would time dsh alone and call it hooked.
            raise SystemExit("error: no hook ran in any case (untrusted project?)")
        print(
            f"{'median over cases':26} {statistics.median(walls):7.3f} "
            f"{statistics.median(hook_times):8.3f} {statistics.median(owns):7.3f}"
        )
        baseline = Case(cases / "basic", root / "baseline", events)
        b_wall, b_hooks, b_own = median_sample(
            [baseline.run(hooks=False) for _ in range(max(args.repeats, 5))]
        )
        print(f"{'basic --no-claude-hooks':26} {b_wall:7.3f} {b_hooks:8.3f} {b_own:7.3f}")
    own_median = statistics.median(owns)
    print(f"dsh --version start-up (median of {VERSION_RUNS}): {startup:.3f} s")
    print(
        f"targets: start-up {startup:.3f} <= {START_UP_TARGET} "
        f"{'ok' if startup <= START_UP_TARGET else 'MISSED'}; "
        f"own time median {own_median:.3f} <= {OWN_TARGET} "
        f"{'ok' if own_median <= OWN_TARGET else 'MISSED'}; "
        f"hooks add {own_median - b_own:+.3f} s own time over the no-hooks baseline"
    )
    print(f"bench took {time.perf_counter() - began:.1f} s")


def paired(baseline: Path, repeats: int, names: list[str]) -> None:
    """Each case run with this checkout's and ``baseline``'s ``dsh`` in turn (ABBA order)."""
    cases = cases_dir()
    if cases is None:
        return
    other = baseline.resolve() / ".venv" / "bin" / "dsh"
    if not other.is_file():
        raise SystemExit(f"bench_claude_cases: no {other}; make its .venv first")
    events = supported_events()
    dirs = sorted(p for p in cases.iterdir() if (p / "case.json").is_file())
    if names:
        dirs = [d for d in dirs if d.name in names]
    dirs = runnable(dirs)
    compile_bytecode()
    compile_bytecode(baseline.resolve())
    print(f"dsh run on {len(dirs)} cases, {repeats} ABBA-paired runs each")
    print(f"this: {DSH}\nbaseline: {other}")
    print(f"{'case':26} {'own s':>7} {'base s':>7} {'ratio':>6}")
    mine: list[float] = []
    theirs: list[float] = []
    with tempfile.TemporaryDirectory(prefix="dsh-bench-paired-") as tmp:
        for case_dir in dirs:
            case = Case(case_dir, Path(tmp), events)
            a: list[Sample] = []
            b: list[Sample] = []
            for i in range(repeats):
                order = [(a, DSH), (b, other)] if i % 2 == 0 else [(b, other), (a, DSH)]
                for into, dsh in order:
                    into.append(case.run(dsh=dsh))
            own_a, own_b = median_sample(a)[2], median_sample(b)[2]
            mine.append(own_a)
            theirs.append(own_b)
            print(f"{case.name:26} {own_a:7.3f} {own_b:7.3f} {own_a / own_b:6.2f}")
    m, t = statistics.median(mine), statistics.median(theirs)
    print(f"{'median over cases':26} {m:7.3f} {t:7.3f} {m / t:6.2f}")


if __name__ == "__main__":
    main()
