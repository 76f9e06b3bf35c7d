"""An in-memory session store with the JSONL store's API, for tests that need no disk.

Events are stamped exactly as the JSONL store stamps them (encoded, then
decoded), so a test sees the same values; the single-writer rule holds within
the store object.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import field
from typing import final

from dsh._frozen import slotted
from dsh.session._event_base import SessionEvent
from dsh.session._session_error import SessionError
from dsh.session._store_base import (
    SessionInfo,
    SessionLockedError,
    SessionNotFoundError,
    _LogBase,
    check_session_id,
    new_session_id,
)

__all__ = ["MemorySessionLog", "MemorySessionStore"]


@slotted
class _Stored:
    created: float
    forked_from: str | None
    events: list[SessionEvent] = field(default_factory=list)
    writer: MemorySessionLog | None = None
    project: str | None = None


@final
class MemorySessionLog(_LogBase):
    def __init__(self, store: MemorySessionStore, session_id: str, stored: _Stored) -> None:
        super().__init__(session_id, stored.forked_from, stored.events)
        self._store = store
        self._stored = stored

    @property
    def path(self) -> None:
        return None

    def _commit(self, lines: list[bytes], stamped: list[SessionEvent], durable: bool) -> None:
        with self._store._mutex:
            self._stored.events.extend(stamped)

    def _release(self) -> None:
        with self._store._mutex:
            if self._stored.writer is self:
                self._stored.writer = None


@final
class MemorySessionStore:
    def __init__(self) -> None:
        self._sessions: dict[str, _Stored] = {}
        self._mutex = threading.Lock()

    def __repr__(self) -> str:
        return f"<MemorySessionStore, {len(self._sessions)} sessions>"

    def create(
        self,
        *,
        forked_from: str | None = None,
        project: str | None = None,
        session_id: str | None = None,
    ) -> MemorySessionLog:
        if forked_from is not None:
            check_session_id(forked_from)
        return self._new(forked_from, (), project, session_id=session_id)

    def fork(self, session_id: str) -> MemorySessionLog:
        return self._new(session_id, self.load(session_id))

    def open(self, session_id: str) -> MemorySessionLog:
        with self._mutex:
            stored = self._get(session_id)
            if stored.writer is not None:
                raise SessionLockedError(session_id, None, None)
            log = MemorySessionLog(self, session_id, stored)
            stored.writer = log
            return log

    def load(self, session_id: str) -> tuple[SessionEvent, ...]:
        with self._mutex:
            return tuple(self._get(session_id).events)

    def list(self) -> list[SessionInfo]:
        with self._mutex:
            infos = [
                SessionInfo(id=sid, created=s.created, forked_from=s.forked_from, project=s.project)
                for sid, s in self._sessions.items()
            ]
        infos.sort(key=lambda i: (i.created, i.id))
        return infos

    def _get(self, session_id: str) -> _Stored:
        check_session_id(session_id)
        stored = self._sessions.get(session_id)
        if stored is None:
            raise SessionNotFoundError(session_id, "memory")
        return stored

    def _new(
        self,
        forked_from: str | None,
        events: Sequence[SessionEvent],
        project: str | None = None,
        *,
        session_id: str | None = None,
    ) -> MemorySessionLog:
        chosen = session_id is not None
        session_id = new_session_id() if session_id is None else check_session_id(session_id)
        stored = _Stored(
            created=time.time(), forked_from=forked_from, events=list(events), project=project
        )
        with self._mutex:
            if chosen and session_id in self._sessions:
                raise SessionError(f"session {session_id!r} exists already")
            self._sessions[session_id] = stored
            log = MemorySessionLog(self, session_id, stored)
            stored.writer = log
        return log
