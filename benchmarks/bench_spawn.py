"""What containment in dsh's namespace costs a spawn, against marks alone, in one process.

Run: .venv/bin/python benchmarks/bench_spawn.py [RUNS]
First the one-off cost: making the namespace (the watchdog starts, unshares, forks its
init and says so; ``nsenter`` is tried once) before the first contained spawn. Then the
same ``true`` hook run with ``process_containment = "marks"``, in the namespace through
``nsenter`` (the default where it is installed) and through the ``preexec_fn`` (a fork
instead of a vfork), interleaved (``helpers="session"``: no search at its end); and the
bare spawn (``subprocess.Popen`` of ``true`` and its wait) with no ``preexec_fn``
(vfork), one that does nothing (fork: what any ``preexec_fn`` costs), the namespace's
and behind ``nsenter``. Prints medians, and each way's median difference from marks.
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from dsh.base._child_watcher import use_pidfd_child_watcher
from dsh.base._containment import _WARDEN, containment_in_use, set_process_containment
from dsh.hook_protocol import HookCommand, HookOrigin
from dsh.hook_protocol._executor import run_hook

ORIGIN = HookOrigin(source="bench", event="PreToolUse")


def _nothing() -> None:
    pass


def _popen(preexec: Callable[[], None] | None, prefix: tuple[str, ...] = ()) -> float:
    started = time.perf_counter()
    subprocess.Popen([*prefix, "true"], preexec_fn=preexec, process_group=0).wait()
    return time.perf_counter() - started


async def _hook(cmd: HookCommand, way: str, launcher: tuple[str, ...] | None) -> float:
    set_process_containment("marks" if way == "marks" else "namespace")
    assert _WARDEN.namespace is not None
    _WARDEN.namespace.launcher = launcher if way == "nsenter" else None
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
    ways = ["marks", "nsenter", "preexec"] if launcher is not None else ["marks", "preexec"]
    hooks: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(runs):
        for way in ways:
            hooks[way].append(await _hook(cmd, way, launcher))
    _report("`true` hook", hooks, runs)
    bare: dict[str, list[float]] = {"vfork": [], "fork": [], "preexec": [], "nsenter": []}
    enter = space.enter(pdeathsig=True)
    for _ in range(runs):
        bare["vfork"].append(_popen(None))
        bare["fork"].append(_popen(_nothing))
        bare["preexec"].append(_popen(enter))
        if launcher is not None:
            bare["nsenter"].append(_popen(None, launcher))
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
