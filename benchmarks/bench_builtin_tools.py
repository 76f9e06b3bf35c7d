"""Built-in tool costs: a Bash call beside a bare ``bash -c``, Grep with ripgrep and without.

Run: .venv/bin/python benchmarks/bench_builtin_tools.py
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from dsh.base import freeze_json
from dsh.tools import ToolDefinition, ToolInvocation, Workspace
from dsh.tools.builtin import BASH_TOOL, READ_TOOL
from dsh.tools.builtin._grep import grep_tool


async def _median_ms(fn: Callable[[], Awaitable[object]], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def _invoke(tool: ToolDefinition, ws: Workspace, **args: object) -> Callable[[], Awaitable[object]]:
    invocation = ToolInvocation(tool.name, freeze_json(args), ws)
    return lambda: tool.run(invocation)


async def _bare_bash() -> None:
    proc = await asyncio.create_subprocess_exec(
        "bash", "-c", "true", stdout=asyncio.subprocess.DEVNULL, start_new_session=True
    )
    await proc.wait()


def _make_tree(root: Path, files: int) -> None:
    for i in range(files):
        d = root / f"pkg{i % 20}"
        d.mkdir(exist_ok=True)
        body = "".join(f"line {j} of file {i}\n" for j in range(200))
        (d / f"m{i}.py").write_text(body + ("# NEEDLE here\n" if i % 7 == 0 else ""))


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ws = Workspace(root, env=dict(os.environ))
        bare = await _median_ms(_bare_bash, 30)
        tool = await _median_ms(_invoke(BASH_TOOL, ws, command="true"), 30)
        print(f"bare `bash -c true`        {bare:7.2f} ms (median of 30)")
        print(f"Bash tool `true`           {tool:7.2f} ms  ({tool / bare:.2f}x bare)")

        (root / "f.txt").write_text("x\n" * 2000)
        read = await _median_ms(_invoke(READ_TOOL, ws, file_path=str(root / "f.txt")), 50)
        print(f"Read 2000 lines            {read:7.2f} ms")

        _make_tree(root, 600)
        for mode in ("files_with_matches", "content"):
            args = {"pattern": "NEEDLE", "output_mode": mode}
            py = await _median_ms(_invoke(grep_tool(use_ripgrep=False), ws, **args), 10)
            line = f"Grep {mode:<18} python {py:7.2f} ms"
            if shutil.which("rg"):
                rg = await _median_ms(_invoke(grep_tool(use_ripgrep=True), ws, **args), 10)
                line += f" | ripgrep {rg:7.2f} ms (python/rg {py / rg:.2f}x)"
            print(line + "  [600 files x 200 lines]")


if __name__ == "__main__":
    asyncio.run(main())
