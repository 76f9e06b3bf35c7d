"""What containment in dsh's namespace costs a spawn, against marks alone, in one process.

Run: .venv/bin/python benchmarks/bench_spawn.py [RUNS]
First the one-off cost: making the namespace (the watchdog starts, unshares, forks its
init, which mounts its ``/proc``, and says so; ``nsenter`` is tried once) before the first
contained spawn. Then the same ``true`` hook run with ``process_containment = "marks"`` and
in the namespace (behind ``nsenter``, which forks ``true`` inside and waits), interleaved
(``helpers="session"``: no search at its end); and the bare spawn (``subprocess.Popen`` of
``true`` and its wait): plain (vfork), behind ``nsenter`` as dsh runs it, and behind
``nsenter --no-fork`` (the process itself left outside, its children inside: how the
namespace was joined before, for comparison). Prints medians, and each way's median
difference from marks (vfork).
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import subprocess
import sys
import time

from dsh.base._child_watcher import use_pidfd_child_watcher
from dsh.base._containment import _WARDEN, containment_in_use, set_process_containment
from dsh.hook_protocol import HookCommand, HookOrigin
from dsh.hook_protocol._executor import run_hook

ORIGIN = HookOrigin(source="bench", event="PreToolUse")


def _popen(prefix: tuple[str, ...] = ()) -> float:
    started = time.perf_counter()
    subprocess.Popen([*prefix, "true"], process_group=0).wait()
    return time.perf_counter() - started


async def _hook(cmd: HookCommand, way: str) -> float:
    set_process_containment("marks" if way == "marks" else "namespace")
    started = time.perf_counter()
    await run_hook(cmd, b"", helpers="session")
    return time.perf_counter() - started


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


async def main(runs: int) -> None:
    use_pidfd_child_watcher()
    started = time.perf_counter()
    in_use, how = containment_in_use()
    print(f"making the namespace: {_ms(time.perf_counter() - started)} once ({in_use}: {how})")
    if in_use != "namespace":
        print("no namespace here: nothing to compare")
        return
    space = _WARDEN.namespace
    assert space is not None
    launcher = space.launcher
    cmd = HookCommand(argv=("true",), timeout=10, origin=ORIGIN)
    hooks: dict[str, list[float]] = {"marks": [], "nsenter": []}
    for _ in range(runs):
        for way, these in hooks.items():
            these.append(await _hook(cmd, way))
    _report("`true` hook", hooks, runs)
    split = (*launcher[:-1], "--no-fork", "--")
    bare: dict[str, list[float]] = {"vfork": [], "nsenter": [], "nsenter --no-fork": []}
    for _ in range(runs):
        bare["vfork"].append(_popen())
        bare["nsenter"].append(_popen(launcher))
        bare["nsenter --no-fork"].append(_popen(split))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    _report(f"bare spawn (Popen + wait of `true`, this process {rss} MiB)", bare, runs)


def _report(what: str, times: dict[str, list[float]], runs: int) -> None:
    base = times.get("marks") or times["vfork"]
    parts = []
    for way, these in times.items():
        if these:
            diff = statistics.median(t - b for t, b in zip(these, base, strict=True))
            parts.append(f"{way} {_ms(statistics.median(these))} ({diff * 1000:+.3f})")
    print(f"{what}, median of {runs}: " + ", ".join(parts))


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
