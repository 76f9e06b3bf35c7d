"""Cost of running external command hooks through dsh.hook_protocol, in one process.

Run: .venv/bin/python benchmarks/bench_hooks.py
Prints:
- the executor's overhead per run over a bare ``asyncio.create_subprocess_exec``
  + ``communicate`` of the same command (``true``, ``sh -c true``, a python3
  hook reading its JSON payload, run with this interpreter): runs are
  interleaved in pairs, and the median of the per-pair differences is the
  overhead (target <= 0.5 ms);
- 16 hooks that each sleep 100 ms run together, against one (target: the 16
  together within 150 ms);
- peak RSS growth while one hook writes 1 GiB to stdout (target <= 20 MiB);
- what the executor's ``start_new_session=True`` costs at spawn: a bare
  spawn of ``true`` with it, with ``process_group=0``, with neither, and with
  a ``preexec_fn`` (which makes CPython fork instead of vfork: the cost a
  setsid would have if it forced a fork), interleaved, with 256 MiB held
  in this process so that a fork's page-table copy shows.
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import psutil

from dsh.base._child_watcher import use_pidfd_child_watcher
from dsh.hook_protocol import HookCommand, HookOrigin, run_hooks, shell_argv
from dsh.hook_protocol._executor import run_hook

ORIGIN = HookOrigin(source="bench", event="PreToolUse")
PAYLOAD = json.dumps({"hook_event_name": "PreToolUse", "tool_input": {"command": "ls"}}).encode()
PY_HOOK = "import json, sys; json.load(sys.stdin); print('{}')"
MiB = 1 << 20


def cmd(argv: tuple[str, ...], timeout: float = 30.0) -> HookCommand:
    return HookCommand(argv=argv, timeout=timeout, origin=ORIGIN)


async def bare(argv: tuple[str, ...]) -> None:
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    await proc.communicate(PAYLOAD)


async def timed(fn: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await fn()
    return time.perf_counter() - start


async def overhead(label: str, argv: tuple[str, ...], pairs: int) -> None:
    hook = cmd(argv)
    for _ in range(5):  # warm up both paths
        await bare(argv)
        await run_hook(hook, PAYLOAD)
    bare_t: list[float] = []
    exec_t: list[float] = []
    for i in range(pairs):
        # Alternate which goes first so drift in machine load cancels out.
        if i % 2 == 0:
            bare_t.append(await timed(lambda: bare(argv)))
            exec_t.append(await timed(lambda: run_hook(hook, PAYLOAD)))
        else:
            exec_t.append(await timed(lambda: run_hook(hook, PAYLOAD)))
            bare_t.append(await timed(lambda: bare(argv)))
    diffs = [e - b for e, b in zip(exec_t, bare_t, strict=True)]
    mb, me = statistics.median(bare_t), statistics.median(exec_t)
    q1, md, q3 = statistics.quantiles(diffs, n=4)
    print(
        f"  {label:<14} bare {mb * 1e3:7.3f} ms   run_hook {me * 1e3:7.3f} ms"
        f"   ratio {me / mb:.3f}\n  {'':<14} overhead: median of pair diffs {md * 1e3:+.3f} ms"
        f" (IQR {q1 * 1e3:+.3f} .. {q3 * 1e3:+.3f} ms) [{pairs} pairs]"
    )


async def parallel() -> None:
    sleeper = cmd(("sleep", "0.1"))
    one: list[float] = []
    sixteen: list[float] = []
    for _ in range(5):
        one.append(await timed(lambda: run_hooks([sleeper], PAYLOAD, dedup=False)))
        sixteen.append(await timed(lambda: run_hooks([sleeper] * 16, PAYLOAD, dedup=False)))
    m1, m16 = statistics.median(one), statistics.median(sixteen)
    print(
        f"  1 hook  sleeping 100 ms: {m1 * 1e3:6.1f} ms\n"
        f"  16 hooks sleeping 100 ms: {m16 * 1e3:6.1f} ms   (ratio {m16 / m1:.2f} of one;"
        f" serial would be {16 * m1 * 1e3:.0f} ms)   [median of 5]"
    )


async def rss_while_flooding() -> None:
    me = psutil.Process()
    baseline = me.memory_info().rss
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    peak = baseline
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, me.memory_info().rss)
            await asyncio.sleep(0.002)

    async with asyncio.TaskGroup() as tg:
        tg.create_task(sample())
        start = time.perf_counter()
        run = await run_hook(cmd(("head", "-c", "1G", "/dev/zero"), timeout=120), PAYLOAD)
        elapsed = time.perf_counter() - start
        done.set()
    peak = max(peak, me.memory_info().rss)
    maxrss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if run.exit_code != 0 or not run.stdout_truncated:
        raise SystemExit(f"the 1 GiB hook did not run as expected: {run}")
    print(
        f"  1 GiB of stdout drained in {elapsed:.2f} s ({1024 / elapsed:.0f} MiB/s),"
        f" kept {len(run.stdout.encode()) / MiB:.0f} MiB\n"
        f"  RSS baseline {baseline / MiB:.1f} MiB, sampled peak {peak / MiB:.1f} MiB:"
        f" growth {(peak - baseline) / MiB:.1f} MiB"
        f" (ru_maxrss growth {(maxrss_after - maxrss_before) / MiB:.1f} MiB)"
    )


def _no_op() -> None:
    pass


SPAWN_FLAGS: dict[str, dict[str, Any]] = {
    "no flags": {},
    "start_new_session": {"start_new_session": True},
    "process_group=0": {"process_group": 0},
    "preexec_fn (fork)": {"preexec_fn": _no_op},
}


async def spawn_flags(rounds: int) -> None:
    held = [bytes(MiB) for _ in range(256)]  # a heap a fork must copy the page tables of
    times: dict[str, list[float]] = {k: [] for k in SPAWN_FLAGS}
    for i in range(rounds):
        order = list(SPAWN_FLAGS) if i % 2 == 0 else list(reversed(SPAWN_FLAGS))
        for label in order:
            start = time.perf_counter()
            proc = await asyncio.create_subprocess_exec(
                "true", stdin=subprocess.PIPE, stdout=subprocess.PIPE, **SPAWN_FLAGS[label]
            )
            spawned = time.perf_counter() - start
            await proc.communicate()
            times[label].append(spawned)
    base = statistics.median(times["no flags"])
    for label, ts in times.items():
        m = statistics.median(ts)
        print(f"  {label:<18} spawn {m * 1e3:7.3f} ms   x no flags {m / base:5.2f}")
    print(f"  [median of {rounds}, {len(held)} MiB held]")


async def main() -> None:
    print(f"python {sys.version.split()[0]}, {psutil.cpu_count()} cpus")
    print("executor overhead over bare create_subprocess_exec + communicate:")
    await overhead("true", ("true",), 300)
    await overhead("sh -c true", shell_argv("true"), 300)
    # The interpreter binary itself: `python3` on PATH here is a pyenv shim (a bash
    # script) whose own start-up noise would swamp the figure.
    await overhead("python3 hook", (sys.executable, "-c", PY_HOOK), 100)
    print("parallel hooks:")
    await parallel()
    print("memory while a hook writes 1 GiB:")
    await rss_while_flooding()
    print("spawn cost of the executor's process-group flags (bare create_subprocess_exec):")
    use_pidfd_child_watcher()
    await spawn_flags(200)


if __name__ == "__main__":
    asyncio.run(main())
