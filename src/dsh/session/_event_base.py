"""The base of every session event, and the small values events carry.

``SessionEvent`` holds the fields every event has; each concrete event type is
a frozen slotted kw_only subclass with a ``type`` tag, registered with
``register_event_type`` (``_codec.py``). ``OpaqueEvent`` stands for a line of
an unknown type read from disk, kept byte for byte.
"""

from __future__ import annotations

import enum
import time as _time
import uuid
from dataclasses import field
from typing import Any, ClassVar, Literal, TypeAlias, final

from dsh._frozen import frozen

__all__ = [
    "AbortCause",
    "AbortKind",
    "OpaqueEvent",
    "SessionEvent",
    "TurnEndReason",
    "new_event_id",
]


def new_event_id() -> str:
    """A fresh event id (32 hex digits)."""
    return uuid.uuid4().hex


@frozen(kw_only=True)
class SessionEvent:
    """What every logged event has.

    Callers build events with the defaults; the store stamps ``session_id``
    and ``seq`` (the event's position in its log, from 0) on append.
    """

    type: ClassVar[str]

    id: str = field(default_factory=new_event_id)
    session_id: str = ""
    turn_id: str | None = None
    seq: int = -1
    time: float = field(default_factory=_time.time)


class TurnEndReason(enum.StrEnum):
    """Why a turn ended (the value is what the log stores)."""

    completed = "completed"
    rejected = "rejected"  # the whole prompt batch was blocked by prompt-submit
    aborted = "aborted"  # with an AbortCause
    max_steps = "max_steps"
    stopped = "stopped"  # by agent/turn-stop
    error = "error"
    deferred = "deferred"  # a tool call was deferred: it waits, pending, to be settled

    # Constant-style aliases of the same members.
    COMPLETED = "completed"
    REJECTED = "rejected"
    ABORTED = "aborted"
    MAX_STEPS = "max_steps"
    STOPPED = "stopped"
    ERROR = "error"
    DEFERRED = "deferred"


AbortKind: TypeAlias = Literal["user", "hook", "timeout", "error"]


@final
@frozen
class AbortCause:
    """Who aborted a turn, and why."""

    kind: AbortKind
    reason: str


@final
@frozen(kw_only=True)
class OpaqueEvent(SessionEvent):
    """An event of a type this process does not know, read from disk.

    ``raw`` is its line exactly as stored (without the newline); a fork copies
    it unchanged. ``data`` is the parsed line (frozen JSON) for inspection;
    the base fields are read from it where present and well-typed.
    """

    event_type: str
    data: Any
    raw: bytes

    # Each opaque event has its own tag, so ``type`` is per instance here.
    @property
    def type(self) -> str:  # type: ignore[override]
        return self.event_type
