"""The default session store: sessions as JSONL files under a data directory.

One file per session, ``<data_dir>/<id>.jsonl``: a header line, then one line
per event (see docs/session-log.md). An append is written with one ``write``
and made durable with ``fsync`` before it returns (``durable=False``: the
next durable append's ``fsync`` covers it); ``append_many`` is one group
commit. A crash at any byte leaves at most one torn tail, which the next
``open`` moves to ``<id>.jsonl.corrupt`` (appending, never deleting) and
reports. One writer per session, enforced with ``flock`` on ``<id>.lock``.
Every file is 0600 in a 0700 directory and never opened through a symlink.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import final

from dsh._data_dir import user_data_dir
from dsh.session._event_base import SessionEvent
from dsh.session._jsonl_format import parse_header, recover_tail, scan_log, write_new_log
from dsh.session._private_files import (
    make_private_dir,
    open_private,
    read_private,
    refuse_symlink,
)
from dsh.session._projection import Projection
from dsh.session._session_error import SessionError, SessionWriteError, write_failure
from dsh.session._store_base import (
    RecoveredTail,
    SessionInfo,
    SessionNotFoundError,
    _LogBase,
    check_session_id,
    new_session_id,
)
from dsh.session._stored_events import StoredEvents
from dsh.session._writer_lock import take_writer_lock

__all__ = ["DATA_DIR_ENV", "JsonlSessionLog", "JsonlSessionStore", "default_data_dir"]

log = logging.getLogger("dsh.session")

DATA_DIR_ENV = "DSH_DATA_DIR"
_MAX_HEADER_BYTES = 1 << 20


def default_data_dir() -> Path:
    """Where sessions live: ``$DSH_DATA_DIR``, else the platform's user data dir / ``sessions``."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return user_data_dir() / "sessions"


def _project(header: dict[str, object]) -> str | None:
    """The header's ``project`` (older logs have none; a malformed one counts as none)."""
    value = header.get("project")
    return value if isinstance(value, str) and value and "\x00" not in value else None


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
        projection: Projection | None = None,
    ) -> None:
        super().__init__(session_id, forked_from, events, projection)
        self._path = path
        self._lock_fd = lock_fd
        self._recovered = recovered
        self._fd = open_private(path, os.O_WRONLY | os.O_APPEND)
        st = os.fstat(self._fd)
        self._size = st.st_size
        self._inode = (st.st_dev, st.st_ino)  # to notice the file deleted under the session
        self._broken: str | None = None
        self._unsynced = False  # lines written with durable=False and not fsynced since

    @property
    def path(self) -> Path:
        return self._path

    def _commit(self, lines: list[bytes], stamped: list[SessionEvent], durable: bool) -> None:
        if self._broken is not None:
            raise SessionWriteError(
                self._path, f"not writable after an earlier failure: {self._broken}"
            )
        lines.append(b"")
        data = b"\n".join(lines)
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        except OSError as exc:
            # Disk full, a file-size limit, an I/O error: the log keeps what it had, and
            # takes nothing more (the turn stops; the caller says why, naming the file).
            self._undo_partial_write(exc)
            error = write_failure(self._path, exc)
            self._broken = self._broken or error.reason
            raise error from None
        except BaseException as exc:
            self._undo_partial_write(exc)
            raise
        self._size += len(data)
        self._unsynced = True
        if durable:
            self._sync()

    def _sync(self) -> None:
        # One fsync makes every line written before it durable: deferred ones too.
        try:
            os.fsync(self._fd)
        except OSError as exc:
            # After a failed fsync the page cache state is unknown: stop writing.
            self._broken = f"fsync failed: {exc.strerror or exc}"
            raise write_failure(self._path, exc) from None
        except BaseException as exc:
            self._broken = f"fsync failed: {exc!r}"
            raise
        self._unsynced = False
        self._check_in_place()

    def _check_in_place(self) -> None:
        """``SessionWriteError`` when the log's file is no longer at its path (deleted, or
        its directory): what is written lands in a file nobody can read, so the run stops
        rather than report a log path that does not exist."""
        try:
            st = os.stat(self._path, follow_symlinks=False)
            here = (st.st_dev, st.st_ino) == self._inode
        except OSError:
            here = False
        if not here:
            self._broken = "the file was deleted or replaced while the session ran"
            raise SessionWriteError(
                self._path,
                f"{self._broken}; what this run recorded went with it, and the run stops",
            )

    def _undo_partial_write(self, exc: BaseException) -> None:
        # A partial line would sit under the next append: cut back to the last commit.
        try:
            os.ftruncate(self._fd, self._size)
            os.fsync(self._fd)
        except OSError as undo_exc:
            self._broken = f"write failed ({exc!r}) and could not be undone ({undo_exc!r})"

    def _release(self) -> None:
        try:
            if self._broken is None:
                self._sync() if self._unsynced else self._check_in_place()
        except OSError as exc:
            log.warning("%s: the last deferred lines may not be durable: %s", self._path, exc)
        finally:
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

    def create(
        self,
        *,
        forked_from: str | None = None,
        project: str | None = None,
        session_id: str | None = None,
    ) -> JsonlSessionLog:
        """A new, empty session, open for writing; its header records ``project`` if given;
        ``session_id``: the id the caller chose for it (one taken raises ``SessionError``)."""
        if forked_from is not None:
            check_session_id(forked_from)
        return self._create(forked_from, b"", (), project, session_id=session_id)

    def fork(self, session_id: str) -> JsonlSessionLog:
        """A new session holding a copy of ``session_id``'s history, remembered as its fork.

        The events are copied byte for byte (unknown types included); a source
        that another process is writing is read up to its last complete event.
        """
        path = self._existing(session_id)
        scan = scan_log(path, session_id, light=True)
        # The complete lines as they were scanned: a log is only ever appended to before them.
        body = read_private(path, scan.end)[scan.start :]  # never the tail after it
        return self._create(
            session_id, body, scan.events, projection=scan.projection, body_start=scan.start
        )

    def open(self, session_id: str) -> JsonlSessionLog:
        """An existing session, open for writing: takes its lock, recovers a torn tail."""
        path = self._existing(session_id)
        lock_fd = take_writer_lock(session_id, self.lock_path(session_id))
        try:
            scan = scan_log(path, session_id, light=True)
            recovered = None
            if scan.tail_offset is not None:
                sidecar = self.sidecar_path(session_id)
                try:
                    recovered = recover_tail(path, sidecar, scan.tail_offset, scan.problem)
                except OSError as exc:  # disk full: the log is left as it was
                    raise write_failure(sidecar, exc) from None
            return JsonlSessionLog(
                session_id=session_id,
                path=path,
                forked_from=scan.forked_from,
                events=scan.events,
                lock_fd=lock_fd,
                recovered=recovered,
                projection=scan.projection,
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
        return tuple(scan_log(path, session_id).events)

    def list(self, *, skipped: list[tuple[Path, str]] | None = None) -> list[SessionInfo]:
        """Every session under the data dir, oldest first (from each file's header).

        A file whose header cannot be read is left out: named in ``skipped`` (path, why)
        when given, else in a logged warning.
        """
        if not self.data_dir.is_dir():
            return []
        infos = []
        for path in self.data_dir.glob("*.jsonl"):
            try:
                with os.fdopen(open_private(path, os.O_RDONLY), "rb") as f:
                    first = f.readline(_MAX_HEADER_BYTES)  # a torn header is not held
                    stat = os.fstat(f.fileno())
                header = parse_header(path, first, path.name[: -len(".jsonl")])
            except (OSError, SessionError) as exc:
                if skipped is None:
                    log.warning("skipping %s: %s", path, exc)
                else:
                    skipped.append((path, str(exc)))
                continue
            infos.append(
                SessionInfo(
                    id=header["id"],
                    created=float(header["created"]),
                    forked_from=header.get("forked_from"),
                    project=_project(header),
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
        refuse_symlink(path)
        if not path.is_file():
            raise SessionNotFoundError(session_id, str(self.data_dir))
        return path

    def _create(
        self,
        forked_from: str | None,
        body: bytes,
        events: Sequence[SessionEvent],
        project: str | None = None,
        *,
        projection: Projection | None = None,
        body_start: int = 0,
        session_id: str | None = None,
    ) -> JsonlSessionLog:
        make_private_dir(self.data_dir)
        chosen = session_id is not None
        session_id = new_session_id() if session_id is None else check_session_id(session_id)
        path = self.log_path(session_id)
        lock_fd = take_writer_lock(session_id, self.lock_path(session_id))
        try:
            if chosen and os.path.lexists(path):  # under the lock: never replace a log
                raise SessionError(f"session {session_id!r} exists already ({path})")
            try:
                start = write_new_log(path, session_id, forked_from, body, len(events), project)
            except BaseException:
                # A session that never came to be leaves nothing behind: nobody else
                # knows its new id, so its lock file can go with it.
                with contextlib.suppress(OSError):
                    os.unlink(self.lock_path(session_id))
                raise
            if isinstance(events, StoredEvents):  # the copy's lines, where the copy has them
                events = events.moved(path, start - body_start)
            return JsonlSessionLog(
                session_id=session_id,
                path=path,
                forked_from=forked_from,
                events=events,
                lock_fd=lock_fd,
                projection=projection,
            )
        except BaseException:
            os.close(lock_fd)
            raise
