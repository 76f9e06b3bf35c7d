"""The JSONL log file: its header, writing a new log whole, reading one, recovering a torn tail.

A log is a header line, then one line per event (see docs/session-log.md).
Reading stops at the first torn or corrupt line; ``recover_tail`` moves what
follows to the sidecar (appending, never deleting), and nothing else here ever
changes a log that exists.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from dsh._frozen import slotted
from dsh.session._codec import decode_event_dict
from dsh.session._codec_values import EventDecodeError
from dsh.session._event_base import SessionEvent
from dsh.session._event_registry import DECODERS, HEADER_TYPE
from dsh.session._private_files import open_private
from dsh.session._store_base import RecoveredTail, SessionCorruptError

__all__ = ["FORMAT_VERSION", "Scan", "parse_header", "recover_tail", "scan_log", "write_new_log"]

log = logging.getLogger("dsh.session")

FORMAT_VERSION = 1


# --- writing ------------------------------------------------------------------


def write_new_log(
    path: Path, session_id: str, forked_from: str | None, body: bytes, copied: int
) -> None:
    """Write the log at ``path`` whole: its header, then ``body`` (``copied`` events of a fork)."""
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
    data = json.dumps(header, separators=(",", ":")).encode() + b"\n" + body
    # Written whole under a temporary name, then renamed: a crash never
    # leaves a log without its header.
    tmp = data_dir / f".{session_id}.jsonl.tmp"
    _write_synced(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, data)
    os.rename(tmp, path)
    _fsync_dir(data_dir)


def recover_tail(
    path: Path, sidecar: Path, data: bytes, offset: int, problem: str
) -> RecoveredTail:
    """Move the log's bytes from ``offset`` on (``data`` is its content) to ``sidecar``."""
    tail = data[offset:]
    # Sidecar first: a crash between the two steps duplicates the tail
    # in the sidecar, it never loses it.
    _write_synced(sidecar, os.O_WRONLY | os.O_APPEND | os.O_CREAT, tail)
    fd = open_private(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, offset)
        os.fsync(fd)
    finally:
        os.close(fd)
    _fsync_dir(path.parent)
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


def _write_synced(path: Path, flags: int, data: bytes) -> None:
    """All of ``data`` written to ``path`` (``flags``, never through a link), fsynced."""
    fd = open_private(path, flags)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
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
    events: list[SessionEvent]
    data: bytes  # the whole file as read
    start: int  # where the event lines begin in it
    end: int  # where the complete event lines end
    tail_offset: int | None  # where a torn or corrupt tail begins
    problem: str

    @property
    def body(self) -> bytes:
        """The complete event lines, as stored (copied only when asked for: a fork)."""
        return self.data[self.start : self.end]


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


def scan_log(path: Path, data: bytes, session_id: str) -> Scan:
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


def _scan_unpaused(path: Path, data: bytes, session_id: str) -> Scan:
    """Decode a whole log: header, then events up to the first torn or corrupt line.

    A line that is not JSON, or not terminated, starts the tail (a crash
    artifact). A JSON line whose known type does not decode is not a crash
    artifact: that raises ``SessionCorruptError``.
    """
    first_nl = data.find(b"\n")
    header = parse_header(path, data[: first_nl + 1] if first_nl >= 0 else data, session_id)
    start = first_nl + 1
    # Fast path: decode the valid UTF-8 prefix once and split it into str lines; each
    # line is dropped once decoded, so the events reuse its memory (a resume's peak).
    text, valid = _utf8_prefix(data, start)
    lines = text.split("\n")
    del text
    events: list[SessionEvent] = []
    append = events.append
    loads = json.loads
    decoders = DECODERS
    tail_line: int | None = None
    problem = ""
    last = len(lines) - 1  # lines[last] is "" when text ends with a newline
    for i in range(len(lines)):
        line = lines[i]
        lines[i] = ""
        if i == last:
            if line:
                tail_line, problem = i, "a torn last line (no newline)"
            break
        try:
            d = loads(line)
            decode = decoders[d["type"]]
        except (ValueError, TypeError, KeyError, IndexError, RecursionError):
            event = _decode_other(path, line, data, start, i)
            if event is None:
                tail_line, problem = i, "a line that is not a JSON event"
                break
            append(event)
        else:
            try:
                append(decode(d))
            except EventDecodeError as exc:
                raise SessionCorruptError(path, _line_offset(data, start, i), str(exc)) from None
    if tail_line is not None:
        tail: int | None = _line_offset(data, start, tail_line)
    elif valid < len(data):
        tail, problem = valid, "a line that is not UTF-8"
    else:
        tail = None
    end = tail if tail is not None else len(data)
    if tail is not None:
        problem += _later_lines(data, tail)
    return Scan(
        forked_from=header["forked_from"],
        events=events,
        data=data,
        start=start,
        end=end,
        tail_offset=tail,
        problem=problem,
    )


def _utf8_prefix(data: bytes, start: int) -> tuple[str, int]:
    """``data[start:]`` decoded up to its first line that is not UTF-8, and where that begins."""
    try:
        return data[start:].decode("utf-8"), len(data)
    except UnicodeDecodeError as exc:
        valid = data.rfind(b"\n", start, start + exc.start) + 1
        valid = max(valid, start)
        return data[start:valid].decode("utf-8"), valid


def _later_lines(data: bytes, tail: int) -> str:
    """A note on how many lines after the tail's first one it takes along."""
    following = data[tail:].count(b"\n") - 1
    return f" ({following} later line(s) are in the tail too)" if following > 0 else ""


def _decode_other(
    path: Path, line: str, data: bytes, start: int, index: int
) -> SessionEvent | None:
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
        raise SessionCorruptError(path, _line_offset(data, start, index), str(exc)) from None


def _line_offset(data: bytes, start: int, index: int) -> int:
    """Where event line ``index`` begins in ``data`` (only for a report: one pass)."""
    pos = start
    for _ in range(index):
        pos = data.index(b"\n", pos) + 1
    return pos
