"""The core session event types: what the agent loop logs.

Each is registered under its ``type`` tag; other packages add their own with
``register_event_type`` (``dsh.hook_protocol`` adds ``hook/*``). Tool tokens
are logged as strings (``str(token)``); arguments, outputs and infos are
frozen JSON.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, final

from dsh._frozen import frozen
from dsh.messages import Content, ToolUse, Usage
from dsh.session._event_base import AbortCause, SessionEvent, TurnEndReason
from dsh.session._event_registry import register_event_type

__all__ = [
    "CORE_EVENT_TYPES",
    "AssistantDisplayEvent",
    "AssistantMessageEvent",
    "CompactionEnd",
    "CompactionStart",
    "ContextMessageEvent",
    "NoticeEvent",
    "PromptBlockedEvent",
    "SteeringMessageEvent",
    "SubagentEnd",
    "SubagentStart",
    "ToolCallEvent",
    "ToolDeferredEvent",
    "ToolResultEvent",
    "TurnEnd",
    "TurnStart",
    "UserMessageEvent",
]


@final
@register_event_type
@frozen(kw_only=True)
class TurnStart(SessionEvent):
    type: ClassVar[str] = "turn/start"


@final
@register_event_type
@frozen(kw_only=True)
class TurnEnd(SessionEvent):
    """A turn ended; ``cause`` when ``aborted``, ``error`` (the message) when ``error``."""

    type: ClassVar[str] = "turn/end"

    reason: TurnEndReason
    cause: AbortCause | None = None
    error: str | None = None


@final
@register_event_type
@frozen(kw_only=True)
class UserMessageEvent(SessionEvent):
    """A prompt as the model sees it (after prompt-submit; ``source`` user or subagent)."""

    type: ClassVar[str] = "user/message"

    content: Content
    source: str = "user"


@final
@register_event_type
@frozen(kw_only=True)
class AssistantMessageEvent(SessionEvent):
    """A model reply; ``usage`` the tokens its call used (None: not reported, or an older log)."""

    type: ClassVar[str] = "assistant/message"

    text: str
    tool_calls: tuple[ToolUse, ...] = ()
    usage: Usage | None = None


@final
@register_event_type
@frozen(kw_only=True)
class AssistantDisplayEvent(SessionEvent):
    """What the user was shown instead of an assistant message's text: never model-visible.

    ``message_id`` is the ``assistant/message`` event's id; ``text`` the replacement
    an ``agent/message-display`` listener chose (the model and history keep the original).
    """

    type: ClassVar[str] = "assistant/display"

    message_id: str
    text: str


@final
@register_event_type
@frozen(kw_only=True)
class ToolCallEvent(SessionEvent):
    """A sealed tool call: its identity and frozen arguments, logged before pre-execute.

    ``arguments`` is the effective input (after ``tools/rewrite-input``); when
    a rewriter replaced it, ``original_arguments`` is the caller's input and
    ``rewritten_by`` names the rewriters in order.
    """

    type: ClassVar[str] = "tool/call"

    token: str
    parent_token: str | None = None
    tool_use_id: str | None = None
    tool_name: str
    arguments: Any
    original_arguments: Any = None
    rewritten_by: tuple[str, ...] = ()


@final
@register_event_type
@frozen(kw_only=True)
class ToolResultEvent(SessionEvent):
    """A tool call's result exactly as the caller got it; ``code`` names a failure.

    ``approval`` records how a pre-execute ``ask`` was settled (who answered,
    with what outcome), allowed or not; ``None`` when nobody was asked.
    """

    type: ClassVar[str] = "tool/result"

    token: str
    tool_use_id: str | None = None
    content: Content
    output: Any = None
    is_error: bool = False
    code: str | None = None
    info: Any = None
    dispatched: bool = True
    approval: Any = None


@final
@register_event_type
@frozen(kw_only=True)
class ToolDeferredEvent(SessionEvent):
    """A tool call a pre-execute policy deferred: it has not run, and it stays pending (its
    turn ended ``deferred``) until a ``tool/result`` with its ``tool_use_id`` settles it.

    ``tool_name`` and ``arguments`` are the call as it would run; ``reason`` and ``by`` say
    why and who deferred it.
    """

    type: ClassVar[str] = "tool/deferred"

    token: str
    tool_use_id: str | None = None
    tool_name: str
    arguments: Any
    reason: str | None = None
    by: str | None = None


@final
@register_event_type
@frozen(kw_only=True)
class ContextMessageEvent(SessionEvent):
    """Model-visible context (``source`` like ``plugin:<name>`` or ``hook:claude:SessionStart``)."""

    type: ClassVar[str] = "context/message"

    source: str
    text: str


@final
@register_event_type
@frozen(kw_only=True)
class SteeringMessageEvent(SessionEvent):
    """Steering, or a forced continuation's reason, delivered mid-turn."""

    type: ClassVar[str] = "steering/message"

    text: str
    source: str = "user"


@final
@register_event_type
@frozen(kw_only=True)
class PromptBlockedEvent(SessionEvent):
    """A prompt blocked by prompt-submit: never model-visible; ``by`` names the blocker if known."""

    type: ClassVar[str] = "prompt/blocked"

    prompt: Content
    reason: str
    source: str = "user"
    by: str | None = None


@final
@register_event_type
@frozen(kw_only=True)
class CompactionStart(SessionEvent):
    type: ClassVar[str] = "compaction/start"

    trigger: Literal["manual", "auto"] = "manual"
    instructions: str | None = None


@final
@register_event_type
@frozen(kw_only=True)
class CompactionEnd(SessionEvent):
    """The summary that replaces the history before the matching ``CompactionStart``."""

    type: ClassVar[str] = "compaction/end"

    summary: str


@final
@register_event_type
@frozen(kw_only=True)
class SubagentStart(SessionEvent):
    type: ClassVar[str] = "subagent/start"

    child_session_id: str
    agent_type: str
    description: str = ""
    parent_token: str | None = None


@final
@register_event_type
@frozen(kw_only=True)
class SubagentEnd(SessionEvent):
    type: ClassVar[str] = "subagent/end"

    child_session_id: str
    end_reason: str
    final_text: str | None = None


@final
@register_event_type
@frozen(kw_only=True)
class NoticeEvent(SessionEvent):
    """A user-facing notice: never model-visible."""

    type: ClassVar[str] = "notice"

    text: str
    source: str = "dsh"
    level: Literal["info", "warning", "error"] = "info"


CORE_EVENT_TYPES: tuple[type[SessionEvent], ...] = (
    TurnStart,
    TurnEnd,
    UserMessageEvent,
    AssistantMessageEvent,
    AssistantDisplayEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolDeferredEvent,
    ContextMessageEvent,
    SteeringMessageEvent,
    PromptBlockedEvent,
    CompactionStart,
    CompactionEnd,
    SubagentStart,
    SubagentEnd,
    NoticeEvent,
)
