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
    path: Path,
    session_id: str,
    forked_from: str | None,
    body: bytes,
    copied: int,
    project: str | None = None,
) -> None:
    """Write the log at ``path`` whole: its header, then ``body`` (``copied`` events of a fork).

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
    body: bytes  # the complete event lines, as stored
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
    # Fast path: decode the valid UTF-8 prefix once and split it into str lines.
    text, valid = _utf8_prefix(data, start)
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
        except (ValueError, TypeError, KeyError, IndexError, RecursionError):
            event = _decode_other(path, line, pos, text, start, ascii_only, i + 2)
            if event is None:
                tail_char, problem = pos, f"line {i + 2} is not a JSON event"
                break
            append(event)
        else:
            try:
                append(decode(d))
            except EventDecodeError as exc:
                raise SessionCorruptError(
                    path, _byte_offset(text, pos, start, ascii_only), str(exc), line=i + 2
                ) from None
        pos += len(line) + 1
    if tail_char is not None:
        tail = _byte_offset(text, tail_char, start, ascii_only)
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
        body=data[start:end],
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
    path: Path, line: str, pos: int, text: str, start: int, ascii_only: bool, number: int
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
        raise SessionCorruptError(
            path, _byte_offset(text, pos, start, ascii_only), str(exc), line=number
        ) from None


def _byte_offset(text: str, char_pos: int, start: int, ascii_only: bool) -> int:
    if ascii_only:
        return start + char_pos
    return start + len(text[:char_pos].encode("utf-8"))
