"""Start-up and end-to-end wall time of the ``dsh`` command, beside a bare interpreter.

Run: .venv/bin/python benchmarks/bench_cli.py
Prints the median wall time (process start to exit) of ``python -c pass``,
``dsh --version`` and ``dsh run`` with a scripted model that makes one real
Bash call, each over several runs. dsh's bytecode is compiled first, as an
install does (``bench_claude_cases.compile_bytecode``).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_claude_cases import compile_bytecode

RUNS = 15


def wall(argv: list[str], cwd: Path) -> float:
    samples = []
    env = {**os.environ, "NO_COLOR": "1"}
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    compile_bytecode()
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="dsh-bench-") as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        script = root / "script.json"
        script.write_text(
            json.dumps(
                {
                    "anthropic": {
                        "rules": [
                            {
                                "responses": [
                                    [
                                        {
                                            "type": "tool_use",
                                            "name": "Bash",
                                            "input": {"command": "echo hi"},
                                        }
                                    ],
                                    [{"type": "text", "text": "done"}],
                                ]
                            }
                        ]
                    }
                }
            )
        )
        bare = wall([python, "-c", "pass"], root)
        version = wall([python, "-m", "dsh", "--version"], root)
        run = wall(
            [
                python,
                "-m",
                "dsh",
                "run",
                "say hi",
                "--model",
                f"scripted:{script}",
                "--project",
                str(project),
                "--session-dir",
                str(root / "sessions"),
            ],
            root,
        )
    print(f"median of {RUNS} runs, seconds")
    print(f"python -c pass          {bare:.3f}")
    print(f"dsh --version           {version:.3f}  ({version - bare:+.3f} over bare python)")
    print(f"dsh run (1 Bash call)   {run:.3f}  ({run - bare:+.3f} over bare python)")


if __name__ == "__main__":
    main()
