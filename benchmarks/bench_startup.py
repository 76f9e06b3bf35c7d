"""Start-up of the ``dsh`` command: this tree beside another (before/after), in the same run.

Run: .venv/bin/python benchmarks/bench_startup.py [--before SRC] [--runs N]

``SRC`` is another tree's ``src`` directory (e.g. main's: ``mkdir /tmp/before &&
git archive main src | tar -x -C /tmp/before`` then ``--before /tmp/before/src``).
Each tree runs under this venv's interpreter with ``PYTHONPATH=<its src>``, as the
console script would (``from dsh.cli import main; main()``), with its bytecode
compiled first (as ``pip install`` does) and ``PYTHONDONTWRITEBYTECODE`` dropped.
Measured, interleaved (trees in alternating order each round): ``python -c pass``,
``import dsh.cli``, ``dsh --version``, ``dsh run`` of a one-reply turn with no
hooks against a loopback OpenAI-compatible mock (``_loopback.LoopbackServer``), and
the same turn with a Claude Code user settings file declaring a silent hook
(``exit 0``) on UserPromptSubmit and Stop, and ``dsh run --hooks codex`` whose Codex
UserPromptSubmit hook blocks the prompt (``bench_formats_side_by_side``'s prompt-block,
no model request). Printed: the median wall time and CPU time (user + system of the
process and the hooks it waited for) of each, and the CPU time of its whole process
tree: this script is a subreaper, so what dsh leaves to end after it (its watchdog
and namespace) is reaped and counted too.

``--breakdown`` prints instead where this tree's ``dsh run`` start-up CPU goes: the
process CPU time of each import step, in the order the run takes them (each step
counts only what the steps before it did not load), medians of ``--runs`` processes;
then, apart, what a plain headless run no longer imports (pydantic and its first
model, which a tool call or a hook's JSON answer still loads; rich, for a terminal).
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
from pathlib import Path

from _loopback import LoopbackServer
from _tree_cpu import become_subreaper, children_cpu, reap_orphans

ROOT = Path(__file__).resolve().parent.parent
ENTRY = "import sys; from dsh.cli import main; sys.argv[0] = 'dsh'; sys.exit(main())"


def answer(_raw: bytes) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}}]}
    done = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode()


def once(
    argv: list[str], env: dict[str, str], cwd: Path, codes: tuple[int, ...] = (0,)
) -> tuple[float, float, float]:
    """Wall seconds, CPU of the run and what it waited for, CPU of its whole tree."""
    cpu = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode not in codes:
        sys.exit(f"{argv} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    waited = children_cpu() - cpu
    reap_orphans()
    return wall, waited, children_cpu() - cpu


def compile_tree(src: Path, env: dict[str, str]) -> None:
    python = [sys.executable, "-m", "compileall", "-q", str(src / "dsh")]
    subprocess.run(python, env=env, check=True, capture_output=True)


HOOKED = "dsh run (2 silent Claude Code hooks)"
CODEX_BLOCK = "dsh run --hooks codex (prompt blocked)"


def cases(url: str, root: Path) -> dict[str, list[str]]:
    python = sys.executable
    run = ["run", "--model", "m", "--base-url", url, "--project", str(root / "project")]
    run += ["--session-dir", str(root / "sessions"), "say hi"]
    codex = ["run", "--hooks", "codex", "--model", "m", "--base-url", url]
    codex += ["--project", str(root / "project"), "--session-dir", str(root / "sessions"), "go"]
    return {
        "python -c pass": [python, "-c", "pass"],
        "import dsh.cli": [python, "-c", "import dsh.cli"],
        "dsh --version": [python, "-c", ENTRY, "--version"],
        "dsh run (no hooks, 1 reply)": [python, "-c", ENTRY, *run],
        HOOKED: [python, "-c", ENTRY, *run],
        CODEX_BLOCK: [python, "-c", ENTRY, *codex],
    }


def codex_home(root: Path) -> Path:
    """A ``$CODEX_HOME`` whose UserPromptSubmit hook blocks the prompt, trusted as ``dsh hooks
    trust`` trusts it (this tree's dsh writes the trust both trees read)."""
    from dsh.hooks.codex import CodexProfile

    home = root / "codex-home"
    home.mkdir()
    block = json.dumps({"decision": "block", "reason": "blocked by the case"})
    hook = json.dumps(f"echo '{block}'")
    (home / "config.toml").write_text(
        f'[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = "command"\n'
        f"command = {hook}\n"
    )
    list(CodexProfile(home=home, system_dir=None).trust(root / "project"))
    return home


def hooked_home(root: Path) -> Path:
    """A home whose Claude Code user settings run ``exit 0`` on UserPromptSubmit and Stop."""
    home = root / "home-hooked"
    (home / ".claude").mkdir(parents=True)
    silent = [{"hooks": [{"type": "command", "command": "exit 0", "timeout": 10}]}]
    settings = {"hooks": {"UserPromptSubmit": silent, "Stop": silent}}
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    return home


# pydantic's first model includes its plugin scan, which imports importlib.metadata.
PYDANTIC_STEP = "import pydantic\nclass M(pydantic.BaseModel):\n x: int\nM(x=1)"
# The import steps of `dsh run` on an endpoint, in its order.
STEPS = (
    ("click", "import click"),
    ("dsh.cli (the command's definition)", "import dsh.cli"),
    ("asyncio", "import asyncio"),
    ("dsh.cli._run: agent, tools, host, session", "import dsh.cli._run, dsh.cli._run_settle"),
    ("dsh.cli._terminal (the headless runner)", "import dsh.cli._terminal"),
    ("dsh.hooks.claude (the bridge)", "import dsh.hooks.claude"),
    ("dsh.instructions", "import dsh.instructions"),
    ("dsh.models._http (the chat client)", "import dsh.models._http"),
)
# Off a plain headless run's path since the `lean` branch, timed after the steps above.
OFF_PATH = (
    ("pydantic and its first model (a tool call, a hook's JSON)", PYDANTIC_STEP),
    ("rich.console (the printer on a terminal)", "import rich.console, rich.markup"),
)
_STEP_PROBE = """
import sys, time
out = []
for name, code in eval(sys.argv[1]):
    cpu = time.process_time()
    exec(code, {})
    out.append(time.process_time() - cpu)
print(repr(out))
"""


def breakdown(env: dict[str, str], runs: int) -> None:
    steps = STEPS + OFF_PATH
    argv = [sys.executable, "-c", _STEP_PROBE, repr(steps)]
    rows = []
    for _ in range(runs):
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        rows.append([float(x) for x in done.stdout.strip().strip("[]").split(",")])
    total = 0.0
    print(f"CPU ms per import step, medians of {runs} processes")
    print("| step | CPU ms |")
    print("| --- | ---: |")
    for i, (name, _code) in enumerate(steps):
        ms = statistics.median(r[i] for r in rows) * 1000
        if i == len(STEPS):
            print(f"| total on a plain run's path | {total:.1f} |")
            print("| *not on that path:* | |")
        total += ms
        print(f"| {name} | {ms:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="another tree's src directory")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--breakdown", action="store_true", help="CPU per import step")
    args = parser.parse_args()
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if args.breakdown:
        compile_tree(ROOT / "src", base)
        breakdown(base | {"PYTHONPATH": str(ROOT / "src")}, args.runs)
        return
    trees = {"this": ROOT / "src"}
    if args.before is not None:
        trees["before"] = args.before.resolve()
    become_subreaper()
    with tempfile.TemporaryDirectory(prefix="dsh-startup-") as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        envs = {}
        home = hooked_home(root)
        codex = codex_home(root)
        for name, src in trees.items():
            env = base | {"PYTHONPATH": str(src), "NO_COLOR": "1", "DSH_API_KEY": "k"}
            envs[name] = env | {"DSH_DATA_DIR": str(root / f"data-{name}")}
            compile_tree(src, env)
        server = LoopbackServer(answer)
        argvs = cases(server.url, root)
        samples: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        names = list(trees)
        for r in range(args.runs):
            order = names if r % 2 == 0 else names[::-1]
            for case, argv in argvs.items():
                for tree in order:
                    env = envs[tree] | ({"HOME": str(home)} if case == HOOKED else {})
                    if case == CODEX_BLOCK:
                        env = env | {"CODEX_HOME": str(codex)}
                    codes = (0, 1) if case == CODEX_BLOCK else (0,)
                    samples.setdefault((case, tree), []).append(once(argv, env, root, codes))
        server.httpd.shutdown()
    report(samples, names, list(argvs), args.runs)


def report(
    samples: dict[tuple[str, str], list[tuple[float, float, float]]],
    trees: list[str],
    case_names: list[str],
    runs: int,
) -> None:
    load = os.getloadavg()[0]
    print(f"medians of {runs} interleaved runs, seconds (load average {load:.1f} at the end)")
    header = "".join(f" | {t} wall | {t} CPU | {t} tree CPU" for t in trees)
    ratio = " | this/before wall | this/before CPU | this/before tree" if "before" in trees else ""
    print(f"| case{header}{ratio} |")
    print("| --- " + "| ---: " * (3 * len(trees) + (3 if ratio else 0)) + "|")
    for case in case_names:
        med = {
            t: tuple(statistics.median(s[k] for s in samples[(case, t)]) for k in range(3))
            for t in trees
        }
        cells = "".join(f" | {med[t][0]:.3f} | {med[t][1]:.3f} | {med[t][2]:.3f}" for t in trees)
        if ratio:
            this, before = med["this"], med["before"]
            cells += "".join(f" | {a / b:.2f}" for a, b in zip(this, before, strict=True))
        print(f"| {case}{cells} |")


if __name__ == "__main__":
    main()
