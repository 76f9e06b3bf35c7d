"""A turn's bookkeeping: its running state, how it ends (``TurnResult``), and the results a
log owes the tool calls an ended turn left unanswered."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Literal, final

from dsh._frozen import frozen
from dsh.agent._decisions import Notice
from dsh.base import AbortSignal
from dsh.session import (
    AbortCause,
    AssistantMessageEvent,
    SessionEvent,
    ToolCallEvent,
    ToolDeferredEvent,
    ToolResultEvent,
    TurnEndReason,
)

__all__ = [
    "ABORTED",
    "COMPLETED",
    "DEFERRED_END",
    "ERROR",
    "MAX_STEPS",
    "REJECTED",
    "STOPPED",
    "CancelWhen",
    "EndTurn",
    "TurnResult",
    "TurnState",
    "error_text",
    "new_turn_id",
    "unanswered_results",
]

# By value: the enum's member names are the session package's business.
COMPLETED = TurnEndReason("completed")
REJECTED = TurnEndReason("rejected")
ABORTED = TurnEndReason("aborted")
MAX_STEPS = TurnEndReason("max_steps")
STOPPED = TurnEndReason("stopped")
ERROR = TurnEndReason("error")
DEFERRED_END = TurnEndReason("deferred")

CancelWhen = Literal["now", "after_step"]


@final
@frozen
class TurnResult:
    """How a turn ended.

    ``steps`` counts the model replies the turn received; ``final_text`` is the
    text of its last one (empty when there was none); ``notices`` are the
    user-facing notices recorded while the turn ran; ``error`` describes an
    ``error`` ending.
    """

    end_reason: TurnEndReason
    cause: AbortCause | None = None
    steps: int = 0
    final_text: str = ""
    notices: tuple[Notice, ...] = ()
    error: str | None = None


class EndTurn(Exception):
    """Internal control flow: end the running turn now, with this reason."""

    def __init__(
        self,
        reason: TurnEndReason,
        cause: AbortCause | None = None,
        error: Exception | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.cause = cause
        self.error = error


class TurnState:
    """The running turn's mutable state."""

    __slots__ = ("final_text", "id", "notices", "signal", "steps")

    def __init__(self, turn_id: str) -> None:
        self.id = turn_id
        self.signal = AbortSignal()
        self.steps = 0
        self.final_text = ""
        self.notices: list[Notice] = []


def new_turn_id() -> str:
    """A turn's id: a UUID in its usual text form, as Codex 0.171 sends ``turn_id``."""
    return str(uuid.uuid4())


def error_text(error: BaseException | None) -> str:
    if error is None:
        return "unknown error"
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def unanswered_results(events: Iterable[SessionEvent], reason: str) -> list[ToolResultEvent]:
    """An ``ABORTED`` result for every tool call of ``events`` that has none (a deferred call
    is pending: it has none yet, and gets none here), in call order."""
    asked: dict[str, str] = {}
    tokens: dict[str, str] = {}
    answered: set[str] = set()
    for ev in events:
        if isinstance(ev, AssistantMessageEvent):
            for use in ev.tool_calls:
                asked[use.id] = use.name
        elif isinstance(ev, ToolCallEvent) and ev.tool_use_id is not None:
            tokens[ev.tool_use_id] = ev.token
        elif isinstance(ev, ToolResultEvent | ToolDeferredEvent) and ev.tool_use_id is not None:
            answered.add(ev.tool_use_id)  # a deferred call is pending, not unanswered
    return [
        ToolResultEvent(
            token=tokens.get(use_id, ""),
            tool_use_id=use_id,
            content=reason,
            output=None,
            is_error=True,
            code="ABORTED",
            info=None,
            dispatched=use_id in tokens,
        )
        for use_id in asked
        if use_id not in answered
    ]
