"""Session start sources, session end, cancellation, and the log staying loadable."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psutil
import pytest

from dsh.agent import (
    POST_TOOL_BATCH,
    SESSION_END,
    SESSION_START,
    TURN_CONTINUATION,
    Agent,
    ContinuationDecision,
    ContinuationState,
    PostToolBatchDecision,
    SessionEndReason,
    SessionStartSource,
)
from dsh.context import Next
from dsh.session import (
    AbortCause,
    AssistantMessageEvent,
    SessionEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEnd,
    TurnEndReason,
    TurnStart,
    UserMessageEvent,
)
from dsh.tools import POST_EXECUTE, PostToolDecision, ToolCall, ToolExecutionResult, ToolResult
from tests.agent.support import (
    bash,
    make_harness,
    of_type,
    replies,
    text,
    types,
    wait_for_file,
    wait_until_gone,
)
from tests.nspids import SHELL_BG_PID, outer_pid


async def test_a_new_session_starts_with_startup(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("hi")]))
    seen: list[tuple[SessionStartSource, str | None]] = []

    async def record(agent: Agent, source: SessionStartSource) -> None:
        seen.append((source, agent.forked_from))

    h.ctx.on(SESSION_START, record)
    agent = h.agent()
    agent.send("hello")
    await agent.run_turn()
    assert seen == [("startup", None)]


async def test_a_reloaded_session_starts_with_resume_and_keeps_its_history(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([text("first answer")], [text("second answer")]))
    first = h.agent()
    first.send("one")
    await first.run_turn()
    await first.close("other")
    session_id = first.session_id
    first.session.close()

    seen: list[SessionStartSource] = []

    async def record(agent: Agent, source: SessionStartSource) -> None:
        seen.append(source)

    h.ctx.on(SESSION_START, record)
    resumed = h.agent(h.store.open(session_id))
    resumed.send("two")
    result = await resumed.run_turn()
    assert seen == ["resume"]
    assert result.final_text == "second answer"
    model_saw = h.requests()[-1]["messages"]
    assert [m.get("content", m.get("text")) for m in model_saw] == [
        "one",
        "first answer",
        "two",
    ]


async def test_a_fork_starts_with_startup_and_names_its_origin(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("a")], [text("b")]))
    original = h.agent()
    original.send("one")
    await original.run_turn()
    original.session.close()

    seen: list[tuple[SessionStartSource, str | None]] = []

    async def record(agent: Agent, source: SessionStartSource) -> None:
        seen.append((source, agent.forked_from))

    h.ctx.on(SESSION_START, record)
    fork = h.agent(h.store.fork(original.session_id))
    fork.send("two")
    await fork.run_turn()
    assert seen == [("startup", original.session_id)]
    assert fork.session_id != original.session_id


async def test_close_fires_session_end_once_with_its_reason(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("a")]))
    ends: list[SessionEndReason] = []

    async def record(agent: Agent, reason: SessionEndReason) -> None:
        ends.append(reason)

    h.ctx.on(SESSION_END, record)
    agent = h.agent()
    agent.send("x")
    await agent.run_turn()
    await agent.close("prompt_input_exit")
    await agent.close("other")
    assert ends == ["prompt_input_exit"]
    assert agent.closed
    with pytest.raises(RuntimeError, match="closed"):
        await agent.run_turn()


async def test_cancel_now_aborts_the_running_tool_and_ends_the_turn_aborted(
    tmp_path: Path,
) -> None:
    h = make_harness(
        tmp_path,
        replies(
            [bash(f"sleep 30 & echo {SHELL_BG_PID} > sleep.pid; wait"), bash("echo never")],
            [text("no")],
        ),
    )
    agent = h.agent()
    agent.send("sleep")
    task = asyncio.create_task(agent.run_turn())
    pid = outer_pid(await wait_for_file(h.project / "sleep.pid"))
    assert pid is not None
    assert psutil.pid_exists(pid)
    cause = AbortCause(kind="user", reason="CANCEL-NOW")
    agent.cancel(cause)
    result = await task
    assert result.end_reason == TurnEndReason("aborted")
    assert result.cause == cause
    await wait_until_gone(pid)
    results = of_type(agent.events, ToolResultEvent)
    assert [r.code for r in results] == ["ABORTED", "ABORTED_BEFORE_DISPATCH"]
    assert all(r.is_error for r in results)
    assert len(h.requests()) == 1
    # The log on disk is whole: every call has its result, the turn its end.
    loaded = h.store.load(agent.session_id)
    assert types(loaded)[-1] == "turn/end"
    assert len(of_type(loaded, ToolCallEvent)) == len(of_type(loaded, ToolResultEvent)) == 2


async def test_cancel_after_step_lets_the_calls_finish_and_skips_what_follows(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([bash("echo one"), bash("echo two")], [text("never")]))
    batches: list[int] = []
    continuations: list[int] = []

    async def halt_after_first(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        assert isinstance(call.agent, Agent)
        if call.arguments["command"] == "echo one":
            call.agent.cancel(AbortCause(kind="hook", reason="HALT"), when="after_step")
        return await next()

    async def batch(
        agent: Agent, results: tuple[ToolExecutionResult, ...], next: Next[PostToolBatchDecision]
    ) -> PostToolBatchDecision:
        batches.append(len(results))
        return await next()

    async def cont(
        agent: Agent, state: ContinuationState, next: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        continuations.append(state.step)
        return await next()

    h.ctx.on(POST_EXECUTE, halt_after_first)
    h.ctx.on(POST_TOOL_BATCH, batch)
    h.ctx.on(TURN_CONTINUATION, cont)
    agent = h.agent()
    agent.send("go")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("aborted")
    assert result.cause == AbortCause(kind="hook", reason="HALT")
    results = of_type(agent.events, ToolResultEvent)
    assert [(str(r.content).strip(), r.is_error) for r in results] == [
        ("one", False),
        ("two", False),
    ]
    assert batches == []
    assert continuations == []
    assert len(h.requests()) == 1


async def test_cancel_after_step_on_a_reply_without_tools_skips_continuation(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([text("answer")]))
    continuations: list[int] = []

    async def cont(
        agent: Agent, state: ContinuationState, next: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        continuations.append(state.step)
        return ContinuationDecision.continue_("never")

    h.ctx.on(TURN_CONTINUATION, cont)
    holder: list[Agent] = []

    def on_event(event: SessionEvent) -> None:
        if isinstance(event, AssistantMessageEvent):
            holder[0].cancel(AbortCause(kind="hook", reason="HALT"), when="after_step")

    agent = h.agent(on_event=on_event)
    holder.append(agent)
    agent.send("go")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("aborted")
    assert (result.steps, result.final_text) == (1, "answer")
    assert result.cause == AbortCause(kind="hook", reason="HALT")
    assert continuations == []


async def test_cancel_between_turns_aborts_the_next_turn_before_its_first_model_call(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([text("never")]))
    agent = h.agent()
    agent.send("go")
    agent.cancel("not now")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("aborted")
    assert result.cause == AbortCause(kind="user", reason="not now")
    assert result.steps == 0
    assert h.requests() == []
    assert types(agent.events) == ["turn/start", "user/message", "turn/end"]
    # The cancel was spent: the next turn runs.
    agent.send("now")
    assert (await agent.run_turn()).end_reason == TurnEndReason("completed")


async def test_a_cancelled_run_turn_task_still_closes_the_turn(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("sleep 30 & echo $! > s.pid; wait")], [text("no")]))
    agent = h.agent()
    agent.send("sleep")
    task = asyncio.create_task(agent.run_turn())
    await wait_for_file(h.project / "s.pid")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    loaded = h.store.load(agent.session_id)
    end = loaded[-1]
    assert isinstance(end, TurnEnd)
    assert end.reason == TurnEndReason("aborted")
    assert len(of_type(loaded, ToolResultEvent)) == 1
    assert not agent.running


async def test_a_log_left_mid_turn_is_closed_when_the_session_resumes(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("after the crash")]))
    crashed = h.store.create()
    turn_id = "t-crashed"
    events: list[SessionEvent] = [
        TurnStart(turn_id=turn_id),
        UserMessageEvent(turn_id=turn_id, content="before"),
    ]
    for ev in events:
        crashed.append(ev)
    crashed.close()
    agent = h.agent(h.store.open(crashed.id))
    assert agent.start_source == "resume"
    agent.send("again")
    result = await agent.run_turn()
    assert result.final_text == "after the crash"
    ends = of_type(agent.events, TurnEnd)
    assert next((e.turn_id, e.reason) for e in ends) == (turn_id, TurnEndReason("aborted"))
    assert len(ends) == 2
