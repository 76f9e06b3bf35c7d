"""What declaring dsh's value classes costs in a ``dsh run``: this tree beside another.

Run: .venv/bin/python benchmarks/bench_declare.py [--before SRC] [--runs N]

``dsh run --hooks codex`` on ``bench_startup``'s prompt-block case (a Codex
UserPromptSubmit hook blocks the prompt; no model request), each tree under this
venv's interpreter with its bytecode compiled, a ``sitecustomize`` wrapping
``dsh._frozen._declare`` (every ``@frozen``/``@slotted`` declaration) and
``_compile_init`` (each class's ``__init__``, made when first built) with
``time.thread_time``. Printed: how many classes each declares and builds, and the
median CPU milliseconds of each, with this/before ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_startup import ENTRY, codex_home, compile_tree

ROOT = Path(__file__).resolve().parent.parent
# Wraps the two functions; writes "declare_ms declared compile_ms compiled" as dsh exits
# (os._exit, which skips atexit).
SITECUSTOMIZE = """
import os, time
import dsh._frozen as frozen
totals = {"_declare": [0.0, 0], "_compile_init": [0.0, 0]}
def timed(name):
    inner = getattr(frozen, name)
    def wrapper(*args, **kwargs):
        start = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            totals[name][0] += time.thread_time() - start
            totals[name][1] += 1
    setattr(frozen, name, wrapper)
for name in totals:
    timed(name)
exit_now = os._exit
def report_and_exit(code):
    with open(os.environ["BENCH_DECLARE_OUT"], "w") as out:
        out.write(" ".join(f"{ms * 1000:.4f} {n}" for ms, n in totals.values()))
    exit_now(code)
os._exit = report_and_exit
"""


def run_once(src: Path, site: Path, root: Path, env: dict[str, str]) -> list[float]:
    out = root / "declare.out"
    out.unlink(missing_ok=True)
    argv = [sys.executable, "-c", ENTRY, "run", "--hooks", "codex", "--model", "m"]
    argv += ["--base-url", "http://127.0.0.1:9", "--project", str(root / "project")]
    argv += ["--session-dir", str(root / "sessions"), "go"]
    run_env = env | {"PYTHONPATH": f"{src}{os.pathsep}{site}", "BENCH_DECLARE_OUT": str(out)}
    subprocess.run(argv, cwd=root, env=run_env, capture_output=True, check=False)
    return [float(x) for x in out.read_text().split()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="another tree's src directory")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    trees = {"this": ROOT / "src"}
    if args.before is not None:
        trees["before"] = args.before.resolve()
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="dsh-declare-") as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        site = root / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
        env = base | {"NO_COLOR": "1", "DSH_API_KEY": "k", "CODEX_HOME": str(codex_home(root))}
        for src in trees.values():
            compile_tree(src, env | {"PYTHONPATH": str(src)})
        samples: dict[str, list[list[float]]] = {name: [] for name in trees}
        for r in range(args.runs):
            for name in list(trees) if r % 2 == 0 else list(trees)[::-1]:
                data = env | {"DSH_DATA_DIR": str(root / f"data-{name}")}
                samples[name].append(run_once(trees[name], site, root, data))
    report(samples, args.runs)


def report(samples: dict[str, list[list[float]]], runs: int) -> None:
    print(f"`dsh run --hooks codex` (prompt blocked): medians of {runs} interleaved runs")
    print("| tree | classes declared | declaring, CPU ms | classes built | __init__ made, CPU ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    med: dict[str, list[float]] = {}
    for name, rows in samples.items():
        med[name] = [statistics.median(row[k] for row in rows) for k in range(4)]
        declared, built = int(med[name][1]), int(med[name][3])
        print(f"| {name} | {declared} | {med[name][0]:.2f} | {built} | {med[name][2]:.2f} |")
    if "before" in med:
        this, before = med["this"], med["before"]
        print(f"| this/before | | {this[0] / before[0]:.2f} | | {this[2] / before[2]:.2f} |")


if __name__ == "__main__":
    main()
