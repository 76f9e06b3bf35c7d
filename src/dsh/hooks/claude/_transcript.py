"""The Claude Code transcript a hook finds at ``transcript_path``, projected from the session log.

Claude Code keeps a JSONL transcript per session; hooks read it (a Stop hook
takes the last ``type: "assistant"`` line's text). dsh writes one in the same
line format (``user`` / ``assistant`` lines, one assistant line per content
block, tool results as ``tool_result`` blocks in ``user`` lines) into its own
data directory, rewritten whole before each hook run that may read it.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dsh.session import (
    AssistantMessageEvent,
    ContextMessageEvent,
    SessionEvent,
    SteeringMessageEvent,
    ToolResultEvent,
    UserMessageEvent,
    content_text,
    thaw_json,
)

__all__ = ["default_transcript_dir", "project_slug", "transcript_lines", "write_transcript"]

_VERSION = "dsh"
_UNSAFE = re.compile(r"[^A-Za-z0-9]")


def default_transcript_dir() -> Path:
    """dsh's own data directory for transcripts (never Claude Code's ``~/.claude/projects``)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("dsh")) / "claude-transcripts"


def project_slug(project: Path) -> str:
    """Claude Code's folder name for a project: every non-alphanumeric character as ``-``."""
    return _UNSAFE.sub("-", str(project))


def _stamp(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + (
        f"{int((t % 1) * 1000):03d}Z"
    )


def transcript_lines(
    events: Iterable[SessionEvent], *, session_id: str, cwd: Path, permission_mode: str
) -> list[dict[str, Any]]:
    """The transcript lines for ``events`` (Claude Code's ``user``/``assistant`` shapes)."""
    lines: list[dict[str, Any]] = []
    parent: str | None = None

    def add(kind: str, message: dict[str, Any], ev: SessionEvent, **extra: Any) -> None:
        nonlocal parent
        line_id = str(uuid.uuid5(uuid.NAMESPACE_OID, f"{ev.id}/{len(lines)}"))
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
                            "content": content_text(ev.content),
                            "is_error": ev.is_error,
                        }
                    ],
                },
                ev,
                toolUseResult=thaw_json(ev.output) if ev.output is not None else None,
            )
    return lines


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
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
    os.replace(tmp, path)
