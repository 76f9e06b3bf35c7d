"""The turn's body: its queued prompts through ``agent/prompt-submit``, then steps until
something ends it, and its end (``agent/turn-error``, the log closed, the ``TurnResult``).

A step: turn-stop (after the first), steering and context, compaction if over
budget, the model call, ``agent/message-display`` for a root agent's text;
then either the step's tool calls and ``agent/post-tool-batch``, or
``agent/turn-continuation`` for a reply without tool calls. Everything that
ends the turn raises ``EndTurn``.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from dsh.agent._channels import (
    MESSAGE_DISPLAY,
    POST_TOOL_BATCH,
    PROMPT_SUBMIT,
    TURN_CONTINUATION,
    TURN_ERROR,
    TURN_STOP,
)
from dsh.agent._core import AgentCore
from dsh.agent._decisions import (
    ContinuationContinue,
    ContinuationDecision,
    ContinuationState,
    DisplayReplace,
    DisplayRequest,
    PostToolBatchProceed,
    PostToolBatchStop,
    PromptAllow,
    PromptBlock,
)
from dsh.agent._model_calls import model_request, observed_call
from dsh.agent._turn import (
    COMPLETED,
    DEFERRED_END,
    MAX_STEPS,
    REJECTED,
    STOPPED,
    EndTurn,
    TurnResult,
    TurnState,
    error_text,
)
from dsh.base import FrozenDict
from dsh.messages import AssistantMessage, ToolUse
from dsh.session import (
    AbortCause,
    AssistantDisplayEvent,
    AssistantMessageEvent,
    ContextMessageEvent,
    PromptBlockedEvent,
    SessionEvent,
    TurnEndReason,
    UserMessageEvent,
)
from dsh.tools._failures import DEFERRED
from dsh.tools._seal import MAX_ARGUMENT_CHARS, arguments_size

__all__ = ["compact_if_over_budget", "drain_prompts", "end_turn", "run_steps"]

logger = logging.getLogger("dsh.agent")


async def compact_if_over_budget(core: AgentCore) -> None:
    """Compact (``_compaction``) when the history is over the options' budget."""
    options = core.agent.options
    budget, limit = options.compact_budget, options.compact_tokens
    used = core.projector.usage
    over = limit is not None and used is not None and used.context_tokens >= limit
    if over or (budget is not None and core.history_size.chars(core.projection()) > budget):
        from dsh.agent._compaction import compact  # over: a run that never is never imports it

        await compact(core, "auto", None)
        core.check_cancel()


async def drain_prompts(core: AgentCore) -> None:
    """Each queued prompt through ``agent/prompt-submit``; a turn whose every prompt was
    blocked ends ``rejected``."""
    drained = 0
    allowed = 0
    while core.queue:
        content, source = core.queue.popleft()
        drained += 1
        decision = await core.guarded(
            PROMPT_SUBMIT, core.ctx.waterfall(PROMPT_SUBMIT, core.agent, content, source)
        )
        match decision:
            case PromptBlock(reason=reason, source=by):
                core.append(PromptBlockedEvent(prompt=content, reason=reason, source=source, by=by))
                core.notice(reason, source="agent/prompt-submit", level="warning")
            case PromptAllow(content=rewritten, additional_context=extra, source=by):
                allowed += 1
                final = rewritten if rewritten is not None else content
                core.append(UserMessageEvent(content=final, source=source))
                if extra:
                    core.append(ContextMessageEvent(source=by or "agent/prompt-submit", text=extra))
    if drained and not allowed:
        raise EndTurn(REJECTED)
    core.flush_context()


async def run_steps(core: AgentCore, turn: TurnState) -> NoReturn:
    """Step until something ends the turn (always by raising ``EndTurn``)."""
    streak = 0
    step = 0
    while True:
        step += 1
        await _before_model_call(core, step)
        reply = await _model_step(core, turn)
        if reply.tool_calls:
            await _tool_step(core, turn, reply.tool_calls)
            streak = 0
            continue
        streak = await _continuation(core, step, streak, reply.text)


async def _before_model_call(core: AgentCore, step: int) -> None:
    """The step limit, ``agent/turn-stop`` after the first step, steering and context, and
    compaction when over budget (the turn's first compaction precedes its prompts)."""
    core.check_cancel()
    max_steps = core.agent.options.max_steps
    if step > max_steps:
        core.notice(
            f"stopped after {max_steps} steps (the step limit)", source="agent", level="warning"
        )
        raise EndTurn(MAX_STEPS)
    if step > 1:
        asked = core.ctx.serial(TURN_STOP, core.agent, step)
        stop = await core.guarded(TURN_STOP, asked)
        if stop is not None:
            core.notice(stop.reason, source="agent/turn-stop", level="info")
            raise EndTurn(STOPPED, AbortCause(kind="hook", reason=stop.reason))
        core.check_cancel()
    core.drain_steering()
    core.flush_context()
    if step > 1:
        await compact_if_over_budget(core)


async def _model_step(core: AgentCore, turn: TurnState) -> AssistantMessage:
    """The model call (``observed_call``: between ``agent/model-request`` and
    ``agent/model-response``), its reply logged, and shown through ``agent/message-display``."""
    logged: list[SessionEvent] = []

    def log(reply: AssistantMessage) -> str:
        turn.steps += 1
        turn.final_text = reply.text
        # Not fsynced on its own: whatever the reply leads to (a hook, a tool call, the turn's
        # end) is logged durably before it happens, and that fsync covers this line too.
        event = AssistantMessageEvent(
            text=reply.text, tool_calls=_bounded(reply.tool_calls), usage=reply.usage
        )
        logged.append(core.append(event, durable=False))
        return logged[-1].id

    policy = sys.modules.get("dsh.agent._model_policy")
    if policy is None:  # no plugin named the model-call policies: none can listen
        reply = await observed_call(
            core, model_request(core, core.projection()), turn.signal, logged=log
        )
    else:
        reply = await _decided_call(core, turn, policy, log)
    if reply.text and core.agent.parent is None:
        await _display(core, turn, logged[-1])
    return reply


async def _decided_call(
    core: AgentCore, turn: TurnState, policy: Any, log: Callable[[AssistantMessage], str]
) -> AssistantMessage:
    """The step's call under ``agent/model-request-policy`` and ``agent/model-reply``."""
    request = await policy.decide_request(core, model_request(core, core.projection()))
    if isinstance(request, AssistantMessage):  # answered without the model
        reply: AssistantMessage = await policy.decide_reply(core, request)
        log(reply)
        return reply
    return await observed_call(
        core, request, turn.signal, logged=log, reviewed=lambda r: policy.decide_reply(core, r)
    )


def _bounded(calls: tuple[ToolUse, ...]) -> tuple[ToolUse, ...]:
    """The calls as logged: one whose arguments are over the bound keeps none of them
    (sealing refuses it); the log, and every later request, stay bounded."""
    if all(arguments_size(c.arguments) <= MAX_ARGUMENT_CHARS for c in calls):
        return calls
    return tuple(
        c
        if arguments_size(c.arguments) <= MAX_ARGUMENT_CHARS
        else ToolUse(c.id, c.name, FrozenDict())
        for c in calls
    )


async def _display(core: AgentCore, turn: TurnState, message: SessionEvent) -> None:
    """``agent/message-display`` for a root agent's text; a replacement is logged."""
    assert isinstance(message, AssistantMessageEvent)
    request = DisplayRequest(turn_id=turn.id, message_id=message.id, text=message.text)
    try:
        decision = await core.guarded(
            MESSAGE_DISPLAY, core.ctx.waterfall(MESSAGE_DISPLAY, core.agent, request)
        )
    except EndTurn:
        raise
    except Exception:
        # Display is the user's view only: a broken listener shows the original.
        logger.exception("%r: agent/message-display failed; the original text is shown", core.agent)
        return
    if isinstance(decision, DisplayReplace) and decision.text != message.text:
        core.append(AssistantDisplayEvent(message_id=message.id, text=decision.text))


async def _tool_step(core: AgentCore, turn: TurnState, uses: Sequence[ToolUse]) -> None:
    """The step's tool calls, then ``agent/post-tool-batch``: proceed (with context) or stop."""
    from dsh.agent._tool_step import run_tool_calls  # a reply with calls: not every run's

    results = await run_tool_calls(core, uses, turn.signal)
    if any(r.result.code == DEFERRED for r in results):
        # The step's other calls ran; the turn waits on the deferred one (_deferral).
        raise EndTurn(DEFERRED_END)
    core.check_cancel()
    decision = await core.guarded(
        POST_TOOL_BATCH, core.ctx.waterfall(POST_TOOL_BATCH, core.agent, tuple(results))
    )
    match decision:
        case PostToolBatchStop(reason=reason):
            core.notice(reason, source="agent/post-tool-batch", level="info")
            raise EndTurn(STOPPED, AbortCause(kind="hook", reason=reason))
        case PostToolBatchProceed(additional_context=extra, source=by) if extra:
            core.append(ContextMessageEvent(source=by or "agent/post-tool-batch", text=extra))


async def _continuation(core: AgentCore, step: int, streak: int, text: str) -> int:
    """``agent/turn-continuation`` for a reply without tool calls: the turn completes, or it
    continues (the streak of forced continuations, capped, is what this returns)."""
    core.check_cancel()
    incoming = ContinuationDecision.continue_() if core.steering else ContinuationDecision.stop()
    state = ContinuationState(incoming, streak, step, text)
    decision = await core.guarded(
        TURN_CONTINUATION, core.ctx.waterfall(TURN_CONTINUATION, core.agent, state)
    )
    core.check_cancel()
    if not isinstance(decision, ContinuationContinue):
        raise EndTurn(COMPLETED)
    if not incoming.continues:
        cap = core.agent.options.continuation_cap
        if streak >= cap:
            core.notice(
                f"continuation cap reached: {cap} forced continuations in a row; the turn ends",
                source="agent/turn-continuation",
                level="warning",
            )
            raise EndTurn(COMPLETED)
        streak += 1
    if decision.reason:
        core.steering.append((decision.reason, "continuation"))
    return streak


async def end_turn(
    core: AgentCore,
    turn: TurnState,
    reason: TurnEndReason,
    cause: AbortCause | None,
    error: Exception | None,
) -> TurnResult:
    """``agent/turn-error`` for an error, the log closed with ``turn/end``, the result."""
    if error is not None:
        await core.ctx.emit(TURN_ERROR, core.agent, error)
    text = error_text(error) if error is not None else None
    core.finish_log(turn, reason, cause, text)
    return TurnResult(
        end_reason=reason,
        cause=cause,
        steps=turn.steps,
        final_text=turn.final_text,
        notices=tuple(turn.notices),
        error=text,
    )
