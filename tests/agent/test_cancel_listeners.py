"""``cancel(when="now")`` reaches listeners: a running seam listener is cancelled with the turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import (
    CWD_CHANGED,
    MESSAGE_DISPLAY,
    POST_TOOL_BATCH,
    PROMPT_SUBMIT,
    SESSION_START,
    TURN_CONTINUATION,
    TURN_STOP,
    Agent,
)
from dsh.context import Context
from dsh.session import AbortCause, ToolResultEvent, TurnEnd, TurnEndReason
from dsh.tools import (
    POST_EXECUTE,
    PRE_EXECUTE,
    REWRITE_INPUT,
    PreToolDecision,
    ProposedCall,
    ToolCall,
)
from tests.agent.support import bash, make_harness, of_type, replies, text, types

ABORTED = TurnEndReason("aborted")
CAUSE = AbortCause(kind="user", reason="CANCEL-NOW")


class Stuck:
    """A listener body that never finishes on its own; notes that it started and was cancelled."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.cancelled = False

    async def hang(self) -> Any:
        self.entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise


def _waterfall(stuck: Stuck) -> Callable[..., Any]:
    async def listener(*args: Any) -> Any:
        return await stuck.hang()

    return listener


SEAMS: dict[str, tuple[Any, dict[str, Any]]] = {
    "prompt-submit": (PROMPT_SUBMIT, replies([text("never")])),
    "message-display": (MESSAGE_DISPLAY, replies([text("shown?")])),
    "cwd-changed": (CWD_CHANGED, replies([bash("mkdir -p d && cd d")], [text("never")])),
    "post-tool-batch": (POST_TOOL_BATCH, replies([bash("echo hi")], [text("never")])),
    "turn-stop": (TURN_STOP, replies([bash("echo hi")], [text("never")])),
    "turn-continuation": (TURN_CONTINUATION, replies([text("done")])),
}


@pytest.mark.parametrize("seam", list(SEAMS))
async def test_a_stuck_listener_is_cancelled_and_the_turn_ends_aborted(
    tmp_path: Path, seam: str
) -> None:
    channel, script = SEAMS[seam]
    h = make_harness(tmp_path, script)
    stuck = Stuck()
    h.ctx.on(channel, _waterfall(stuck))
    agent = h.agent()
    agent.send("go")
    task = asyncio.ensure_future(agent.run_turn())
    await stuck.entered.wait()
    assert agent.signal is not None
    assert not agent.signal.aborted
    agent.cancel(CAUSE, when="now")
    result = await task
    assert stuck.cancelled
    assert (result.end_reason, result.cause) == (ABORTED, CAUSE)
    # The log is whole: every call answered, the turn ended, nothing after it.
    calls = [e for e in agent.events if e.type == "tool/call"]
    assert len(of_type(agent.events, ToolResultEvent)) == len(calls)
    assert types(agent.events)[-1] == "turn/end"
    assert of_type(agent.events, TurnEnd)[-1].cause == CAUSE
    assert agent.signal is None  # between turns


async def test_a_tool_listener_can_wait_on_the_turns_signal(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("echo never-runs")], [text("never")]))
    waiting = asyncio.Event()

    async def pre(call: ToolCall, nxt: Any) -> PreToolDecision:
        assert isinstance(call.agent, Agent)
        signal = call.agent.signal
        assert signal is not None
        waiting.set()
        await signal.wait()
        return PreToolDecision.allow()

    h.ctx.on(PRE_EXECUTE, pre)
    agent = h.agent()
    agent.send("go")
    task = asyncio.ensure_future(agent.run_turn())
    await waiting.wait()
    agent.cancel(CAUSE, when="now")
    result = await task
    assert (result.end_reason, result.cause) == (ABORTED, CAUSE)
    (res,) = of_type(agent.events, ToolResultEvent)
    assert res.code == "ABORTED_BEFORE_DISPATCH"
    assert not (h.project / "never-runs").exists()


async def test_listeners_outside_a_turn_are_not_raced(tmp_path: Path) -> None:
    """Between turns there is no signal, and a seam's listeners run plainly to the end."""
    h = make_harness(tmp_path, replies([text("one")]))
    ctx: Context = h.ctx
    finished: list[str] = []

    async def start(agent: Agent, source: str) -> None:
        assert agent.signal is None
        await asyncio.sleep(0)
        finished.append(source)

    ctx.on(SESSION_START, start)
    agent = h.agent()
    await agent.start()
    assert finished == ["startup"]


def _stuck_rewriter(stuck: Stuck) -> Callable[..., Any]:
    async def rewriter(proposed: ProposedCall) -> Any:
        return await stuck.hang()

    return rewriter


TOOL_SEAMS: dict[str, tuple[Any, str | None]] = {
    "rewrite-input": (REWRITE_INPUT, "ABORTED_BEFORE_DISPATCH"),
    "pre-execute": (PRE_EXECUTE, "ABORTED_BEFORE_DISPATCH"),
    "post-execute": (POST_EXECUTE, None),
}


@pytest.mark.parametrize("seam", list(TOOL_SEAMS))
async def test_a_stuck_native_tool_listener_is_cancelled_with_the_turn(
    tmp_path: Path, seam: str
) -> None:
    # The registry races its own listener chains against the turn's signal, so a
    # native policy that never answers cannot hold a cancelled turn.
    channel, code = TOOL_SEAMS[seam]
    h = make_harness(tmp_path, replies([bash("echo ran > ran.txt")], [text("never")]))
    stuck = Stuck()
    if channel is REWRITE_INPUT:
        h.ctx.on(REWRITE_INPUT, _stuck_rewriter(stuck))
    else:
        h.ctx.on(channel, _waterfall(stuck))
    agent = h.agent()
    agent.send("go")
    task = asyncio.ensure_future(agent.run_turn())
    await stuck.entered.wait()
    agent.cancel(CAUSE, when="now")
    result = await asyncio.wait_for(task, 10)
    assert (result.end_reason, result.cause) == (ABORTED, CAUSE)
    assert stuck.cancelled
    (res,) = of_type(agent.events, ToolResultEvent)
    assert res.code == code
    # Cancelled before dispatch the body never ran; cancelled in post-execute it had.
    assert (h.project / "ran.txt").exists() == (code is None)
    assert len(of_type(agent.events, TurnEnd)) == 1
