"""The Claude Code transcript a hook finds at ``transcript_path``, projected from the session log.

Claude Code keeps a JSONL transcript per session; hooks read it (a Stop hook
takes the last ``type: "assistant"`` line's text). dsh writes one in the same
line format (``user`` / ``assistant`` lines, one assistant line per content
block, tool results as ``tool_result`` blocks in ``user`` lines) into its own
data directory, brought up to date before each hook run: written whole once,
then only the lines of newly logged events are appended.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dsh._data_dir import user_data_dir
from dsh.base import thaw_json
from dsh.hooks.claude.transcript._content import claude_content
from dsh.messages import content_text
from dsh.session import (
    AssistantMessageEvent,
    ContextMessageEvent,
    SessionEvent,
    SteeringMessageEvent,
    ToolResultEvent,
    UnsafeSessionPathError,
    UserMessageEvent,
)
from dsh.session._private_files import make_private_dir, open_private

__all__ = [
    "TranscriptWriter",
    "claude_json",
    "default_transcript_dir",
    "project_slug",
    "transcript_lines",
    "write_transcript",
]

_VERSION = "dsh"
_UNSAFE = re.compile(r"[^A-Za-z0-9]")


def default_transcript_dir() -> Path:
    """dsh's own data directory for transcripts (never Claude Code's ``~/.claude/projects``)."""
    return user_data_dir() / "claude-transcripts"


def project_slug(project: Path) -> str:
    """Claude Code's folder name for a project: every non-alphanumeric character as ``-``."""
    return _UNSAFE.sub("-", str(project))


def _stamp(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + (
        f"{int((t % 1) * 1000):03d}Z"
    )


def _project(
    events: Iterable[SessionEvent],
    *,
    session_id: str,
    cwd: Path,
    permission_mode: str,
    start: int = 0,
    parent: str | None = None,
) -> list[dict[str, Any]]:
    """The lines for ``events``, numbered from ``start`` and chained from ``parent``.

    A line depends only on its event, its number and the line before it, so the
    lines of a log's prefix never change as the log grows (appending is exact).
    """
    lines: list[dict[str, Any]] = []

    def add(kind: str, message: dict[str, Any], ev: SessionEvent, **extra: Any) -> None:
        nonlocal parent
        line_id = str(uuid.uuid5(uuid.NAMESPACE_OID, f"{ev.id}/{start + len(lines)}"))
        lines.append(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "type": kind,
                "message": message,
                **extra,
                "uuid": line_id,
                "timestamp": _stamp(ev.time),
                "userType": "external",
                "entrypoint": "sdk-cli",
                "cwd": str(cwd),
                "sessionId": session_id,
                "version": _VERSION,
            }
        )
        parent = line_id

    for ev in events:
        if isinstance(ev, UserMessageEvent):
            add(
                "user",
                {"role": "user", "content": content_text(ev.content)},
                ev,
                permissionMode=permission_mode,
            )
        elif isinstance(ev, SteeringMessageEvent | ContextMessageEvent):
            add("user", {"role": "user", "content": ev.text}, ev, isMeta=True)
        elif isinstance(ev, AssistantMessageEvent):
            blocks: list[dict[str, Any]] = []
            if ev.text:
                blocks.append({"type": "text", "text": ev.text})
            for use in ev.tool_calls:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": use.id,
                        "name": use.name,
                        "input": thaw_json(use.arguments),
                    }
                )
            for block in blocks:
                add(
                    "assistant",
                    {"type": "message", "role": "assistant", "content": [block]},
                    ev,
                )
        elif isinstance(ev, ToolResultEvent) and ev.tool_use_id is not None:
            add(
                "user",
                {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": ev.tool_use_id,
                            "type": "tool_result",
                            "content": claude_content(ev.content),
                            "is_error": ev.is_error,
                        }
                    ],
                },
                ev,
                toolUseResult=thaw_json(ev.output) if ev.output is not None else None,
            )
    return lines


def transcript_lines(
    events: Iterable[SessionEvent], *, session_id: str, cwd: Path, permission_mode: str
) -> list[dict[str, Any]]:
    """The transcript lines for ``events`` (Claude Code's ``user``/``assistant`` shapes)."""
    return _project(events, session_id=session_id, cwd=cwd, permission_mode=permission_mode)


def claude_json(value: Any) -> str:
    """``value`` as Claude Code writes JSON (hook stdin, transcript lines): compact, UTF-8 raw.

    Real hooks grep these bytes (a Stop-loop plugin searches the transcript for
    ``"role":"assistant"``), so the separators are part of the protocol.
    """
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def _encode(lines: Iterable[dict[str, Any]]) -> bytes:
    return "".join(claude_json(line) + "\n" for line in lines).encode("utf-8")


def write_transcript(
    path: Path,
    events: Iterable[SessionEvent],
    *,
    session_id: str,
    cwd: Path,
    permission_mode: str,
) -> None:
    """Rewrite ``path`` atomically with the transcript of ``events``."""
    lines = transcript_lines(
        events, session_id=session_id, cwd=cwd, permission_mode=permission_mode
    )
    _replace(path, _encode(lines))


def _replace(path: Path, data: bytes) -> None:
    # 0600 in 0700 directories, never through a planted link (the session store's rules).
    make_private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with os.fdopen(open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "wb") as f:
        f.write(data)
    os.replace(tmp, path)


_ADOPT_SEARCH = 10_000  # how far back from the log's end a resumed file's last event is looked for


class TranscriptWriter:
    """Keeps one session's transcript file current by appending the lines of new events.

    The first ``sync`` (and any ``sync`` that finds the file not as it left it:
    missing, or another size) writes the whole transcript atomically, unless the
    file already holds the transcript of a prefix of the log (a resumed
    session's, see ``_adopt``); later ones append only the lines of the events
    logged since. Each line carries the working directory of the moment it was
    written, as Claude Code's do.
    """

    __slots__ = ("_events", "_lines", "_parent", "_size", "path", "permission_mode", "session_id")

    def __init__(self, path: Path, *, session_id: str, permission_mode: str) -> None:
        self.path = path
        self.session_id = session_id
        self.permission_mode = permission_mode
        self._events = 0
        self._lines = 0
        self._parent: str | None = None
        self._size: int | None = None  # None: nothing written yet

    def sync(self, events: Sequence[SessionEvent], *, cwd: Path) -> int:
        """Bring the file up to ``events`` (the whole log so far); returns the lines written."""
        if self._size is None:
            self._adopt(events)
        whole = self._size is None or len(events) < self._events or not self._intact()
        start = 0 if whole else self._events
        lines = _project(
            events[start:],
            session_id=self.session_id,
            cwd=cwd,
            permission_mode=self.permission_mode,
            start=0 if whole else self._lines,
            parent=None if whole else self._parent,
        )
        data = _encode(lines)
        if whole:
            _replace(self.path, data)
            self._lines, self._size = 0, 0
        elif data:
            with os.fdopen(open_private(self.path, os.O_WRONLY | os.O_APPEND), "ab") as f:
                f.write(data)
        assert self._size is not None
        self._events = len(events)
        self._lines += len(lines)
        self._size += len(data)
        if lines:
            self._parent = lines[-1]["uuid"]
        elif whole:
            self._parent = None
        return len(lines)

    def _adopt(self, events: Sequence[SessionEvent]) -> None:
        """Take up a file written for a prefix of ``events`` (a resumed session's) where it ends.

        Its last line's id names the event and the line number it was made for
        (``uuid5`` of both), so a match among the last events means the file is
        that prefix's transcript: the next lines are appended, not the whole
        history rewritten. Anything else leaves the file to be rewritten whole.
        """
        try:
            with os.fdopen(open_private(self.path, os.O_RDONLY), "rb") as f:
                data = f.read()
            cut = data.rfind(b"\n", 0, len(data) - 1) + 1
            last = json.loads(data[cut:]) if data.endswith(b"\n") else None
        except (OSError, ValueError, UnsafeSessionPathError):
            return
        if not isinstance(last, dict) or last.get("sessionId") != self.session_id:
            return
        count = data.count(b"\n")
        wanted = last.get("uuid")
        for i in range(len(events) - 1, max(-1, len(events) - _ADOPT_SEARCH), -1):
            if str(uuid.uuid5(uuid.NAMESPACE_OID, f"{events[i].id}/{count - 1}")) == wanted:
                self._events, self._lines, self._size = i + 1, count, len(data)
                self._parent = last["uuid"]
                return

    def _intact(self) -> bool:
        try:
            return self.path.lstat().st_size == self._size
        except OSError:
            return False
