"""What ending a hook's leftovers costs a hook that leaves nothing (the common case).

Run: .venv/bin/python benchmarks/bench_hook_end.py [RUNS]
Runs the same ``true`` hook with ``helpers="session"`` (no search at its end) and
``helpers="hook"`` (the default: its group checked, the processes started since it
searched for its containment mark), interleaved in pairs, and prints the median of the
per-pair differences and how many processes ``/proc`` listed.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time

from dsh.base._child_watcher import use_pidfd_child_watcher
from dsh.hook_protocol import HookCommand, HookOrigin
from dsh.hook_protocol._executor import run_hook

ORIGIN = HookOrigin(source="bench", event="PreToolUse")


async def main(runs: int) -> None:
    use_pidfd_child_watcher()
    cmd = HookCommand(argv=("true",), timeout=10, origin=ORIGIN)
    diffs: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        await run_hook(cmd, b"", helpers="session")
        kept = time.perf_counter() - started
        started = time.perf_counter()
        await run_hook(cmd, b"", helpers="hook")
        diffs.append(time.perf_counter() - started - kept)
    processes = sum(name.isdigit() for name in os.listdir("/proc"))
    print(
        f"hook-end search: {statistics.median(diffs) * 1000:+.3f} ms median per run"
        f" ({runs} pairs, a `true` hook, {processes} processes on the machine)"
    )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
