"""Property: whatever the model asks and the plugins decide, the log keeps the loop's shape.

Every tool call the model asked for has exactly one result, in call order,
right after its step's calls; a step's context and steering never land
between its results; the turn is enclosed by one start and one end; and the
end reason is the one the loop rules give.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from dsh.agent import POST_TOOL_BATCH, Agent, PostToolBatchDecision
from dsh.context import Context, Next
from dsh.messages import AssistantMessage, ToolResultMessage
from dsh.models import ScriptedModel
from dsh.session import (
    AbortCause,
    AssistantMessageEvent,
    JsonlSessionStore,
    SessionEvent,
    ToolResultEvent,
    TurnEndReason,
    project,
)
from dsh.tools import (
    POST_EXECUTE,
    TOOLS,
    PostToolDecision,
    ToolCall,
    ToolDefinition,
    ToolExecutionResult,
    ToolInvocation,
    ToolRegistry,
    ToolResult,
    Workspace,
)


class _Input(BaseModel):
    text: str


async def _echo(inv: ToolInvocation) -> ToolResult:
    await asyncio.sleep(0)
    return ToolResult.ok(str(inv.arguments["text"]))


ECHO = ToolDefinition.from_model(
    "Echo", "echo", _Input, _echo, read_only=True, concurrency_safe=True
)
NOTE = ToolDefinition.from_model("Note", "note", _Input, _echo)


@dataclass(frozen=True)
class Call:
    tool: str  # Echo, Note, or Missing (an unknown tool)
    context: bool  # post-execute adds context
    steer: bool  # a listener steers while it runs
    halt: bool  # a listener cancels after the step


calls = st.builds(
    Call,
    tool=st.sampled_from(["Echo", "Echo", "Note", "Missing"]),
    context=st.booleans(),
    steer=st.booleans(),
    halt=st.sampled_from([False, False, False, True]),
)
steps = st.lists(st.lists(calls, min_size=1, max_size=4), min_size=0, max_size=4)


def _script(plan: list[list[Call]]) -> dict[str, Any]:
    responses: list[list[dict[str, Any]]] = []
    for i, step in enumerate(plan):
        responses.append(
            [
                {"type": "tool_use", "name": c.tool, "input": {"text": f"s{i}c{j}"}}
                for j, c in enumerate(step)
            ]
        )
    responses.append([{"type": "text", "text": "end"}])
    return {"responses": responses}


def _expected(plan: list[list[Call]], stop_at: int | None) -> tuple[TurnEndReason, int]:
    for i, step in enumerate(plan):
        if any(c.halt for c in step):
            return TurnEndReason("aborted"), i + 1
        if stop_at == i:
            return TurnEndReason("stopped"), i + 1
    return TurnEndReason("completed"), len(plan) + 1


def _check_shape(events: tuple[SessionEvent, ...]) -> None:
    kinds = [e.type for e in events]
    assert kinds[0] == "turn/start"
    assert kinds[-1] == "turn/end"
    assert kinds.count("turn/start") == kinds.count("turn/end") == 1
    for i, e in enumerate(events):
        if not isinstance(e, AssistantMessageEvent) or not e.tool_calls:
            continue
        j = i + 1
        segment: list[SessionEvent] = []
        while j < len(events) and events[j].type not in ("assistant/message", "turn/end"):
            segment.append(events[j])
            j += 1
        results = [s for s in segment if isinstance(s, ToolResultEvent)]
        assert [r.tool_use_id for r in results] == [c.id for c in e.tool_calls]
        last_result = max(k for k, s in enumerate(segment) if isinstance(s, ToolResultEvent))
        first_model_visible = min(
            (k for k, s in enumerate(segment) if s.type in ("context/message", "steering/message")),
            default=len(segment),
        )
        assert first_model_visible > last_result
    messages = project(events)
    for i, m in enumerate(messages):
        if isinstance(m, AssistantMessage) and m.tool_calls:
            after = messages[i + 1 : i + 1 + len(m.tool_calls)]
            assert all(isinstance(r, ToolResultMessage) for r in after)
            assert [r.tool_use_id for r in after if isinstance(r, ToolResultMessage)] == [
                c.id for c in m.tool_calls
            ]


async def _run(plan: list[list[Call]], stop_at: int | None, root: Path) -> None:
    ctx = Context()
    registry = ToolRegistry(ctx)
    ctx.provide(TOOLS, registry)
    registry.register(ECHO)
    registry.register(NOTE)
    by_text = {f"s{i}c{j}": c for i, step in enumerate(plan) for j, c in enumerate(step)}
    batches = 0

    async def post(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        c = by_text[str(call.arguments["text"])]
        assert isinstance(call.agent, Agent)
        if c.steer:
            call.agent.steer(f"steer {call.arguments['text']}")
        if c.halt:
            call.agent.cancel(AbortCause(kind="hook", reason="halt"), when="after_step")
        if c.context:
            return PostToolDecision.accept(additional_context=f"ctx {call.arguments['text']}")
        return await next()

    async def batch(
        agent: Agent, results: tuple[ToolExecutionResult, ...], next: Next[PostToolBatchDecision]
    ) -> PostToolBatchDecision:
        nonlocal batches
        batches += 1
        if stop_at is not None and batches == stop_at + 1:
            return PostToolBatchDecision.stop("stop here")
        return await next()

    ctx.on(POST_EXECUTE, post)
    ctx.on(POST_TOOL_BATCH, batch)
    store = JsonlSessionStore(root)
    agent = Agent(
        ctx,
        model=ScriptedModel(_script(plan)),
        session=store.create(),
        registry=registry,
        workspace=Workspace(cwd=root),
    )
    agent.send("go")
    result = await agent.run_turn()
    events = store.load(agent.session_id)
    _check_shape(events)
    assert (result.end_reason, result.steps) == _expected(plan, stop_at)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=steps, stop_at=st.none() | st.integers(min_value=0, max_value=3))
def test_the_log_keeps_the_loops_shape(plan: list[list[Call]], stop_at: int | None) -> None:
    with tempfile.TemporaryDirectory() as root:
        asyncio.run(_run(plan, stop_at, Path(root)))
