"""Projection: the model-facing message list a session's events stand for.

Log order is kept (the loop appends in the order its rules require), with two
repairs so the history stays valid for chat-completion APIs: an assistant tool
call left without a result (a crash mid-step) gets an error result
``INTERRUPTED_TOOL_RESULT``, and a model-visible message logged while an
assistant's tool calls were still unanswered is placed after their results.
"""

from __future__ import annotations

from collections.abc import Iterable

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
from dsh.session._messages import (
    AssistantMessage,
    ContextMessage,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    ToolResultMessage,
    UserMessage,
)

__all__ = ["INTERRUPTED_TOOL_RESULT", "project"]

INTERRUPTED_TOOL_RESULT = "interrupted: the session stopped before this tool call returned a result"


def project(events: Iterable[SessionEvent]) -> list[ModelMessage]:
    """The model-visible messages of ``events``, in log order.

    User, assistant (with tool calls), tool results (those answering the
    latest assistant's calls), context and steering messages. Blocked
    prompts, notices, turn, tool-call, subagent and unknown events are not
    model-visible. A ``CompactionEnd`` replaces everything before its
    ``CompactionStart`` with one ``SummaryMessage``.
    """
    out: list[ModelMessage] = []
    pending: dict[str, None] = {}  # unanswered tool_use ids of the latest assistant, in order
    held: list[ModelMessage] = []  # messages logged while calls were pending
    compaction_mark: int | None = None

    def settle() -> None:
        # Answer what is still pending, then release what waited for it.
        for tool_use_id in pending:
            out.append(ToolResultMessage(tool_use_id, INTERRUPTED_TOOL_RESULT, is_error=True))
        pending.clear()
        out.extend(held)
        held.clear()

    for event in events:
        if isinstance(event, ToolResultEvent):
            tool_use_id = event.tool_use_id
            if tool_use_id is not None and tool_use_id in pending:
                del pending[tool_use_id]
                out.append(ToolResultMessage(tool_use_id, event.content, event.is_error))
                if not pending:
                    out.extend(held)
                    held.clear()
            # Otherwise not a model's call (or already answered): no place in the history.
            continue
        message: ModelMessage
        if isinstance(event, UserMessageEvent):
            message = UserMessage(event.content)
        elif isinstance(event, ContextMessageEvent):
            message = ContextMessage(event.source, event.text)
        elif isinstance(event, SteeringMessageEvent):
            message = SteeringMessage(event.text)
        elif isinstance(event, AssistantMessageEvent):
            settle()
            out.append(AssistantMessage(event.text, event.tool_calls))
            for call in event.tool_calls:
                pending[call.id] = None
            continue
        elif isinstance(event, CompactionStart):
            settle()
            compaction_mark = len(out)
            continue
        elif isinstance(event, CompactionEnd):
            settle()
            kept = out[compaction_mark:] if compaction_mark is not None else []
            out[:] = [SummaryMessage(event.summary), *kept]
            compaction_mark = None
            continue
        else:
            continue
        if pending:
            held.append(message)
        else:
            out.append(message)
    settle()
    return out
