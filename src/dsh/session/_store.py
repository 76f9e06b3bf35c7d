"""The session store: its protocols, and the default JSONL store.

One file per session, ``<data_dir>/<id>.jsonl``: a header line, then one line
per event (see docs/session-log.md). An append is written with one ``write``
and made durable with ``fsync`` before it returns; ``append_many`` is one
group commit. A crash at any byte leaves at most one torn tail, which the next
``open`` moves to ``<id>.jsonl.corrupt`` (appending, never deleting) and
reports. One writer per session, enforced with ``flock`` on ``<id>.lock``.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import json
import logging
import os
import re
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self, final, runtime_checkable

from dsh._data_dir import user_data_dir
from dsh._frozen import frozen, slotted
from dsh.base import DshError
from dsh.session._codec import (
    DECODERS,
    HEADER_TYPE,
    EventDecodeError,
    decode_event_dict,
    encode_line,
    restamp,
)
from dsh.session._event_base import OpaqueEvent, SessionEvent

__all__ = [
    "DATA_DIR_ENV",
    "JsonlSessionLog",
    "JsonlSessionStore",
    "RecoveredTail",
    "SessionCorruptError",
    "SessionError",
    "SessionInfo",
    "SessionLockedError",
    "SessionLog",
    "SessionNotFoundError",
    "SessionStore",
    "default_data_dir",
    "new_session_id",
    "stamp_events",
]

log = logging.getLogger("dsh.session")

DATA_DIR_ENV = "DSH_DATA_DIR"
FORMAT_VERSION = 1
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def default_data_dir() -> Path:
    """Where sessions live: ``$DSH_DATA_DIR``, else the platform's user data dir / ``sessions``."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return user_data_dir() / "sessions"


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


class SessionError(DshError):
    """A session store operation failed."""


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

    def __init__(self, path: Path, offset: int, problem: str) -> None:
        super().__init__(f"{path}: at byte {offset}: {problem}")
        self.path = path
        self.offset = offset
        self.problem = problem


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
    """One stored session, from its header (``path`` is None in memory)."""

    id: str
    created: float
    forked_from: str | None
    path: Path | None = None
    modified: float | None = None
    size: int | None = None


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
    def events(self) -> tuple[SessionEvent, ...]: ...
    @property
    def recovered(self) -> RecoveredTail | None: ...
    @property
    def closed(self) -> bool: ...

    def append(self, event: SessionEvent) -> SessionEvent: ...
    def append_many(self, events: Iterable[SessionEvent]) -> tuple[SessionEvent, ...]: ...
    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class SessionStore(Protocol):
    def create(self, *, forked_from: str | None = None) -> SessionLog: ...
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


class _LogBase:
    """The bookkeeping every log shares; subclasses make a batch durable in ``_commit``."""

    def __init__(
        self, session_id: str, forked_from: str | None, events: Sequence[SessionEvent]
    ) -> None:
        self._id = session_id
        self._forked_from = forked_from
        self._events: list[SessionEvent] = list(events)
        self._snapshot: tuple[SessionEvent, ...] | None = None
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
    def events(self) -> tuple[SessionEvent, ...]:
        snap = self._snapshot
        if snap is None:
            snap = self._snapshot = tuple(self._events)
        return snap

    @property
    def recovered(self) -> RecoveredTail | None:
        return self._recovered

    @property
    def closed(self) -> bool:
        return self._closed

    def append(self, event: SessionEvent) -> SessionEvent:
        """Stamp ``event`` and make it durable; returns the stamped event."""
        return self.append_many((event,))[0]

    def append_many(self, events: Iterable[SessionEvent]) -> tuple[SessionEvent, ...]:
        """Stamp and commit several events together (one write, one fsync)."""
        with self._mutex:
            if self._closed:
                raise SessionError(f"session {self._id!r} is closed")
            lines, stamped = stamp_events(events, self._id, len(self._events))
            if not stamped:
                return ()
            self._commit(lines, stamped)
            self._events.extend(stamped)
            self._snapshot = None
            return tuple(stamped)

    def _commit(self, lines: list[bytes], stamped: list[SessionEvent]) -> None:
        """Make ``lines`` durable (they are ``stamped``), or raise having stored none."""
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
        return f"<{type(self).__name__} {self._id} {state}, {len(self._events)} events>"


# --- the JSONL store ----------------------------------------------------------


@final
class JsonlSessionLog(_LogBase):
    """An open JSONL session, holding its writer lock until ``close()``."""

    def __init__(
        self,
        *,
        session_id: str,
        path: Path,
        forked_from: str | None,
        events: Sequence[SessionEvent],
        lock_fd: int,
        recovered: RecoveredTail | None = None,
    ) -> None:
        super().__init__(session_id, forked_from, events)
        self._path = path
        self._lock_fd = lock_fd
        self._recovered = recovered
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        self._size = os.fstat(self._fd).st_size
        self._broken: str | None = None

    @property
    def path(self) -> Path:
        return self._path

    def _commit(self, lines: list[bytes], stamped: list[SessionEvent]) -> None:
        if self._broken is not None:
            raise SessionError(
                f"{self._path}: not writable after an earlier failure: {self._broken}"
            )
        lines.append(b"")
        data = b"\n".join(lines)
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        except BaseException as exc:
            self._undo_partial_write(exc)
            raise
        try:
            os.fsync(self._fd)
        except BaseException as exc:
            # After a failed fsync the page cache state is unknown: stop writing.
            self._broken = f"fsync failed: {exc!r}"
            raise
        self._size += len(data)

    def _undo_partial_write(self, exc: BaseException) -> None:
        # A partial line would sit under the next append: cut back to the last commit.
        try:
            os.ftruncate(self._fd, self._size)
            os.fsync(self._fd)
        except OSError as undo_exc:
            self._broken = f"write failed ({exc!r}) and could not be undone ({undo_exc!r})"

    def _release(self) -> None:
        os.close(self._fd)
        os.close(self._lock_fd)


@final
class JsonlSessionStore:
    """Sessions as JSONL files under ``data_dir`` (default: ``default_data_dir()``)."""

    def __init__(self, data_dir: Path | str | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()

    def __repr__(self) -> str:
        return f"JsonlSessionStore({str(self.data_dir)!r})"

    def log_path(self, session_id: str) -> Path:
        return self.data_dir / f"{check_session_id(session_id)}.jsonl"

    def sidecar_path(self, session_id: str) -> Path:
        return self.data_dir / f"{check_session_id(session_id)}.jsonl.corrupt"

    def lock_path(self, session_id: str) -> Path:
        return self.data_dir / f"{check_session_id(session_id)}.lock"

    # -- writers --

    def create(self, *, forked_from: str | None = None) -> JsonlSessionLog:
        """A new, empty session, open for writing."""
        if forked_from is not None:
            check_session_id(forked_from)
        return self._create(forked_from, b"", ())

    def fork(self, session_id: str) -> JsonlSessionLog:
        """A new session holding a copy of ``session_id``'s history, remembered as its fork.

        The events are copied byte for byte (unknown types included); a source
        that another process is writing is read up to its last complete event.
        """
        path = self._existing(session_id)
        scan = _scan(path, path.read_bytes(), session_id)
        return self._create(session_id, scan.body, scan.events)

    def open(self, session_id: str) -> JsonlSessionLog:
        """An existing session, open for writing: takes its lock, recovers a torn tail."""
        path = self._existing(session_id)
        lock_fd = self._lock(session_id)
        try:
            data = path.read_bytes()
            scan = _scan(path, data, session_id)
            recovered = None
            if scan.tail_offset is not None:
                recovered = self._recover(session_id, path, data, scan.tail_offset, scan.problem)
            return JsonlSessionLog(
                session_id=session_id,
                path=path,
                forked_from=scan.forked_from,
                events=scan.events,
                lock_fd=lock_fd,
                recovered=recovered,
            )
        except BaseException:
            os.close(lock_fd)
            raise

    # -- readers --

    def load(self, session_id: str) -> tuple[SessionEvent, ...]:
        """A session's events, without taking its lock or changing its file.

        A torn or corrupt tail is left where it is (a writer may be mid-append).
        """
        path = self._existing(session_id)
        return tuple(_scan(path, path.read_bytes(), session_id).events)

    def list(self) -> list[SessionInfo]:
        """Every session under the data dir, oldest first (from each file's header)."""
        if not self.data_dir.is_dir():
            return []
        infos = []
        for path in self.data_dir.glob("*.jsonl"):
            try:
                with path.open("rb") as f:
                    first = f.readline()
                    stat = os.fstat(f.fileno())
                header = _parse_header(path, first, path.name[: -len(".jsonl")])
            except (OSError, SessionError) as exc:
                log.warning("skipping %s: %s", path, exc)
                continue
            infos.append(
                SessionInfo(
                    id=header["id"],
                    created=float(header["created"]),
                    forked_from=header.get("forked_from"),
                    path=path,
                    modified=stat.st_mtime,
                    size=stat.st_size,
                )
            )
        infos.sort(key=lambda i: (i.created, i.id))
        return infos

    # -- internals --

    def _existing(self, session_id: str) -> Path:
        path = self.log_path(session_id)
        if not path.is_file():
            raise SessionNotFoundError(session_id, str(self.data_dir))
        return path

    def _lock(self, session_id: str) -> int:
        lock_path = self.lock_path(session_id)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = None
            with contextlib.suppress(OSError):
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or None
            os.close(fd)
            raise SessionLockedError(session_id, lock_path, holder) from None
        except BaseException:
            os.close(fd)
            raise
        # The lock file is never deleted: unlinking it would let two writers
        # lock two different inodes. Its content only names the holder.
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return fd

    def _create(
        self, forked_from: str | None, body: bytes, events: Sequence[SessionEvent]
    ) -> JsonlSessionLog:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        session_id = new_session_id()
        path = self.log_path(session_id)
        lock_fd = self._lock(session_id)
        try:
            header: dict[str, Any] = {
                "type": HEADER_TYPE,
                "version": FORMAT_VERSION,
                "id": session_id,
                "created": time.time(),
                "forked_from": forked_from,
            }
            if forked_from is not None:
                header["forked_at"] = len(events)
            data = json.dumps(header, separators=(",", ":")).encode() + b"\n" + body
            # Written whole under a temporary name, then renamed: a crash never
            # leaves a log without its header.
            tmp = self.data_dir / f".{session_id}.jsonl.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(tmp, path)
            _fsync_dir(self.data_dir)
            return JsonlSessionLog(
                session_id=session_id,
                path=path,
                forked_from=forked_from,
                events=events,
                lock_fd=lock_fd,
            )
        except BaseException:
            os.close(lock_fd)
            raise

    def _recover(
        self, session_id: str, path: Path, data: bytes, offset: int, problem: str
    ) -> RecoveredTail:
        tail = data[offset:]
        sidecar = self.sidecar_path(session_id)
        # Sidecar first: a crash between the two steps duplicates the tail
        # in the sidecar, it never loses it.
        fd = os.open(sidecar, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(tail)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        fd = os.open(path, os.O_WRONLY)
        try:
            os.ftruncate(fd, offset)
            os.fsync(fd)
        finally:
            os.close(fd)
        _fsync_dir(self.data_dir)
        log.warning(
            "session log %s: %s at byte %d; moved %d bytes to %s",
            path,
            problem,
            offset,
            len(tail),
            sidecar,
        )
        return RecoveredTail(
            path=path, offset=offset, length=len(tail), sidecar=sidecar, problem=problem
        )


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --- reading a log ------------------------------------------------------------


@slotted
class _Scan:
    forked_from: str | None
    events: list[SessionEvent]
    body: bytes  # the complete event lines, as stored
    tail_offset: int | None  # where a torn or corrupt tail begins
    problem: str


def _parse_header(path: Path, line: bytes, expected_id: str) -> dict[str, Any]:
    if not line.endswith(b"\n"):
        raise SessionCorruptError(path, 0, "the header line is missing or torn")
    try:
        header = json.loads(line)
    except ValueError as exc:
        raise SessionCorruptError(path, 0, f"the header line is not JSON: {exc}") from None
    if not isinstance(header, dict) or header.get("type") != HEADER_TYPE:
        raise SessionCorruptError(path, 0, f"the first line is not a {HEADER_TYPE!r} record")
    if header.get("version") != FORMAT_VERSION:
        raise SessionCorruptError(
            path, 0, f"unsupported log format version {header.get('version')!r}"
        )
    if header.get("id") != expected_id:
        raise SessionCorruptError(
            path, 0, f"the header names session {header.get('id')!r}, not {expected_id!r}"
        )
    if not isinstance(header.get("created"), (int, float)) or not isinstance(
        header.get("forked_from"), (str, type(None))
    ):
        raise SessionCorruptError(path, 0, "the header's 'created' or 'forked_from' is malformed")
    return header


def _scan(path: Path, data: bytes, session_id: str) -> _Scan:
    # A reload allocates a few objects per event and frees none: the cyclic
    # collector would re-walk the growing list over and over (about a third of
    # the time), so it pauses for the scan.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _scan_unpaused(path, data, session_id)
    finally:
        if paused:
            gc.enable()


def _scan_unpaused(path: Path, data: bytes, session_id: str) -> _Scan:
    """Decode a whole log: header, then events up to the first torn or corrupt line.

    A line that is not JSON, or not terminated, starts the tail (a crash
    artifact). A JSON line whose known type does not decode is not a crash
    artifact: that raises ``SessionCorruptError``.
    """
    first_nl = data.find(b"\n")
    header = _parse_header(path, data[: first_nl + 1] if first_nl >= 0 else data, session_id)
    start = first_nl + 1
    # Fast path: decode the valid UTF-8 prefix once and split it into str lines.
    try:
        text = data[start:].decode("utf-8")
        valid = len(data)
    except UnicodeDecodeError as exc:
        valid = data.rfind(b"\n", start, start + exc.start) + 1
        valid = max(valid, start)
        text = data[start:valid].decode("utf-8")
    ascii_only = text.isascii()
    events: list[SessionEvent] = []
    append = events.append
    loads = json.loads
    decoders = DECODERS
    pos = 0  # char offset in text
    tail_char: int | None = None
    problem = ""
    lines = text.split("\n")
    last = len(lines) - 1  # lines[last] is "" when text ends with a newline
    for i, line in enumerate(lines):
        if i == last:
            if line:
                tail_char, problem = pos, "a torn last line (no newline)"
            break
        try:
            d = loads(line)
            decode = decoders[d["type"]]
        except (ValueError, TypeError, KeyError, IndexError):
            event = _decode_other(path, line, pos, text, start, ascii_only)
            if event is None:
                tail_char, problem = pos, "a line that is not a JSON event"
                break
            append(event)
        else:
            try:
                append(decode(d))
            except EventDecodeError as exc:
                raise SessionCorruptError(
                    path, _byte_offset(text, pos, start, ascii_only), str(exc)
                ) from None
        pos += len(line) + 1
    if tail_char is not None:
        tail = _byte_offset(text, tail_char, start, ascii_only)
    elif valid < len(data):
        tail, problem = valid, "a line that is not UTF-8"
    else:
        tail = None
    end = tail if tail is not None else len(data)
    if tail is not None and end < len(data):
        following = data[end:].count(b"\n") - 1
        if following > 0:
            problem += f" ({following} later line(s) are in the tail too)"
    return _Scan(
        forked_from=header["forked_from"],
        events=events,
        body=data[start:end],
        tail_offset=tail,
        problem=problem,
    )


def _decode_other(
    path: Path, line: str, pos: int, text: str, start: int, ascii_only: bool
) -> SessionEvent | None:
    """A line the fast path refused: an unknown type (opaque), or None for a corrupt line."""
    try:
        d = json.loads(line)
    except ValueError:
        return None
    if not isinstance(d, dict) or not isinstance(d.get("type"), str):
        return None
    try:
        return decode_event_dict(d, line.encode("utf-8"))
    except EventDecodeError as exc:
        raise SessionCorruptError(
            path, _byte_offset(text, pos, start, ascii_only), str(exc)
        ) from None


def _byte_offset(text: str, char_pos: int, start: int, ascii_only: bool) -> int:
    if ascii_only:
        return start + char_pos
    return start + len(text[:char_pos].encode("utf-8"))
