"""Projection: the model-facing message list a session's events stand for.

Log order is kept (the loop appends in the order its rules require), with two
repairs so the history stays valid for chat-completion APIs: an assistant tool
call left without a result (a crash mid-step) gets an error result
``INTERRUPTED_TOOL_RESULT``, and a model-visible message logged while an
assistant's tool calls were still unanswered is placed after their results.

``Projection`` keeps that view up to date one event at a time (the agent feeds
it every event it logs), so a step costs what its new events cost, not what the
whole history does; ``project`` is the same fold over a whole log. It also keeps the
usage the last reply reported (``usage``): the size of the context it stands for, as the
API counted it.
"""

from __future__ import annotations

from collections.abc import Iterable

from dsh.messages import (
    AssistantMessage,
    ContextMessage,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from dsh.messages._history import history_view
from dsh.session._event_base import SessionEvent
from dsh.session._events import (
    AssistantMessageEvent,
    CompactionEnd,
    CompactionStart,
    ContextMessageEvent,
    SteeringMessageEvent,
    ToolResultEvent,
    UserMessageEvent,
)

__all__ = ["INTERRUPTED_TOOL_RESULT", "Projection", "project"]

INTERRUPTED_TOOL_RESULT = "interrupted: the session stopped before this tool call returned a result"


class Projection:
    """The model view of a log, folded one event at a time.

    ``messages()`` is what ``project`` gives for every event added so far. The
    settled part (``_out``) only grows, except at a compaction's end; calls
    still unanswered and the messages held behind them are settled only in the
    returned view, so a later result still lands in its place.
    """

    __slots__ = ("_base", "_count", "_held", "_mark", "_out", "_pending", "_usage", "_view")

    def __init__(self, events: Iterable[SessionEvent] = ()) -> None:
        self._out: list[ModelMessage] = []
        # Unanswered tool_use ids of the latest assistant, each mapped to itself: a result's
        # message takes the call's own string (a long history holds each id once, not twice).
        self._pending: dict[str, str] = {}
        self._held: list[ModelMessage] = []  # messages logged while calls were pending
        self._mark: int | None = None  # len(_out) at the open compaction's start
        self._count = 0
        self._view: tuple[ModelMessage, ...] | None = ()
        # The serial of the last view that was ``_out`` as it stood; ``_out`` has only grown since.
        self._base = 0
        self._usage: Usage | None = None
        self.extend(events)

    @property
    def usage(self) -> Usage | None:
        """What the last reply's call reported using (``None``: none reported since the log's
        start or its last compaction)."""
        return self._usage

    @property
    def count(self) -> int:
        """How many events have been added."""
        return self._count

    def extend(self, events: Iterable[SessionEvent]) -> None:
        for event in events:
            self.add(event)

    def add(self, event: SessionEvent) -> None:
        """Fold one more event into the view."""
        self._count += 1
        if isinstance(event, ToolResultEvent):
            self._result(event)
            return
        message: ModelMessage
        if isinstance(event, UserMessageEvent):
            message = UserMessage(event.content)
        elif isinstance(event, ContextMessageEvent):
            message = ContextMessage(event.source, event.text)
        elif isinstance(event, SteeringMessageEvent):
            message = SteeringMessage(event.text)
        elif isinstance(event, AssistantMessageEvent):
            self._settle()
            self._usage = event.usage
            self._out.append(AssistantMessage(event.text, event.tool_calls))
            for call in event.tool_calls:
                self._pending[call.id] = call.id
            return
        elif isinstance(event, CompactionStart):
            self._settle()
            self._mark = len(self._out)
            return
        elif isinstance(event, CompactionEnd):
            self._settle()
            kept = self._out[self._mark :] if self._mark is not None else []
            self._out = [SummaryMessage(event.summary), *kept]
            self._usage = None
            self._base = 0
            self._mark = None
            return
        else:
            return  # not model-visible: nothing changes
        self._view = None
        if self._pending:
            self._held.append(message)
        else:
            self._out.append(message)

    def _result(self, event: ToolResultEvent) -> None:
        tool_use_id = event.tool_use_id
        if tool_use_id is None or tool_use_id not in self._pending:
            return  # not a model's call (or already answered): no place in the history
        self._view = None
        call_id = self._pending.pop(tool_use_id)
        self._out.append(ToolResultMessage(call_id, event.content, event.is_error))
        if not self._pending:
            self._out.extend(self._held)
            self._held.clear()

    def _settle(self) -> None:
        # Answer what is still pending, then release what waited for it.
        self._view = None
        self._out.extend(_interrupted(self._pending))
        self._pending.clear()
        self._out.extend(self._held)
        self._held.clear()

    def messages(self) -> tuple[ModelMessage, ...]:
        """The model-visible messages so far, unanswered calls answered as interrupted."""
        view = self._view
        if view is None:
            if self._pending or self._held:
                tail = (*_interrupted(self._pending), *self._held)
                view = history_view((*self._out, *tail), self._base)
            else:
                view = history_view(self._out, self._base)
                self._base = view.serial
            self._view = view
        return view


def _interrupted(pending: Iterable[str]) -> list[ModelMessage]:
    return [ToolResultMessage(i, INTERRUPTED_TOOL_RESULT, is_error=True) for i in pending]


def project(events: Iterable[SessionEvent]) -> list[ModelMessage]:
    """The model-visible messages of ``events``, in log order.

    User, assistant (with tool calls), tool results (those answering the
    latest assistant's calls), context and steering messages. Blocked
    prompts, notices, turn, tool-call, subagent and unknown events are not
    model-visible. A ``CompactionEnd`` replaces everything before its
    ``CompactionStart`` with one ``SummaryMessage``.
    """
    return list(Projection(events).messages())
