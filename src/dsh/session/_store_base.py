"""What every session store shares: its protocols, errors and values, and the log bookkeeping.

``SessionLog`` and ``SessionStore`` are the seams; ``_LogBase`` is the part of
a log that does not depend on where it is kept: it stamps appended events
(checked, JSON frozen, numbered) and leaves making them durable to
``_commit``.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Protocol, Self, final, runtime_checkable

from dsh._frozen import frozen
from dsh.session._codec import encode_line, restamp
from dsh.session._event_base import OpaqueEvent, SessionEvent
from dsh.session._projection import Projection
from dsh.session._session_error import SessionError
from dsh.session._stored_events import EventsView, StoredEvents

__all__ = [
    "RecoveredTail",
    "SessionCorruptError",
    "SessionError",
    "SessionInfo",
    "SessionLockedError",
    "SessionLog",
    "SessionNotFoundError",
    "SessionStore",
    "check_session_id",
    "new_session_id",
    "projection_of",
    "stamp_events",
]

_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def new_session_id() -> str:
    return str(uuid.uuid4())


def check_session_id(session_id: str) -> str:
    if not isinstance(session_id, str) or not _SESSION_ID.match(session_id):
        raise ValueError(
            f"{session_id!r} is not a session id (letters, digits, '.', '_' and '-', "
            "starting with a letter or digit, at most 128 characters)"
        )
    return session_id


# --- errors and values --------------------------------------------------------


class SessionNotFoundError(SessionError, LookupError):
    def __init__(self, session_id: str, where: str) -> None:
        super().__init__(f"no session {session_id!r} in {where}")
        self.session_id = session_id


class SessionLockedError(SessionError):
    """Another writer holds the session; two writers would interleave its log."""

    def __init__(self, session_id: str, lock_path: Path | None, holder: str | None) -> None:
        by = f" (held by pid {holder})" if holder else ""
        where = f"; lock file {lock_path}" if lock_path is not None else ""
        super().__init__(f"session {session_id!r} is already open for writing{by}{where}")
        self.session_id = session_id
        self.lock_path = lock_path
        self.holder = holder


class SessionCorruptError(SessionError):
    """A log line that is not a torn tail cannot be read: the log is not guessed at."""

    def __init__(self, path: Path, offset: int, problem: str, *, line: int | None = None) -> None:
        where = f"line {line}, at byte {offset}" if line is not None else f"at byte {offset}"
        super().__init__(f"{path}: {where}: {problem}")
        self.path = path
        self.offset = offset
        self.problem = problem
        self.line = line


@final
@frozen
class RecoveredTail:
    """A torn or corrupt tail cut from a log on open and appended to ``sidecar``."""

    path: Path
    offset: int  # where the cut began in the log
    length: int  # bytes moved
    sidecar: Path
    problem: str


@final
@frozen
class SessionInfo:
    """One stored session, from its header (``path`` is None in memory).

    ``project`` is the directory it was created to run in (``None`` for a log
    written before headers recorded it, or a store that records none).
    """

    id: str
    created: float
    forked_from: str | None
    path: Path | None = None
    modified: float | None = None
    size: int | None = None
    project: str | None = None


# --- protocols ----------------------------------------------------------------


@runtime_checkable
class SessionLog(Protocol):
    """An open session: its events so far, and the only way to add more."""

    @property
    def id(self) -> str: ...
    @property
    def path(self) -> Path | None: ...
    @property
    def forked_from(self) -> str | None: ...
    @property
    def events(self) -> Sequence[SessionEvent]: ...
    @property
    def recovered(self) -> RecoveredTail | None: ...
    @property
    def closed(self) -> bool: ...

    def append(self, event: SessionEvent, *, durable: bool = True) -> SessionEvent: ...
    def append_many(
        self, events: Iterable[SessionEvent], *, durable: bool = True
    ) -> tuple[SessionEvent, ...]: ...
    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class SessionStore(Protocol):
    def create(
        self,
        *,
        forked_from: str | None = None,
        project: str | None = None,
        session_id: str | None = None,
    ) -> SessionLog:
        """A new session; ``session_id`` is its id when the caller chose it first (one
        taken raises ``SessionError``), else a fresh one."""
        ...

    def open(self, session_id: str) -> SessionLog: ...
    def fork(self, session_id: str) -> SessionLog: ...
    def list(self) -> list[SessionInfo]: ...
    def load(self, session_id: str) -> tuple[SessionEvent, ...]: ...


# --- stamping and the shared log behaviour ------------------------------------


def stamp_events(
    events: Iterable[SessionEvent], session_id: str, first_seq: int
) -> tuple[list[bytes], list[SessionEvent]]:
    """Each event stamped (fields checked, JSON frozen) and its log line.

    The stamped event equals what reloading its line gives back.
    """
    lines: list[bytes] = []
    stamped: list[SessionEvent] = []
    for seq, event in enumerate(events, first_seq):
        if isinstance(event, OpaqueEvent):
            raise TypeError(
                f"cannot append an opaque {event.event_type!r} event: unknown events are "
                "carried over unchanged by fork, not re-logged"
            )
        if not isinstance(event, SessionEvent):
            raise TypeError(f"append: {event!r} is not a SessionEvent")
        new = restamp(event, session_id, seq)
        lines.append(encode_line(new, session_id, seq))
        stamped.append(new)
    return lines, stamped


def projection_of(session: SessionLog) -> Projection:
    """The model view of ``session``'s events so far, for the caller to keep up to date.

    A log reopened from disk hands over the projection its scan built (the
    first caller gets it; later ones fold the events afresh).
    """
    if isinstance(session, _LogBase):
        return session.take_projection()
    return Projection(session.events)


class _LogBase:
    """The bookkeeping every log shares; subclasses make a batch durable in ``_commit``."""

    def __init__(
        self,
        session_id: str,
        forked_from: str | None,
        events: Sequence[SessionEvent],
        projection: Projection | None = None,
    ) -> None:
        self._id = session_id
        self._forked_from = forked_from
        # A reopened history in its light form stays as it is; appended events are kept whole.
        self._history = events if isinstance(events, StoredEvents) else None
        self._events: list[SessionEvent] = [] if self._history is not None else list(events)
        self._projection = projection
        self._snapshot: EventsView | None = None
        self._mutex = threading.Lock()
        self._closed = False
        self._recovered: RecoveredTail | None = None

    @property
    def id(self) -> str:
        return self._id

    @property
    def forked_from(self) -> str | None:
        return self._forked_from

    @property
    def events(self) -> EventsView:
        """Every event so far: equal to their tuple, decoded when read where the log keeps
        its history light (``StoredEvents``)."""
        snap = self._snapshot
        if snap is None:
            snap = self._snapshot = EventsView(self._history, tuple(self._events))
        return snap

    def _count(self) -> int:
        return len(self._events) + (len(self._history) if self._history is not None else 0)

    def take_projection(self) -> Projection:
        """The model view of every event so far, for one owner to keep up to date.

        A reopened log hands over the projection its scan built (once); otherwise
        the events are folded afresh.
        """
        with self._mutex:
            projection, self._projection = self._projection, None
            events = self.events
        if projection is None:
            return Projection(events)
        projection.extend(events[projection.count :])
        return projection

    @property
    def recovered(self) -> RecoveredTail | None:
        return self._recovered

    @property
    def closed(self) -> bool:
        return self._closed

    def append(self, event: SessionEvent, *, durable: bool = True) -> SessionEvent:
        """Stamp ``event`` and make it durable; returns the stamped event."""
        return self.append_many((event,), durable=durable)[0]

    def append_many(
        self, events: Iterable[SessionEvent], *, durable: bool = True
    ) -> tuple[SessionEvent, ...]:
        """Stamp and commit several events together (one write, one fsync).

        ``durable=False`` writes them (a crash of this process loses nothing
        written) but leaves the fsync to the next durable append, or to
        ``close``: for records whose loss in a machine crash costs nothing the
        next durable append would not also cover (see docs/session-log.md).
        """
        with self._mutex:
            if self._closed:
                raise SessionError(f"session {self._id!r} is closed")
            lines, stamped = stamp_events(events, self._id, self._count())
            if not stamped:
                return ()
            self._commit(lines, stamped, durable)
            self._events.extend(stamped)
            self._snapshot = None
            return tuple(stamped)

    def _commit(self, lines: list[bytes], stamped: list[SessionEvent], durable: bool) -> None:
        """Store ``lines`` (they are ``stamped``), durably unless told not to, or raise
        having stored none."""
        raise NotImplementedError

    def close(self) -> None:
        with self._mutex:
            if not self._closed:
                self._closed = True
                self._release()

    def _release(self) -> None:
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<{type(self).__name__} {self._id} {state}, {self._count()} events>"
