"""The loop's seams: one channel constant per lifecycle point the agent fires.

Listener signatures are carried by the type parameters, so ``mypy --strict``
checks a plugin's listener against the seam it subscribes to.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dsh.agent._decisions import (
    CompactRequest,
    ContinuationDecision,
    ContinuationState,
    DisplayDecision,
    DisplayRequest,
    InstructionsFile,
    PostToolBatchDecision,
    PreCompactDecision,
    PromptDecision,
    PromptSource,
    SessionEndReason,
    SessionStartSource,
    SetupTrigger,
    TurnStop,
)
from dsh.context import NotifyChannel, SerialChannel, WaterfallChannel
from dsh.messages import Content

if TYPE_CHECKING:
    from dsh.agent._agent import Agent
    from dsh.agent._turn import TurnResult
    from dsh.tools import ToolExecutionResult

__all__ = [
    "COMPACTION_REPLY",
    "CWD_CHANGED",
    "INSTRUCTIONS_LOADED",
    "MESSAGE_DISPLAY",
    "NOTIFICATION",
    "POST_COMPACT",
    "POST_TOOL_BATCH",
    "PRE_COMPACT",
    "PROMPT_SUBMIT",
    "SESSION_END",
    "SESSION_START",
    "SETUP",
    "SUBAGENT_END",
    "SUBAGENT_START",
    "TURN_CONTINUATION",
    "TURN_ERROR",
    "TURN_STOP",
]


def _allow_prompt(agent: Agent, content: Content, source: PromptSource) -> PromptDecision:
    return PromptDecision.allow()


def _proceed_batch(agent: Agent, results: tuple[ToolExecutionResult, ...]) -> PostToolBatchDecision:
    return PostToolBatchDecision.proceed()


def _incoming_continuation(agent: Agent, state: ContinuationState) -> ContinuationDecision:
    return state.decision


def _show(agent: Agent, request: DisplayRequest) -> DisplayDecision:
    return DisplayDecision.show()


def _proceed_compact(agent: Agent, request: CompactRequest) -> PreCompactDecision:
    return PreCompactDecision.proceed()


SETUP: NotifyChannel[Agent, SetupTrigger] = NotifyChannel("agent/setup")
"""Only when asked (``Agent.setup``: ``dsh run --init``, ``--init-only``, ``--maintenance``),
before ``agent/session-start``; cannot block. Context injected here arrives with the
session-start context."""

INSTRUCTIONS_LOADED: NotifyChannel[Agent, InstructionsFile] = NotifyChannel(
    "agent/instructions-loaded"
)
"""After an instructions file's text was queued as context (``agent.inject``), once per file
and load; for observers (Claude Code's ``InstructionsLoaded``)."""

SESSION_START: NotifyChannel[Agent, SessionStartSource] = NotifyChannel("agent/session-start")
"""Once before turn 1, and again after each compaction (source ``compact``, before
``agent/post-compact``); cannot block."""

PROMPT_SUBMIT: WaterfallChannel[PromptDecision, Agent, Content, PromptSource] = WaterfallChannel(
    "agent/prompt-submit", default=_allow_prompt, returns=PromptDecision
)
"""Per drained prompt, inside the open turn, before ``user/message``: allow or block."""

POST_TOOL_BATCH: WaterfallChannel[PostToolBatchDecision, Agent, tuple[ToolExecutionResult, ...]] = (
    WaterfallChannel("agent/post-tool-batch", default=_proceed_batch, returns=PostToolBatchDecision)
)
"""After a step's tool results and contexts are logged, before the next model call."""

TURN_CONTINUATION: WaterfallChannel[ContinuationDecision, Agent, ContinuationState] = (
    WaterfallChannel(
        "agent/turn-continuation", default=_incoming_continuation, returns=ContinuationDecision
    )
)
"""A reply without tool calls: stop the turn, or continue it (a reason becomes steering)."""

MESSAGE_DISPLAY: WaterfallChannel[DisplayDecision, Agent, DisplayRequest] = WaterfallChannel(
    "agent/message-display", default=_show, returns=DisplayDecision
)
"""A root agent's assistant message with text, after it is logged and before its tool calls.

Show it, or replace what the user sees (``assistant/display``); a child agent's text
is never shown, so it fires only in an agent without a parent.
"""

CWD_CHANGED: NotifyChannel[Agent, Path, Path] = NotifyChannel("agent/cwd-changed")
"""``(agent, old_cwd, new_cwd)``: a tool call (or a run of parallel calls) left the agent's
workspace in another directory; after its result is logged, before ``agent/post-tool-batch``."""

NOTIFICATION: NotifyChannel[Agent, str, str] = NotifyChannel("agent/notification")
"""``(agent, message, notification_type)``: a front end tells the person something waits on
them (``idle_prompt``: the terminal has waited for input a while; Claude Code's vocabulary)."""

TURN_STOP: SerialChannel[TurnStop, Agent, int] = SerialChannel("agent/turn-stop")
"""Before each model call after the first (with the step number); the first ``TurnStop`` wins."""

TURN_ERROR: NotifyChannel[Agent, Exception] = NotifyChannel("agent/turn-error")
"""A turn ended in ``error`` (the model failed after retries); carries the exception."""

SESSION_END: NotifyChannel[Agent, SessionEndReason] = NotifyChannel("agent/session-end")
"""Once, from ``await agent.close(reason)``."""

PRE_COMPACT: WaterfallChannel[PreCompactDecision, Agent, CompactRequest] = WaterfallChannel(
    "agent/pre-compact", default=_proceed_compact, returns=PreCompactDecision
)
"""Before a compaction (manual or automatic): proceed, or veto with a reason."""

COMPACTION_REPLY: NotifyChannel[Agent, str] = NotifyChannel("agent/compaction-reply")
"""``(agent, text)``: each answer of a compaction's summarization call, as it came (an answer
without ``<summary>`` is followed by a second call); Claude Code's compaction agent stops."""

POST_COMPACT: NotifyChannel[Agent, str] = NotifyChannel("agent/post-compact")
"""After ``compaction/end`` and the ``agent/session-start`` (source ``compact``) that follows it."""

SUBAGENT_START: NotifyChannel[Agent, Agent] = NotifyChannel("subagent/start")
"""``(parent, child)`` while the child is live and before its turn: inject into it or cancel it."""

SUBAGENT_END: NotifyChannel[Agent, Agent, TurnResult] = NotifyChannel("subagent/end")
"""``(parent, child, result)`` after the child's turn."""
