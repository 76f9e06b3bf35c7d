"""How a dsh tool call looks to an ACP client: its title, kind, locations and content.

Everything is derived from the tool's name and its sealed arguments (what the
log and the tool body saw: the rewritten input when a hook rewrote it). The
arguments come from a model and hooks, so every value is checked before use
and every text shown is bounded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, final

from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    TextContentBlock,
    ToolCallLocation,
    ToolKind,
)

from dsh._frozen import frozen
from dsh.base import thaw_json
from dsh.messages import Content, content_text

__all__ = ["MAX_SHOWN", "ToolView", "bounded", "result_content", "tool_view"]

MAX_SHOWN = 20_000
"""At most this many characters of one text reach the client (a tool's output, a diff side)."""
_MAX_TITLE = 120
_MAX_DIFF_FILE = 256 * 1024

_KINDS: Mapping[str, ToolKind] = {
    "Read": "read",
    "Write": "edit",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Bash": "execute",
    "BashOutput": "execute",
    "KillShell": "execute",
    "Glob": "search",
    "Grep": "search",
    "WebFetch": "fetch",
    "WebSearch": "fetch",
    "TaskCreate": "think",
    "TaskGet": "think",
    "TaskList": "think",
    "TaskUpdate": "think",
    "TodoWrite": "think",
    "Agent": "think",
    "Task": "think",
}

ToolContent = ContentToolCallContent | FileEditToolCallContent


@final
@frozen
class ToolView:
    """A call as the client shows it."""

    title: str
    kind: ToolKind
    locations: tuple[ToolCallLocation, ...]
    diffs: tuple[FileEditToolCallContent, ...]
    raw_input: Any


def bounded(text: str, limit: int = MAX_SHOWN) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… ({len(text) - limit} more characters not shown)"


def _one_line(text: str, limit: int = _MAX_TITLE) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _string(args: Mapping[str, Any], key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) and value else None


def _absolute(project: Path, raw: str) -> Path:
    path = Path(raw)
    return path if path.is_absolute() else project / path


def tool_view(name: str, arguments: object, project: Path) -> ToolView:
    """The title, kind, locations and diffs of a call of ``name`` with ``arguments``."""
    raw = thaw_json(arguments)
    args: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    kind = _KINDS.get(name, "other")
    path_arg = _string(args, "file_path") or _string(args, "notebook_path")
    search_path = _string(args, "path")
    locations: tuple[ToolCallLocation, ...] = ()
    where = path_arg or search_path
    if where is not None:
        line = args.get("offset") if name == "Read" else None
        line = line if isinstance(line, int) and not isinstance(line, bool) and line > 0 else None
        locations = (ToolCallLocation(path=str(_absolute(project, where)), line=line),)
    diffs = _diffs(name, args, project) if path_arg is not None else ()
    return ToolView(_title(name, args), kind, locations, diffs, _bounded_json(raw))


def _bounded_json(value: Any) -> Any:
    """``value`` with every long string cut (a Write's content reaches the client once, as
    its diff; ``rawInput`` need not carry megabytes again)."""
    if isinstance(value, str):
        return bounded(value)
    if isinstance(value, Mapping):
        return {k: _bounded_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bounded_json(v) for v in value]
    return value


def _title(name: str, args: Mapping[str, Any]) -> str:
    path = _string(args, "file_path") or _string(args, "notebook_path")
    if name == "Bash":
        described = _string(args, "description")
        command = _string(args, "command")
        if described is not None:
            return _one_line(described)
        return _one_line(f"`{command}`") if command is not None else name
    if path is not None:
        return _one_line(f"{name} {path}")
    pattern = _string(args, "pattern")
    if pattern is not None:
        inside = _string(args, "path")
        return _one_line(f"{name} {pattern}" + (f" in {inside}" if inside else ""))
    for key in ("subject", "description", "url", "query", "prompt"):
        text = _string(args, key)
        if text is not None:
            return _one_line(f"{name}: {text}")
    task_id = _string(args, "taskId")
    return f"{name} #{task_id}" if task_id is not None else name


def _read_small(path: Path) -> str | None:
    """The file's text if it is a small UTF-8 file, else ``None`` (a diff then shows the edit)."""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_DIFF_FILE:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _diff(path: Path, new: str, old: str | None) -> FileEditToolCallContent:
    return FileEditToolCallContent(
        type="diff",
        path=str(path),
        new_text=bounded(new),
        old_text=bounded(old) if old is not None else None,
    )


def _diffs(
    name: str, args: Mapping[str, Any], project: Path
) -> tuple[FileEditToolCallContent, ...]:
    raw_path = _string(args, "file_path")
    if raw_path is None:
        return ()
    path = _absolute(project, raw_path)
    if name == "Write":
        content = args.get("content")
        return (_diff(path, content, _read_small(path)),) if isinstance(content, str) else ()
    if name == "Edit":
        edits: list[Any] = [args]
    elif name == "MultiEdit" and isinstance(args.get("edits"), list):
        edits = list(args["edits"])
    else:
        return ()
    return _edit_diffs(path, edits)


def _edit_diffs(path: Path, edits: list[Any]) -> tuple[FileEditToolCallContent, ...]:
    """The whole file before and after ``edits`` when they apply to it as they stand, else one
    diff per edit (what it replaces and with what)."""
    pairs: list[tuple[str, str, bool]] = []
    for edit in edits:
        if not isinstance(edit, Mapping):
            return ()
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            return ()
        pairs.append((old, new, edit.get("replace_all") is True))
    before = _read_small(path)
    if before is not None:
        after = before
        for old, new, every in pairs:
            if not old or old not in after:
                break
            after = after.replace(old, new) if every else after.replace(old, new, 1)
        else:
            return (_diff(path, after, before),)
    return tuple(_diff(path, new, old) for old, new, _ in pairs)


def result_content(content: Content, output: object) -> str:
    """The text a tool result shows the client: what the model read, bounded."""
    text = content_text(content)
    if not text and output is not None:
        try:
            text = json.dumps(thaw_json(output), ensure_ascii=False)
        except (TypeError, ValueError):
            text = ""
    return bounded(text)


def text_content(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))
