"""A session store whose logs feed the exporters: ``ObservedStore``, ``ObservedLog``.

Every event a session appends (after it is written) goes to the session's
``LogTracer``; closing the log ends its spans and flushes the exporters. The
store and the log are otherwise the wrapped ones, attribute for attribute.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from dsh.session import SessionEvent, SessionLog, SessionStore
from dsh.telemetry._export import Exporters, LogTracer
from dsh.telemetry._settings import TelemetrySettings

__all__ = ["ObservedLog", "ObservedStore"]


class ObservedLog:
    """``log``, each appended event also given to ``tracer``."""

    def __init__(self, log: SessionLog, tracer: LogTracer) -> None:
        self._log = log
        self._tracer = tracer
        tracer.observe(log.events)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._log, name)

    def append(self, event: SessionEvent, *, durable: bool = True) -> SessionEvent:
        stamped = self._log.append(event, durable=durable)
        self._tracer.observe((stamped,))
        return stamped

    def append_many(
        self, events: Iterable[SessionEvent], *, durable: bool = True
    ) -> tuple[SessionEvent, ...]:
        stamped = self._log.append_many(events, durable=durable)
        self._tracer.observe(stamped)
        return stamped

    def close(self) -> None:
        try:
            self._log.close()
        finally:
            self._tracer.close()

    def __enter__(self) -> ObservedLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ObservedStore:
    """``store``, each session it creates, opens or forks an ``ObservedLog``."""

    def __init__(self, store: SessionStore, settings: TelemetrySettings) -> None:
        self._store = store
        self._exporters = Exporters(settings)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def _observed(self, log: SessionLog) -> SessionLog:
        return cast(SessionLog, ObservedLog(log, self._exporters.tracer(log.id)))

    def create(self, **kwargs: Any) -> SessionLog:
        return self._observed(self._store.create(**kwargs))

    def open(self, session_id: str) -> SessionLog:
        return self._observed(self._store.open(session_id))

    def fork(self, session_id: str) -> SessionLog:
        return self._observed(self._store.fork(session_id))
