"""Cost of a tool call through the whole registry pipeline, in one process.

Run: .venv/bin/python benchmarks/bench_tools.py
A no-op tool with a three-key input (JSON-schema and pydantic variants) runs
through ``ToolRegistry.execute`` (sealing, validation, every phase, the
result observers) with no listeners and with one listener per phase
(pre-execute, guard, execute wrapper, post-execute, result observer), beside
a bare ``await`` of the tool function and pluggy calling the same number of
hook implementations. Prints the median per call over several rounds.
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

from dsh.context import Context, Next
from dsh.session import FrozenDict
from dsh.tools import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    TOOLS,
    AbortSignal,
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

ROUNDS = 9
ITERATIONS = 4000
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


async def measure(cases: dict[str, Callable[[], Awaitable[object]]]) -> dict[str, float]:
    """Median µs per call of each case; rounds interleave the cases so load hits all alike."""
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(ROUNDS):
        for name, fn in cases.items():
            start = time.perf_counter_ns()
            for _ in range(ITERATIONS):
                await fn()
            samples[name].append((time.perf_counter_ns() - start) / ITERATIONS / 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def measure_sync(cases: dict[str, Callable[[], object]]) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(ROUNDS):
        for name, fn in cases.items():
            start = time.perf_counter_ns()
            for _ in range(ITERATIONS):
                fn()
            samples[name].append((time.perf_counter_ns() - start) / ITERATIONS / 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


async def main() -> None:
    workspace = Workspace(Path.cwd())
    invocation = ToolInvocation("Noop", FrozenDict(ARGUMENTS), workspace)
    cases: dict[str, Callable[[], Awaitable[object]]] = {"bare": partial(noop, invocation)}
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
    figures = await measure(cases)
    anchors = measure_sync({"0": pluggy_hook(0), "n": pluggy_hook(LISTENERS)})

    bare = figures["bare"]
    print(f"median per call, {ROUNDS} rounds x {ITERATIONS} calls, three-key input")
    print(f"  bare await of the tool function               {bare:7.2f} µs")
    for tool, label in (("Noop", "JSON schema"), ("NoopModel", "pydantic model")):
        none = figures[f"{tool}/0"]
        full = figures[f"{tool}/{LISTENERS}"]
        per = (full - none) / LISTENERS
        print(f"  execute, {label:<15} no listeners        {none:7.2f} µs")
        print(
            f"  execute, {label:<15} {LISTENERS} listeners         {full:7.2f} µs"
            f"  ({per:5.2f} µs per added listener)"
        )
    s0, sn = figures["signal/0"], figures[f"signal/{LISTENERS}"]
    print(f"  execute, JSON schema, with a signal, no listeners {s0:7.2f} µs")
    print(
        f"  execute, JSON schema, with a signal, {LISTENERS} listeners  {sn:7.2f} µs"
        f"  ({(sn - s0) / LISTENERS:5.2f} µs per added listener)"
    )
    p0, pn = anchors["0"], anchors["n"]
    print(f"  pluggy hook call, 0 implementations           {p0:7.2f} µs")
    print(
        f"  pluggy hook call, {LISTENERS} implementations           {pn:7.2f} µs"
        f"  ({(pn - p0) / LISTENERS:5.2f} µs per implementation)"
    )
    print("targets: <= 15 µs with no listeners (sealing included); <= 2 µs per added listener")


if __name__ == "__main__":
    asyncio.run(main())
