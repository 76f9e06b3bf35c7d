"""The JSONL log file: its header, writing a new log whole, reading one, recovering a torn tail.

A log is a header line, then one line per event (see docs/session-log.md).
Reading stops at the first torn or corrupt line; ``recover_tail`` moves what
follows to the sidecar (appending, never deleting), and nothing else here ever
changes a log that exists.
"""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Final

from dsh._frozen import slotted
from dsh.session._codec import decode_event_dict, decode_stored_line, loads_for
from dsh.session._codec_values import EventDecodeError
from dsh.session._event_base import SessionEvent
from dsh.session._event_registry import DECODERS, HEADER_TYPE
from dsh.session._private_files import open_private
from dsh.session._projection import Projection
from dsh.session._session_error import write_failure
from dsh.session._store_base import RecoveredTail, SessionCorruptError
from dsh.session._stored_events import StoredEventsBuilder

__all__ = [
    "FORMAT_VERSION",
    "TAIL_KEPT",
    "Scan",
    "parse_header",
    "recover_tail",
    "scan_log",
    "write_new_log",
]

log = logging.getLogger("dsh.session")

FORMAT_VERSION = 1


# --- writing ------------------------------------------------------------------


def write_new_log(
    path: Path,
    session_id: str,
    forked_from: str | None,
    body: bytes,
    copied: int,
    project: str | None = None,
) -> int:
    """Write the log at ``path`` whole: its header, then ``body`` (``copied`` events of a fork);
    returns where ``body`` begins.

    ``project``, when given, is the directory the session runs in (a resume runs there too).
    """
    data_dir = path.parent
    header: dict[str, Any] = {
        "type": HEADER_TYPE,
        "version": FORMAT_VERSION,
        "id": session_id,
        "created": time.time(),
        "forked_from": forked_from,
    }
    if forked_from is not None:
        header["forked_at"] = copied
    if project is not None:
        header["project"] = project
    head = json.dumps(header, separators=(",", ":")).encode() + b"\n"
    data = head + body
    # Written whole under a temporary name, then renamed: a crash never
    # leaves a log without its header.
    tmp = data_dir / f".{session_id}.jsonl.tmp"
    try:
        _write_synced(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, data)
        os.rename(tmp, path)
        _fsync_dir(data_dir)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # a log that could not be written whole leaves nothing behind
        raise write_failure(path, exc) from None
    return len(head)


TAIL_KEPT: Final = 1 << 20
"""How much of each end of a torn tail the sidecar keeps (a tail over twice this keeps its
first and last ``TAIL_KEPT`` bytes with a note between): recovery runs in bounded memory
and a crash artifact of any size costs the disk at most ~2 MiB."""


def recover_tail(path: Path, sidecar: Path, offset: int, problem: str) -> RecoveredTail:
    """Move the log's bytes from ``offset`` on to ``sidecar`` (streamed; a tail over
    ``2 * TAIL_KEPT`` bytes keeps its two ends), then cut the log there."""
    fd = open_private(path, os.O_RDWR)
    try:
        length = os.fstat(fd).st_size - offset
        # Sidecar first: a crash between the two steps duplicates the tail
        # in the sidecar, it never loses it.
        out = open_private(sidecar, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            _copy_tail(fd, out, offset, length)
            os.fsync(out)
        finally:
            os.close(out)
        os.ftruncate(fd, offset)
        os.fsync(fd)
    finally:
        os.close(fd)
    _fsync_dir(path.parent)
    kept = "" if length <= 2 * TAIL_KEPT else f" (its first and last {TAIL_KEPT:,} bytes)"
    log.warning(
        "session log %s: %s at byte %d; moved %d bytes%s to %s",
        path,
        problem,
        offset,
        length,
        kept,
        sidecar,
    )
    return RecoveredTail(path=path, offset=offset, length=length, sidecar=sidecar, problem=problem)


def _copy_tail(src: int, out: int, offset: int, length: int) -> None:
    if length <= 2 * TAIL_KEPT:
        _copy(src, out, offset, length)
        return
    _copy(src, out, offset, TAIL_KEPT)
    left_out = length - 2 * TAIL_KEPT
    note = f"\n[dsh: {left_out:,} bytes of this {length:,}-byte tail left out]\n"
    _write_all(out, note.encode())
    _copy(src, out, offset + length - TAIL_KEPT, TAIL_KEPT)


def _copy(src: int, out: int, offset: int, length: int) -> None:
    while length > 0:
        chunk = os.pread(src, min(length, _BUFFER), offset)
        if not chunk:
            return
        _write_all(out, chunk)
        offset += len(chunk)
        length -= len(chunk)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _write_synced(path: Path, flags: int, data: bytes) -> None:
    """All of ``data`` written to ``path`` (``flags``, never through a link), fsynced."""
    fd = open_private(path, flags)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --- reading -----------------------------------------------------------------


@slotted
class Scan:
    forked_from: str | None
    events: Sequence[SessionEvent]  # a list, or ``StoredEvents`` for a light scan
    projection: Projection | None  # the model view of ``events`` (a light scan's only)
    start: int  # where the event lines begin (after the header)
    end: int  # where the complete event lines end
    tail_offset: int | None  # where a torn or corrupt tail begins
    problem: str


def parse_header(path: Path, line: bytes, expected_id: str) -> dict[str, Any]:
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


def scan_log(path: Path, session_id: str, *, light: bool = False) -> Scan:
    """Read the log at ``path`` (never through a link): header, then events up to the
    first torn or corrupt line.

    Read a buffer at a time and decoded line by line, so a reload holds its
    events and one buffer, not the file and its lines as well. ``light``: each
    event, once decoded and checked, is folded into the scan's projection and
    kept only as its line (``StoredEvents``), not as an object. A reload
    allocates a few objects per event and frees none: the cyclic collector
    would re-walk the growing list over and over (about a third of the time),
    so it pauses for the scan.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        with os.fdopen(open_private(path, os.O_RDONLY), "rb", buffering=_BUFFER) as f:
            return _scan(path, f, session_id, light)
    finally:
        if paused:
            gc.enable()


_BUFFER = 1 << 20


def _scan(path: Path, f: BinaryIO, session_id: str, light: bool) -> Scan:
    """A line that is not UTF-8, not JSON, or not terminated starts the tail (a crash
    artifact). A JSON line whose known type does not decode is not a crash
    artifact: that raises ``SessionCorruptError``.
    """
    first = f.readline(_BUFFER)  # a header is ~200 bytes: a longer first line is torn
    header = parse_header(path, first, session_id)
    start = pos = len(first)
    events: list[SessionEvent] = []
    stored = StoredEventsBuilder(path, start) if light else None
    projection = Projection() if light else None
    keep: Callable[[bytes, SessionEvent], None] = (
        _keeper(stored, projection) if stored and projection else _collector(events)
    )
    loads = loads_for(os.fstat(f.fileno()).st_size)
    decoders = DECODERS
    torn = False
    problem = ""
    number = 1  # the header
    while raw := f.readline(_BUFFER):
        number += 1
        if len(raw) == _BUFFER and not raw.endswith(b"\n"):
            whole = _long_line(f, pos)  # read whole only if it ends: a torn tail never is
            if whole is None:
                torn, problem = True, "a torn last line (no newline)"
                break
            raw = whole
        complete = raw.endswith(b"\n")
        try:
            line = (raw[:-1] if complete else raw).decode("utf-8")
        except UnicodeDecodeError:
            torn, problem = True, "a line that is not UTF-8"
            break
        if not complete:
            torn, problem = True, "a torn last line (no newline)"
            break
        try:
            d = loads(line)
            decode = decoders[d["type"]]
        except (ValueError, TypeError, KeyError, IndexError, RecursionError):
            event = _decode_other(path, line, pos, number)
            if event is None:
                torn, problem = True, f"line {number} is not a JSON event"
                break
        else:
            try:
                event = decode(d)
            except EventDecodeError as exc:
                raise SessionCorruptError(path, pos, str(exc), line=number) from None
        keep(raw, event)
        pos += len(raw)
    if torn:
        following = _newlines(f)  # after the tail's first line, streamed
        if following > 0:
            problem += f" ({following} later line(s) are in the tail too)"
    return Scan(
        forked_from=header["forked_from"],
        events=events if stored is None else stored.finish(decode_stored_line, _corrupt(path)),
        projection=projection,
        start=start,
        end=pos,
        tail_offset=pos if torn else None,
        problem=problem,
    )


def _long_line(f: BinaryIO, start: int) -> bytes | None:
    """The line at ``start`` when a newline ends it (read whole, as any event line),
    else ``None`` with ``f`` at the end: a torn tail is looked through, never held."""
    while chunk := f.read(_BUFFER):
        at = chunk.find(b"\n")
        if at >= 0:
            end = f.tell() - len(chunk) + at + 1
            f.seek(start)
            return f.read(end - start)
    return None


def _newlines(f: BinaryIO) -> int:
    """The newlines from ``f``'s position to its end, counted a buffer at a time."""
    count = 0
    while chunk := f.read(_BUFFER):
        count += chunk.count(b"\n")
    return count


def _collector(events: list[SessionEvent]) -> Callable[[bytes, SessionEvent], None]:
    append = events.append

    def keep(raw: bytes, event: SessionEvent) -> None:
        append(event)

    return keep


def _keeper(
    stored: StoredEventsBuilder, projection: Projection
) -> Callable[[bytes, SessionEvent], None]:
    add_line = stored.add
    fold = projection.add

    def keep(raw: bytes, event: SessionEvent) -> None:
        fold(event)
        add_line(raw, event.type)

    return keep


def _corrupt(path: Path) -> Callable[[int, int, str], Exception]:
    def error(offset: int, line: int, problem: str) -> Exception:
        return SessionCorruptError(path, offset, problem, line=line)

    return error


def _decode_other(path: Path, line: str, pos: int, number: int) -> SessionEvent | None:
    """A line the fast path refused: an unknown type (opaque), or None for a corrupt line."""
    try:
        d = json.loads(line)
    except (ValueError, RecursionError):
        # Nesting past the stack is no line dsh writes (freezing refuses it first).
        return None
    if not isinstance(d, dict) or not isinstance(d.get("type"), str):
        return None
    try:
        return decode_event_dict(d, line.encode("utf-8"))
    except EventDecodeError as exc:
        raise SessionCorruptError(path, pos, str(exc), line=number) from None
