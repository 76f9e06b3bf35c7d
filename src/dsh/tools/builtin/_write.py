"""The file-changing tools: ``Write``, ``Edit`` and ``MultiEdit``.

Text is read and written as UTF-8 with line endings untouched. ``MultiEdit``
applies its edits in memory, in order, and writes only if every one applies.
Result texts are Claude Code's where a recording shows them (``write-tool``:
a created file's text ends with ``WRITE_CREATED_SUFFIX``; ``file-path-write``:
Write's ``filePath`` and text keep the path as the call wrote it; ``file-tools`` in
``tests/fixtures/claude_strict.json``: Write's and Edit's "updated" sentences, Edit's
``replace_all`` one and Edit's ``filePath`` as the call wrote it); the others keep the older
Claude Code wording (an Edit that creates a file: no suffix).

Edit's success text says whether the call created the file, which its
output cannot tell apart from filling an existing empty file with an empty
``old_string`` (both have ``originalFile: ""`` and ``oldString: ""``).
``present_edit`` reads that output as a creation: it is Edit's ``present``,
and only a replacement output of that one kind of call is shown as "created"
where the tool itself said "updated".
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from dsh.base._real_path import LinkError, real_path
from dsh.messages import Content
from dsh.tools._types import LazyModel, ToolInvocation, ToolResult
from dsh.tools.builtin._client_files import CLIENT_FILES, read_text, write_text
from dsh.tools.builtin._common import (
    ArgumentsError,
    parse_arguments,
    refused,
    structured_patch,
)
from dsh.tools.builtin._declarations import (
    EDIT,
    EDIT_INPUT,
    MULTI_EDIT,
    MULTI_EDIT_INPUT,
    WRITE,
    WRITE_INPUT,
    implement,
)
from dsh.tools.builtin._read_state import note_read, read_time
from dsh.tools.builtin._real_write import replace_text

if TYPE_CHECKING:
    from dsh.tools.builtin._models import EditInput, EditOperation, MultiEditInput, WriteInput

__all__ = [
    "EDIT_TOOL",
    "MULTI_EDIT_TOOL",
    "WRITE_CREATED_SUFFIX",
    "WRITE_TOOL",
    "present_edit",
    "present_multi_edit",
    "present_write",
]


_WRITE_INPUT: LazyModel[WriteInput] = WRITE_INPUT
_EDIT_INPUT: LazyModel[EditInput] = EDIT_INPUT
_MULTI_EDIT_INPUT: LazyModel[MultiEditInput] = MULTI_EDIT_INPUT
WRITE_CREATED_SUFFIX = " (file state is current in your context — no need to Read it back)"
"""Claude Code 2.1's ending of Write's "File created successfully at: PATH" (recorded)."""


STALE_NOTE = (
    " (note: the file had been modified on disk since you last read it \u2014 the edit applied"
    " cleanly, but the file contains other changes not in your context. Read it before edits"
    " that depend on surrounding content.)"
)
"""2.1.332's ending of an Edit of a file changed on disk since the session read it (recorded:
``tests/fixtures/claude_tool_texts.json``)."""


def _created_or_updated(
    file_path: str,
    *,
    created: bool,
    replaced_all: bool = False,
    suffix: str = "",
    output: Any = None,
) -> str:
    """2.1.332's sentences (recorded: ``tests/fixtures/claude_strict.json``, ``file-tools``;
    ``claude_tool_texts.json``: an Edit's ending says whether the file was in the session's
    view: the note when it changed on disk since it was read, nothing when it never was)."""
    if created:
        return f"File created successfully at: {file_path}{suffix}"
    ending = WRITE_CREATED_SUFFIX
    if output is not None and output.get("staleRecovered"):
        ending = STALE_NOTE
    elif output is not None and output.get("contentNotInModelContext"):
        ending = ""
    if replaced_all:
        return (
            f"The file {file_path} has been updated. All occurrences were successfully"
            f" replaced.{ending}"
        )
    return f"The file {file_path} has been updated successfully.{ending}"


def present_write(output: Any) -> Content:
    """What the model sees of a successful Write."""
    return _created_or_updated(
        output["filePath"], created=output["type"] == "create", suffix=WRITE_CREATED_SUFFIX
    )


def present_edit(output: Any) -> Content:
    """What the model sees of a successful Edit, taking an empty ``originalFile`` and
    ``oldString`` for a created file.

    Filling an existing empty file has the same output and the tool says
    "updated" then (see the module docstring).
    """
    created = output["originalFile"] == "" and output["oldString"] == ""
    replaced_all = bool(output.get("replaceAll"))
    return _created_or_updated(
        output["filePath"], created=created, replaced_all=replaced_all, output=output
    )


def present_multi_edit(output: Any) -> Content:
    """What the model sees of a successful MultiEdit."""
    n = len(output["edits"])
    return f"Applied {n} edit{'s' if n != 1 else ''} to {output['filePath']}."


class _EditFailed(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _read_text(path: Path) -> str:
    with path.open("r", encoding="utf-8", errors="surrogateescape", newline="") as f:
        return f.read()


def _is_file(path: Path) -> bool:
    return path.is_file()


async def _client_text(path: Path) -> str | None:
    """An existing file's text as the editor has it (``None``: the disk's, read later)."""
    if CLIENT_FILES.get() is None or not _is_file(path):
        return None
    return await read_text(path, _read_text)


def _real(path: Path, action: str, shown: str) -> Path | ToolResult:
    """Where ``path`` really is (links followed: a write through a link changes its target
    and keeps the link), or the tool error for a link loop or a link to nothing."""
    try:
        return real_path(path)
    except LinkError as exc:
        return ToolResult.error(f"Cannot {action} {shown}: {exc}")
    except OSError as exc:
        return _os_error(action, shown, exc)


def _os_error(action: str, shown: str, exc: OSError) -> ToolResult:
    if isinstance(exc, PermissionError):
        return ToolResult.error(f"Cannot {action} {shown}: permission denied")
    if isinstance(exc, (NotADirectoryError, FileExistsError)):
        return ToolResult.error(
            f"Cannot {action} {shown}: a parent of it exists and is not a directory"
        )
    return ToolResult.error(f"Cannot {action} {shown}: {exc.strerror or exc}")


async def _run_write(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(_WRITE_INPUT, invocation)
    except ArgumentsError as exc:
        return exc.result
    shown = str(invocation.workspace.resolve(args.file_path))
    path = _real(invocation.workspace.resolve(args.file_path), "write", shown)
    if isinstance(path, ToolResult):
        return path
    if path.is_dir():
        return ToolResult.error(f"Cannot write {shown}: it is a directory")
    try:
        original = await read_text(path, _read_text) if path.exists() else None
        await write_text(path, args.content, replace_text)
    except OSError as exc:
        return _os_error("write", shown, exc)
    output: dict[str, Any] = {
        "type": "create" if original is None else "update",
        # As the call wrote it (`rel.txt`, `~/x`, `sub/../x`), as Claude Code 2.1.332 shows it
        # (`file-path-write`); hooks get the normalized path, the model its own words.
        "filePath": args.file_path,
        "content": args.content,
        "structuredPatch": [] if original is None else structured_patch(original, args.content),
        "originalFile": original,
        "userModified": False,
    }
    note_read(invocation.workspace, path)  # what it wrote is in the session's view
    return ToolResult.ok(present_write(output), output=output)


# An Edit's refusals in 2.1.332's words (its validateInput; recorded: `claude_tool_texts.json`):
# they name no file. MultiEdit, which 2.1.332 does not have, keeps dsh's (file and edit named).
_NOT_FOUND = "String to replace not found in file.\nString: {old}"
_MATCHES = (
    "Found {count} matches of the string to replace, but replace_all is false. To replace all"
    " occurrences, set replace_all to true. To replace only one occurrence, please provide more"
    " context to uniquely identify the instance.\nString: {old}"
)
_SAME = "No changes to make: old_string and new_string are exactly the same."
_EXISTS = "Cannot create new file - file already exists."


def _apply(content: str, old: str, new: str, replace_all: bool, shown: str, where: str) -> str:
    if not where:  # an Edit
        return _apply_one(content, old, new, replace_all)
    if old == new:
        raise _EditFailed(
            f"No changes to make to {shown}{where}: old_string and new_string are exactly the same."
        )
    count = content.count(old)
    if count == 0:
        raise _EditFailed(f"String to replace not found in {shown}{where}.\nString: {old}")
    if count > 1 and not replace_all:
        raise _EditFailed(
            f"Found {count} matches of the string to replace in {shown}{where}, but replace_all "
            "is false. To replace all occurrences, set replace_all to true. To replace only one "
            f"occurrence, provide more context to uniquely identify the instance.\nString: {old}"
        )
    return content.replace(old, new) if replace_all else content.replace(old, new, 1)


def _apply_one(content: str, old: str, new: str, replace_all: bool) -> str:
    if old == new:
        raise _EditFailed(_SAME)
    count = content.count(old)
    if count == 0:
        raise _EditFailed(_NOT_FOUND.format(old=old))
    if count > 1 and not replace_all:
        raise _EditFailed(_MATCHES.format(count=count, old=old))
    return content.replace(old, new) if replace_all else content.replace(old, new, 1)


def _edit_file(
    path: Path, shown: str, edits: list[EditOperation], *, multi: bool, text: str | None
) -> tuple[str | None, str]:
    """``(original or None when created, updated)``; raises ``_EditFailed`` naming the file
    as ``shown`` (``path`` is where it really is)."""
    if path.is_dir():
        raise _EditFailed(f"Cannot edit {shown}: it is a directory")
    if not path.exists():
        first = edits[0]
        if first.old_string == "":
            # Claude Code's way to create a file with Edit: an empty old_string.
            content = first.new_string
            for i, e in enumerate(edits[1:], 2):
                content = _apply(content, e.old_string, e.new_string, bool(e.replace_all),
                                 shown, f" (edit {i})" if multi else "")  # fmt: skip
            return None, content
        raise _EditFailed(f"File does not exist: {shown}")
    original = _read_text(path) if text is None else text
    content = original
    for i, e in enumerate(edits, 1):
        where = f" (edit {i} of {len(edits)})" if multi else ""
        if e.old_string == "":
            if content.strip() == "" and i == 1:
                content = e.new_string
                continue
            raise _EditFailed(
                f"Cannot create {shown}{where}: the file already exists and old_string is empty"
                if multi
                else _EXISTS
            )
        content = _apply(content, e.old_string, e.new_string, bool(e.replace_all), shown, where)
    return original, content


async def _run_edit(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(_EDIT_INPUT, invocation)
    except ArgumentsError as exc:
        return exc.result
    shown = str(invocation.workspace.resolve(args.file_path))
    path = _real(invocation.workspace.resolve(args.file_path), "edit", shown)
    if isinstance(path, ToolResult):
        return path
    if args.old_string and not path.exists():  # 2.1.332's words (without its "Did you mean")
        cwd = invocation.workspace.cwd
        return refused(f"File does not exist. Note: your current working directory is {cwd}.")
    from dsh.tools.builtin._models import EditOperation  # loaded with EditInput

    op = EditOperation(
        old_string=args.old_string, new_string=args.new_string, replace_all=args.replace_all
    )
    try:
        text = await _client_text(path)
        original, updated = _edit_file(path, shown, [op], multi=False, text=text)
        view = _view(invocation, path)
        await write_text(path, updated, replace_text)
    except _EditFailed as failed:
        return refused(failed.reason)  # wrapped as 2.1.332 wraps what validateInput refuses
    except OSError as exc:
        return _os_error("edit", shown, exc)
    note_read(invocation.workspace, path)
    output: dict[str, Any] = {
        # As the call wrote it, as 2.1.332 shows it (Write's `file-path-write`, `file-tools`).
        "filePath": args.file_path,
        "oldString": args.old_string,
        "newString": args.new_string,
        "originalFile": original or "",
        "structuredPatch": structured_patch(original or "", updated),
        "userModified": False,
        "replaceAll": bool(args.replace_all),
    }
    if original is not None and view == "stale":
        output["staleRecovered"] = True
    if original is not None and view != "current":
        output["contentNotInModelContext"] = True
    created = original is None
    text = _created_or_updated(
        args.file_path, created=created, replaced_all=bool(args.replace_all), output=output
    )
    return ToolResult.ok(text, output=output)


def _view(invocation: ToolInvocation, path: Path) -> Literal["current", "stale", "unread"]:
    """Whether the session has ``path`` as it is on disk (read or written since it last
    changed), saw an older version of it, or never read it (2.1.332's Edit endings)."""
    seen = read_time(invocation.workspace, path)
    if seen is None:
        return "unread"
    try:
        return "current" if path.stat().st_mtime_ns == seen else "stale"
    except OSError:
        return "unread"


async def _run_multi_edit(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(_MULTI_EDIT_INPUT, invocation)
    except ArgumentsError as exc:
        return exc.result
    shown = str(invocation.workspace.resolve(args.file_path))
    path = _real(invocation.workspace.resolve(args.file_path), "edit", shown)
    if isinstance(path, ToolResult):
        return path
    try:
        text = await _client_text(path)
        original, updated = _edit_file(path, shown, args.edits, multi=True, text=text)
        await write_text(path, updated, replace_text)
    except _EditFailed as failed:
        return ToolResult.error(f"{failed.reason}\nNo edits were applied.")
    except OSError as exc:
        return _os_error("edit", shown, exc)
    output = {
        "filePath": shown,
        "edits": [
            {
                "old_string": e.old_string,
                "new_string": e.new_string,
                "replace_all": bool(e.replace_all),
            }
            for e in args.edits
        ],
        "originalFileContents": original or "",
        "structuredPatch": structured_patch(original or "", updated),
        "userModified": False,
    }
    return ToolResult.ok(present_multi_edit(output), output=output)


WRITE_TOOL = implement(WRITE, _run_write, present_write)

EDIT_TOOL = implement(EDIT, _run_edit, present_edit)

MULTI_EDIT_TOOL = implement(MULTI_EDIT, _run_multi_edit, present_multi_edit)
