"""A call through every phase leaves no reference cycle behind.

Garbage in a cycle is freed only by the collector, so every call that makes
some makes the collections that follow it more frequent and longer: the
per-listener cost of the pipeline once came mostly from a self-calling
closure in the waterfall runner (27 objects a call). A decision chain that
fails may leave one (a traceback holds the frames); a call that succeeds,
denied or not, must not.
"""

from __future__ import annotations

import gc
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from dsh.base import AbortSignal
from dsh.context import Next
from dsh.context._chain import run_waterfall
from dsh.tools import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    REWRITE_INPUT,
    CallStateKey,
    ExecuteNext,
    InputRewrite,
    PostToolDecision,
    PreToolDecision,
    ProposedCall,
    ToolCall,
    ToolExecution,
    ToolResult,
)
from tests.tools.support import Host, echo
from tests.tools.test_pipeline import Trail

CALLS = 20


@pytest.fixture
def collector_off() -> Iterator[None]:
    """The collector off, after collecting what came before: what the test makes stays."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def garbage_of(work: Callable[[], Awaitable[Any]]) -> int:
    """How many objects ``CALLS`` runs of ``work`` left for the collector."""
    await work()  # first-call caches (compiled initializers, validators)
    gc.collect()
    for _ in range(CALLS):
        await work()
    return gc.collect()


def every_phase(host: Host, answer: PreToolDecision) -> None:
    Trail(host)  # execute wrapper, post-execute, guard, result observer

    @host.ctx.on(PRE_EXECUTE)
    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        await next()
        return answer


@pytest.mark.usefixtures("collector_off")
@pytest.mark.parametrize("signal", [False, True], ids=["no-signal", "signal"])
@pytest.mark.parametrize(
    "answer",
    [PreToolDecision.allow(), PreToolDecision.deny("no")],
    ids=["allowed", "denied"],
)
async def test_a_call_through_every_phase_leaves_no_cycle(
    signal: bool, answer: PreToolDecision
) -> None:
    host = Host()
    every_phase(host, answer)

    async def call() -> None:
        res = await host.registry.execute(echo("x"), signal=AbortSignal() if signal else None)
        assert res.result.is_error is (answer.kind == "deny")

    assert await garbage_of(call) == 0


@pytest.mark.usefixtures("collector_off")
async def test_nested_wrappers_and_chains_leave_no_cycle() -> None:
    host = Host()
    for _ in range(3):

        @host.ctx.on(EXECUTE)
        async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
            return await next()

        @host.ctx.on(POST_EXECUTE)
        async def post(
            call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
        ) -> PostToolDecision:
            return await next()

    async def call() -> None:
        res = await host.registry.execute(echo("x"))
        assert res.result.is_error is False

    assert await garbage_of(call) == 0


@pytest.mark.usefixtures("collector_off")
async def test_listeners_using_the_calls_slot_leave_no_cycle() -> None:
    host = Host()
    every_phase(host, PreToolDecision.allow())
    seen: CallStateKey[list[str]] = CallStateKey("test.seen")

    @host.ctx.on(REWRITE_INPUT)
    async def rewrite(call: ProposedCall) -> InputRewrite | None:
        call.state[seen] = ["rewrite"]
        return None

    @host.ctx.on(POST_EXECUTE)
    async def post(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        call.state.get(seen, []).append("post")
        return await next()

    @host.ctx.on(RESULT)
    def observe(call: ToolCall, result: ToolResult) -> None:
        assert call.state[seen] == ["rewrite", "post"]

    async def call() -> None:
        res = await host.registry.execute(echo("x"))
        assert res.result.is_error is False

    assert await garbage_of(call) == 0


@pytest.mark.usefixtures("collector_off")
async def test_a_waterfall_leaves_no_cycle() -> None:
    async def link(next: Next[str]) -> str:
        return await next()

    async def run() -> None:
        assert (
            await run_waterfall("test/cycles", (link, link, link), (), lambda: "end", str) == "end"
        )

    assert await garbage_of(run) == 0
