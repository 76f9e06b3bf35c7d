"""Property: what a decision did can be read back from the session log, and it is the same decision.

For each of the agent's decisions, a listener returns one built by a named
constructor; the real loop runs a turn (a scripted model, a real JSONL store
in a temporary directory), and the decision rebuilt from the events read back
from disk equals the one returned: a block's reason from ``prompt/blocked``,
an allow's rewrite and context from ``user/message`` and ``context/message``,
a stop's reason from the ``turn/end`` cause, a continuation's reason from
``steering/message``, a replacement from ``assistant/display``, a veto from
its ``notice``.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from dsh.agent import (
    MESSAGE_DISPLAY,
    POST_TOOL_BATCH,
    PRE_COMPACT,
    PROMPT_SUBMIT,
    TURN_CONTINUATION,
    TURN_STOP,
    Agent,
    CompactRequest,
    ContinuationDecision,
    ContinuationState,
    DisplayDecision,
    DisplayRequest,
    PostToolBatchDecision,
    PreCompactDecision,
    PromptDecision,
    PromptSource,
    TurnStop,
)
from dsh.context import Context, Next
from dsh.messages import Content, TextBlock
from dsh.session import (
    AssistantDisplayEvent,
    AssistantMessageEvent,
    CompactionStart,
    ContextMessageEvent,
    NoticeEvent,
    PromptBlockedEvent,
    SessionEvent,
    SteeringMessageEvent,
    TurnEnd,
    TurnEndReason,
    UserMessageEvent,
)
from dsh.tools import ToolDefinition, ToolExecutionResult, ToolInvocation, ToolResult
from tests.agent.support import make_harness, of_type, replies, text, tool

PROMPT = "the prompt"
MESSAGE = "the message"
_VETOED = "Compaction blocked by PreCompact hook: "


class _Input(BaseModel):
    text: str


async def _echo(inv: ToolInvocation) -> ToolResult:
    return ToolResult.ok(str(inv.arguments["text"]))


ECHO = ToolDefinition.from_model("Echo", "echo", _Input, _echo, read_only=True)

texts = st.text(st.characters(codec="utf-8"), max_size=40)
reasons = texts.filter(lambda t: bool(t.strip()))
contexts = st.none() | texts


@st.composite
def prompt_decisions(draw: st.DrawFn) -> PromptDecision:
    if draw(st.booleans()):
        return PromptDecision.block(draw(reasons))
    blocks = st.lists(texts, min_size=1, max_size=3).map(lambda ts: tuple(map(TextBlock, ts)))
    content: Content | None = draw(st.none() | texts.filter(lambda t: t != PROMPT) | blocks)
    decision = PromptDecision.allow(content, draw(contexts))
    if decision.additional_context is None:
        return decision  # a source names who added the context: alone it is not recorded
    source = draw(st.none() | reasons.filter(lambda s: s != "agent/prompt-submit"))
    return PromptDecision.allow(content, decision.additional_context, source=source)


@st.composite
def batch_decisions(draw: st.DrawFn) -> PostToolBatchDecision:
    if draw(st.booleans()):
        return PostToolBatchDecision.stop(draw(reasons))
    decision = PostToolBatchDecision.proceed(draw(contexts))
    if decision.additional_context is None:
        return decision
    source = draw(st.none() | reasons.filter(lambda s: s != "agent/post-tool-batch"))
    return PostToolBatchDecision.proceed(decision.additional_context, source=source)


continuation_decisions = st.just(ContinuationDecision.stop()) | st.builds(
    ContinuationDecision.continue_, contexts
)
display_decisions = st.just(DisplayDecision.show()) | st.builds(
    DisplayDecision.replace, texts.filter(lambda t: t != MESSAGE)
)
compact_decisions = st.just(PreCompactDecision.proceed()) | st.builds(
    PreCompactDecision.veto, reasons
)
turn_stops = st.builds(TurnStop, reasons)


def _ended_stopped(events: tuple[SessionEvent, ...]) -> str | None:
    """The hook cause's reason of a turn that ended ``stopped``."""
    (end,) = of_type(events, TurnEnd)
    if end.reason != TurnEndReason("stopped"):
        return None
    assert end.cause is not None
    assert end.cause.kind == "hook"
    reason: str = end.cause.reason
    return reason


def _context(events: tuple[SessionEvent, ...], default: str) -> tuple[str | None, str | None]:
    """The one ``context/message``'s text and its source (``None`` when the loop's default)."""
    found = of_type(events, ContextMessageEvent)
    if not found:
        return None, None
    (event,) = found
    return event.text, None if event.source == default else event.source


def recorded_prompt(events: tuple[SessionEvent, ...]) -> PromptDecision:
    blocked = of_type(events, PromptBlockedEvent)
    if blocked:
        return PromptDecision.block(blocked[0].reason)
    (user,) = of_type(events, UserMessageEvent)
    extra, source = _context(events, "agent/prompt-submit")
    content = None if user.content == PROMPT else user.content
    return PromptDecision.allow(content, extra, source=source)


def recorded_batch(events: tuple[SessionEvent, ...]) -> PostToolBatchDecision:
    stopped = _ended_stopped(events)
    if stopped is not None:
        return PostToolBatchDecision.stop(stopped)
    extra, source = _context(events, "agent/post-tool-batch")
    return PostToolBatchDecision.proceed(extra, source=source)


def recorded_continuation(events: tuple[SessionEvent, ...]) -> ContinuationDecision:
    steering = [e for e in of_type(events, SteeringMessageEvent) if e.source == "continuation"]
    if steering:
        return ContinuationDecision.continue_(steering[0].text)
    steps = len(of_type(events, AssistantMessageEvent))
    return ContinuationDecision.continue_() if steps > 1 else ContinuationDecision.stop()


def recorded_display(events: tuple[SessionEvent, ...]) -> DisplayDecision:
    shown = of_type(events, AssistantDisplayEvent)
    return DisplayDecision.replace(shown[0].text) if shown else DisplayDecision.show()


def recorded_compact(events: tuple[SessionEvent, ...]) -> PreCompactDecision:
    if of_type(events, CompactionStart):
        return PreCompactDecision.proceed()
    (veto,) = [e for e in of_type(events, NoticeEvent) if e.source == "agent/pre-compact"]
    assert veto.text.startswith(_VETOED)
    return PreCompactDecision.veto(veto.text.removeprefix(_VETOED))


def recorded_turn_stop(events: tuple[SessionEvent, ...]) -> TurnStop:
    stopped = _ended_stopped(events)
    assert stopped is not None
    return TurnStop(stopped)


def _listen(ctx: Context, family: str, decision: Any) -> None:
    """Subscribe a listener that answers ``decision`` once (later calls pass through)."""
    answered = False

    def once() -> bool:
        nonlocal answered
        first, answered = not answered, True
        return first

    async def prompt(
        agent: Agent, content: Content, source: PromptSource, next: Next[PromptDecision]
    ) -> PromptDecision:
        return decision if once() else await next()

    async def batch(
        agent: Agent, results: tuple[ToolExecutionResult, ...], next: Next[PostToolBatchDecision]
    ) -> PostToolBatchDecision:
        return decision if once() else await next()

    async def continuation(
        agent: Agent, state: ContinuationState, next: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        return decision if once() else await next()

    async def display(
        agent: Agent, request: DisplayRequest, next: Next[DisplayDecision]
    ) -> DisplayDecision:
        return decision if once() else await next()

    async def compact(
        agent: Agent, request: CompactRequest, next: Next[PreCompactDecision]
    ) -> PreCompactDecision:
        return decision if once() else await next()

    async def turn_stop(agent: Agent, step: int) -> TurnStop | None:
        return decision if once() else None

    if family == "prompt":
        ctx.on(PROMPT_SUBMIT, prompt)
    elif family == "batch":
        ctx.on(POST_TOOL_BATCH, batch)
    elif family == "continuation":
        ctx.on(TURN_CONTINUATION, continuation)
    elif family == "display":
        ctx.on(MESSAGE_DISPLAY, display)
    elif family == "compact":
        ctx.on(PRE_COMPACT, compact)
    else:
        ctx.on(TURN_STOP, turn_stop)


async def _run(family: str, decision: Any, root: Path) -> tuple[SessionEvent, ...]:
    first = [tool("Echo", text="hi")] if family in ("batch", "turn_stop") else [text(MESSAGE)]
    script = replies(
        first,
        [text("second")],
        [text("third")],
        rules=[{"no_tools": True, "responses": [[text("SUMMARY")]]}],
    )
    h = make_harness(root, script)
    h.registry.register(ECHO)
    _listen(h.ctx, family, decision)
    agent = h.agent()
    agent.send(PROMPT)
    await agent.run_turn()
    if family == "compact":
        await agent.compact()
    return h.store.load(agent.session_id)


Recorded = Callable[[tuple[SessionEvent, ...]], object]
FAMILIES: dict[str, tuple[st.SearchStrategy[Any], Recorded]] = {
    "prompt": (prompt_decisions(), recorded_prompt),
    "batch": (batch_decisions(), recorded_batch),
    "continuation": (continuation_decisions, recorded_continuation),
    "display": (display_decisions, recorded_display),
    "compact": (compact_decisions, recorded_compact),
    "turn_stop": (turn_stops, recorded_turn_stop),
}


async def _check(family: str, decision: object) -> None:
    with tempfile.TemporaryDirectory() as root:
        events = await _run(family, decision, Path(root))
    assert FAMILIES[family][1](events) == decision


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_decision_round_trips_through_the_log_that_records_it(
    family: str, data: st.DataObject
) -> None:
    decision = data.draw(FAMILIES[family][0], label="decision")
    asyncio.run(_check(family, decision))
