"""Dispatch cost of dsh.context channels beside pluggy's hook call, in one process.

Run: .venv/bin/python benchmarks/bench_context.py
Prints the median per-dispatch time over several rounds for notify, sync
notify and waterfall channels with 0, 1, 5 and 10 listeners, and pluggy's hook
call with the same number of implementations as the anchor.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial

import pluggy

from dsh.context import Context, Next, NotifyChannel, SyncNotifyChannel, WaterfallChannel

ROUNDS = 7
COUNTS = (0, 1, 5, 10)

NOTIFY: NotifyChannel[int] = NotifyChannel("bench/notify")
SYNC: SyncNotifyChannel[int] = SyncNotifyChannel("bench/sync")
WATERFALL: WaterfallChannel[int, int] = WaterfallChannel("bench/waterfall", default=lambda x: x)

hookspec = pluggy.HookspecMarker("bench")
hookimpl = pluggy.HookimplMarker("bench")


class Spec:
    @hookspec
    def on_event(self, x: int) -> None:
        """The anchor hook."""


def pluggy_hook(n: int) -> Callable[[], object]:
    pm = pluggy.PluginManager("bench")
    pm.add_hookspecs(Spec)
    for i in range(n):

        class Impl:
            @hookimpl
            def on_event(self, x: int) -> None:
                return None

        pm.register(Impl(), name=f"impl{i}")
    hook = pm.hook.on_event
    return lambda: hook(x=1)


def time_sync(fn: Callable[[], object], iterations: int) -> float:
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter_ns()
        for _ in range(iterations):
            fn()
        samples.append((time.perf_counter_ns() - start) / iterations)
    return statistics.median(samples)


async def time_async(fn: Callable[[], Awaitable[object]], iterations: int) -> float:
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter_ns()
        for _ in range(iterations):
            await fn()
        samples.append((time.perf_counter_ns() - start) / iterations)
    return statistics.median(samples)


def build(n: int) -> Context:
    ctx = Context()
    for _ in range(n):

        async def notify(x: int) -> None:
            return None

        def observe(x: int) -> None:
            return None

        async def pass_on(x: int, next: Next[int]) -> int:
            return await next()

        ctx.on(NOTIFY, notify)
        ctx.on(SYNC, observe)
        ctx.on(WATERFALL, pass_on)
    return ctx


async def main() -> None:
    iterations = 20_000
    print(f"python {sys.version.split()[0]}, {ROUNDS} rounds x {iterations} dispatches, median ns")
    header = f"{'listeners':>9} {'pluggy':>8} {'sync-notify':>11} {'notify':>8} {'waterfall':>9}"
    print(header + f" {'waterfall/pluggy':>16}")
    for n in COUNTS:
        ctx = build(n)
        anchor = time_sync(pluggy_hook(n), iterations)
        sync = time_sync(partial(ctx.emit_sync, SYNC, 1), iterations)
        notify = await time_async(partial(ctx.emit, NOTIFY, 1), iterations)
        waterfall = await time_async(partial(ctx.waterfall, WATERFALL, 1), iterations)
        print(
            f"{n:>9} {anchor:>8.0f} {sync:>11.0f} {notify:>8.0f} {waterfall:>9.0f}"
            f" {waterfall / anchor:>16.2f}"
        )


if __name__ == "__main__":
    asyncio.run(main())
