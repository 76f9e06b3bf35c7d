"""Cancellation: aborted before dispatch, during dispatch, and the caller's own cancellation."""

from __future__ import annotations

import asyncio

import pytest

from dsh.base import AbortSignal
from dsh.context import Next
from dsh.tools import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    ExecuteNext,
    PostToolDecision,
    PreToolDecision,
    ToolCall,
    ToolDefinition,
    ToolExecution,
    ToolInvocation,
    ToolRequest,
    ToolResult,
)
from tests.tools.support import Host, echo

SLEEPY = ToolRequest("Sleepy", {})


async def test_a_signal_aborted_before_the_call_skips_everything_but_post_and_result() -> None:
    host = Host()
    phases: list[str] = []

    @host.ctx.on(PRE_EXECUTE)
    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        phases.append("pre")
        return await next()

    @host.ctx.on(POST_EXECUTE)
    async def post(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        phases.append(f"post:{result.code}")
        return await next()

    signal = AbortSignal()
    signal.abort("user pressed Esc")
    res = await host.registry.execute(echo(), signal=signal)
    assert res.result.code == "ABORTED_BEFORE_DISPATCH"
    assert res.result.content == "user pressed Esc"
    assert not res.dispatched
    assert phases == ["post:ABORTED_BEFORE_DISPATCH"]


async def test_an_abort_during_pre_execute_stops_before_dispatch() -> None:
    host = Host()
    signal = AbortSignal()

    @host.ctx.on(PRE_EXECUTE)
    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        signal.abort("cancelled while deciding")
        return await next()

    res = await host.registry.execute(echo(), signal=signal)
    assert res.result.code == "ABORTED_BEFORE_DISPATCH"
    assert host.ledger.invocations == []


async def test_a_wrapper_passing_an_aborted_signal_stops_dispatch() -> None:
    host = Host()

    @host.ctx.on(EXECUTE)
    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        dead = AbortSignal()
        dead.abort("wrapper gave up")
        return await next(signal=dead)

    res = await host.registry.execute(echo())
    assert res.result.code == "ABORTED_BEFORE_DISPATCH"
    assert res.result.content == "wrapper gave up"
    assert not res.dispatched


async def test_an_abort_while_the_body_runs_cancels_it_and_is_aborted() -> None:
    host = Host()
    signal = AbortSignal()

    async def abort_when_running() -> None:
        await host.gate.wait()
        signal.abort("user interrupted")

    async with asyncio.TaskGroup() as tg:
        tg.create_task(abort_when_running())
        task = tg.create_task(host.registry.execute(SLEEPY, signal=signal))
    res = task.result()
    assert res.result.code == "ABORTED"
    assert res.result.content == "user interrupted"
    assert res.dispatched
    assert host.ledger.cancelled == ["Sleepy"]
    assert host.ledger.finished == []


async def test_a_timeout_wrapper_aborts_a_slow_body() -> None:
    host = Host()

    @host.ctx.on(EXECUTE)
    async def timeout(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        return await next(signal=AbortSignal.any([ex.signal, AbortSignal.timeout(0.01)]))

    res = await host.registry.execute(SLEEPY, signal=AbortSignal())
    assert res.result.code == "ABORTED"
    assert res.result.content == "timed out after 0.01s"
    assert host.ledger.cancelled == ["Sleepy"]


async def test_a_body_that_honors_the_signal_and_returns_is_still_aborted() -> None:
    host = Host()
    signal = AbortSignal()
    waiting = asyncio.Event()

    async def polite(inv: ToolInvocation) -> ToolResult:
        assert inv.signal is not None
        waiting.set()
        try:
            await inv.signal.wait()
        except asyncio.CancelledError:
            return ToolResult.ok("partial", output={"interrupted": True})
        return ToolResult.ok("done")

    host.registry.register(ToolDefinition("Polite", "", {"type": "object"}, polite))
    task = asyncio.create_task(host.registry.execute(ToolRequest("Polite", {}), signal=signal))
    await waiting.wait()
    signal.abort("stop")
    res = await task
    assert res.result.code == "ABORTED"
    assert res.result.content == "stop"
    assert res.result.output == {"interrupted": True}


async def test_a_body_raising_aborted_error_is_aborted() -> None:
    host = Host()

    async def checks(inv: ToolInvocation) -> ToolResult:
        signal = AbortSignal()
        signal.abort("own check")
        signal.raise_if_aborted()
        return ToolResult.ok("unreachable")

    host.registry.register(ToolDefinition("Checks", "", {"type": "object"}, checks))
    res = await host.registry.execute(ToolRequest("Checks", {}))
    assert res.result.code == "ABORTED"
    assert res.result.content == "own check"


async def test_the_callers_own_cancellation_propagates() -> None:
    host = Host()
    task = asyncio.create_task(host.registry.execute(SLEEPY, signal=AbortSignal()))
    await host.gate.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert host.ledger.cancelled == ["Sleepy"]


async def test_the_callers_cancellation_propagates_without_a_signal() -> None:
    host = Host()
    task = asyncio.create_task(host.registry.execute(SLEEPY))
    await host.gate.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_body_cancelling_itself_is_a_tool_error() -> None:
    host = Host()

    async def quits(inv: ToolInvocation) -> ToolResult:
        raise asyncio.CancelledError

    host.registry.register(ToolDefinition("Quits", "", {"type": "object"}, quits))
    for signal in (None, AbortSignal()):
        res = await host.registry.execute(ToolRequest("Quits", {}), signal=signal)
        assert res.result.code == "TOOL_ERROR"
        assert "was cancelled" in res.result.text
