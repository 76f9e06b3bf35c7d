"""The durable session log: typed events, the store, projection to model messages.

The messages a projection gives are ``dsh.messages``'s; the JSON values in events are
``dsh.base``'s. ``MemorySessionStore`` (tests, embedders) loads on first use: a run's log is
the JSONL store.
"""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.session._event_base import AbortCause, AbortKind, OpaqueEvent, SessionEvent, TurnEndReason
from dsh.session._event_registry import register_event_type
from dsh.session._events import (
    AssistantDisplayEvent,
    AssistantMessageEvent,
    CompactionEnd,
    CompactionStart,
    ContextMessageEvent,
    NoticeEvent,
    PromptBlockedEvent,
    SteeringMessageEvent,
    SubagentEnd,
    SubagentStart,
    ToolCallEvent,
    ToolDeferredEvent,
    ToolResultEvent,
    TurnEnd,
    TurnStart,
    UserMessageEvent,
)
from dsh.session._private_files import UnsafeSessionPathError
from dsh.session._projection import INTERRUPTED_TOOL_RESULT, Projection, project
from dsh.session._session_error import SessionError, SessionWriteError
from dsh.session._store import JsonlSessionStore, default_data_dir
from dsh.session._store_base import (
    RecoveredTail,
    SessionCorruptError,
    SessionInfo,
    SessionLockedError,
    SessionLog,
    SessionNotFoundError,
    SessionStore,
    projection_of,
)
from dsh.session._stored_events import EventsView, event_types

if TYPE_CHECKING:
    from dsh.session._memory import MemorySessionStore

__all__ = [
    "INTERRUPTED_TOOL_RESULT",
    "AbortCause",
    "AbortKind",
    "AssistantDisplayEvent",
    "AssistantMessageEvent",
    "CompactionEnd",
    "CompactionStart",
    "ContextMessageEvent",
    "EventsView",
    "JsonlSessionStore",
    "MemorySessionStore",
    "NoticeEvent",
    "OpaqueEvent",
    "Projection",
    "PromptBlockedEvent",
    "RecoveredTail",
    "SessionCorruptError",
    "SessionError",
    "SessionEvent",
    "SessionInfo",
    "SessionLockedError",
    "SessionLog",
    "SessionNotFoundError",
    "SessionStore",
    "SessionWriteError",
    "SteeringMessageEvent",
    "SubagentEnd",
    "SubagentStart",
    "ToolCallEvent",
    "ToolDeferredEvent",
    "ToolResultEvent",
    "TurnEnd",
    "TurnEndReason",
    "TurnStart",
    "UnsafeSessionPathError",
    "UserMessageEvent",
    "default_data_dir",
    "event_types",
    "project",
    "projection_of",
    "register_event_type",
]

publish(globals())

__getattr__ = lazy(globals(), {"dsh.session._memory": ("MemorySessionStore",)})
