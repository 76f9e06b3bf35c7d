"""Cost of a tool call through the whole registry pipeline, in one process.

Run: .venv/bin/python benchmarks/bench_tools.py
A no-op tool with a three-key input (JSON-schema and pydantic variants) runs
through ``ToolRegistry.execute`` (sealing, validation, every phase, the
result observers) with no listeners and with one listener per phase
(pre-execute, guard, execute wrapper, post-execute, result observer), beside
a bare ``await`` of the tool function and pluggy calling the same number of
hook implementations.

The machine this runs on is shared and noisy, so the figures are paired: many
short rounds, each timing the no-listener and the five-listener registry back
to back (which goes first alternates by round), and the pluggy anchor in the
same round. The per-listener figure is the median over rounds of that
round's difference divided by five, printed with its interquartile range and
with its ratio to the same round's 0-implementation pluggy call (the median
of the per-round ratios): load that slows a round slows both halves of its
pair and its anchor alike. The other figures are medians per call over the
rounds. The garbage collector stays on: a real pipeline pays for it too, and
a collection lands in either half of a pair alike.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import pluggy
from pydantic import BaseModel

from dsh.base import AbortSignal, FrozenDict
from dsh.context import Context, Next
from dsh.tools import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    TOOLS,
    ExecuteNext,
    GuardDenial,
    PostToolDecision,
    PreToolDecision,
    ToolCall,
    ToolDefinition,
    ToolExecution,
    ToolInvocation,
    ToolRegistry,
    ToolRequest,
    ToolResult,
    Workspace,
)

ROUNDS = 301
WARMUP = 5
ITERATIONS = 200
PAIRS = ("Noop", "NoopModel", "signal")
LISTENERS = 5  # one per phase: pre-execute, guard, execute, post-execute, result

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "limit": {"type": "integer"},
        "recursive": {"type": "boolean"},
    },
    "required": ["path", "limit", "recursive"],
    "additionalProperties": False,
}
ARGUMENTS = {"path": "src/dsh", "limit": 10, "recursive": True}
RESULT_VALUE = ToolResult.ok("ok")


class NoopInput(BaseModel):
    path: str
    limit: int
    recursive: bool


async def noop(inv: ToolInvocation) -> ToolResult:
    return RESULT_VALUE


hookspec = pluggy.HookspecMarker("bench")
hookimpl = pluggy.HookimplMarker("bench")


class Spec:
    @hookspec
    def on_call(self, name: str, arguments: dict[str, object]) -> None:
        """The anchor hook."""


def pluggy_hook(n: int) -> Callable[[], object]:
    pm = pluggy.PluginManager("bench")
    pm.add_hookspecs(Spec)
    for i in range(n):

        class Impl:
            @hookimpl
            def on_call(self, name: str, arguments: dict[str, object]) -> None:
                return None

        pm.register(Impl(), name=f"impl{i}")
    hook = pm.hook.on_call
    return lambda: hook(name="Noop", arguments=ARGUMENTS)


def build(listeners: bool) -> ToolRegistry:
    ctx = Context()
    registry = ToolRegistry(ctx)
    ctx.provide(TOOLS, registry)
    registry.register(ToolDefinition("Noop", "does nothing", SCHEMA, noop))
    registry.register(ToolDefinition.from_model("NoopModel", "does nothing", NoopInput, noop))
    if listeners:

        async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
            return await next()

        def guard(call: ToolCall) -> GuardDenial | None:
            return None

        async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
            return await next()

        async def post(
            call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
        ) -> PostToolDecision:
            return await next()

        def observe(call: ToolCall, result: ToolResult) -> None:
            return None

        ctx.on(PRE_EXECUTE, pre)
        registry.guard(guard)
        ctx.on(EXECUTE, wrap)
        ctx.on(POST_EXECUTE, post)
        ctx.on(RESULT, observe)
    return registry


Case = Callable[[], Awaitable[object]]


async def _time(fn: Case) -> float:
    """µs per call of ``fn`` over one batch."""
    start = time.perf_counter_ns()
    for _ in range(ITERATIONS):
        await fn()
    return (time.perf_counter_ns() - start) / ITERATIONS / 1000


def _time_sync(fn: Callable[[], object]) -> float:
    start = time.perf_counter_ns()
    for _ in range(ITERATIONS):
        fn()
    return (time.perf_counter_ns() - start) / ITERATIONS / 1000


async def measure(
    pairs: dict[str, tuple[Case, Case]], anchor: tuple[Callable[[], object], Callable[[], object]]
) -> tuple[dict[str, list[float]], dict[str, list[float]], list[float]]:
    """Per round: each pair's two cases back to back (order alternating), and the anchor's.

    Returns each case's per-call times, each pair's per-listener differences,
    and the anchor's 0-implementation times, one entry per round.
    """
    times: dict[str, list[float]] = {}
    per: dict[str, list[float]] = {name: [] for name in pairs}
    anchor_zero: list[float] = []
    for round_ in range(WARMUP + ROUNDS):
        flip = round_ % 2 == 1
        figures: dict[str, float] = {}
        for name, (none, full) in pairs.items():
            if flip:
                t_full, t_none = await _time(full), await _time(none)
            else:
                t_none, t_full = await _time(none), await _time(full)
            figures[f"{name}/0"], figures[f"{name}/{LISTENERS}"] = t_none, t_full
        zero, many = anchor
        if flip:
            p_many, p_zero = _time_sync(many), _time_sync(zero)
        else:
            p_zero, p_many = _time_sync(zero), _time_sync(many)
        figures["pluggy/0"], figures[f"pluggy/{LISTENERS}"] = p_zero, p_many
        if round_ < WARMUP:
            continue
        for key, value in figures.items():
            times.setdefault(key, []).append(value)
        for name in [*pairs, "pluggy"]:
            diff = (figures[f"{name}/{LISTENERS}"] - figures[f"{name}/0"]) / LISTENERS
            per.setdefault(name, []).append(diff)
        anchor_zero.append(p_zero)
    return times, per, anchor_zero


def _spread(values: list[float]) -> str:
    q = statistics.quantiles(values, n=4)
    return f"IQR {q[0]:.2f}-{q[2]:.2f}"


async def main() -> None:
    workspace = Workspace(Path.cwd())
    invocation = ToolInvocation("Noop", FrozenDict(ARGUMENTS), workspace)
    bare = partial(noop, invocation)
    cases: dict[str, Case] = {}
    for listeners in (0, LISTENERS):
        registry = build(listeners > 0)
        for tool in ("Noop", "NoopModel"):
            request = ToolRequest(tool, ARGUMENTS, "toolu_1")
            check = await registry.execute(request, workspace=workspace)
            assert not check.result.is_error, check.result
            cases[f"{tool}/{listeners}"] = partial(registry.execute, request, workspace=workspace)
        # As the agent calls it: with the turn's signal, each listener chain is raced
        # against it (one task per phase that has listeners).
        request = ToolRequest("Noop", ARGUMENTS, "toolu_1")
        cases[f"signal/{listeners}"] = partial(
            registry.execute, request, workspace=workspace, signal=AbortSignal()
        )
    pairs = {name: (cases[f"{name}/0"], cases[f"{name}/{LISTENERS}"]) for name in PAIRS}
    bare_times = [await _time(bare) for _ in range(ROUNDS // 10 + 1)]
    times, per, anchor_zero = await measure(pairs, (pluggy_hook(0), pluggy_hook(LISTENERS)))

    n = LISTENERS

    def med(key: str) -> float:
        return statistics.median(times[key])

    def per_listener(name: str) -> str:
        values = per[name]
        ratio = statistics.median(v / a for v, a in zip(values, anchor_zero, strict=True))
        return (
            f"  ({statistics.median(values):5.2f} µs per added listener, {_spread(values)};"
            f" {ratio:4.2f}x pluggy's 0-implementation call)"
        )

    print(
        f"median per call, {ROUNDS} rounds x {ITERATIONS} calls, three-key input; per listener:"
        f" median over rounds of (5 listeners - none) / {LISTENERS}, the pair timed back to back"
    )
    print(
        f"  bare await of the tool function               {statistics.median(bare_times):7.2f} µs"
    )
    for tool, label in (("Noop", "JSON schema"), ("NoopModel", "pydantic model")):
        print(f"  execute, {label:<15} no listeners        {med(f'{tool}/0'):7.2f} µs")
        print(
            f"  execute, {label:<15} {LISTENERS} listeners         {med(f'{tool}/{n}'):7.2f} µs"
            + per_listener(tool)
        )
    print(f"  execute, JSON schema, with a signal, no listeners {med('signal/0'):7.2f} µs")
    print(
        f"  execute, JSON schema, with a signal, {n} listeners  {med(f'signal/{n}'):7.2f} µs"
        + per_listener("signal")
    )
    print(f"  pluggy hook call, 0 implementations           {med('pluggy/0'):7.2f} µs")
    print(
        f"  pluggy hook call, {n} implementations           {med(f'pluggy/{n}'):7.2f} µs"
        f"  ({statistics.median(per['pluggy']):5.2f} µs per implementation)"
    )
    print("targets: <= 15 µs with no listeners (sealing included); <= 2 µs per added listener")


if __name__ == "__main__":
    asyncio.run(main())
