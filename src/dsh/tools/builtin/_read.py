"""The ``Read`` tool: a file's lines numbered as Claude Code numbers them, an image, or a
notebook's cells (``_read_notebook``)."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from dsh.base._real_path import LinkError, real_path
from dsh.messages import Content, ImageBlock
from dsh.tools._types import LazyModel, ToolInvocation, ToolResult
from dsh.tools.builtin import _declarations as declared
from dsh.tools.builtin._client_files import CLIENT_FILES
from dsh.tools.builtin._common import (
    ArgumentsError,
    parse_arguments,
)
from dsh.tools.builtin._declarations import READ, READ_INPUT, implement
from dsh.tools.builtin._read_state import note_read

if TYPE_CHECKING:
    from dsh.tools.builtin._models import ReadInput

__all__ = [
    "DEFAULT_READ_LIMIT",
    "MAX_LINE_CHARS",
    "MAX_READ_BYTES",
    "READ_TOOL",
    "format_numbered",
    "present_read",
]

# The tool's description states these (_declarations: declared without this module).
DEFAULT_READ_LIMIT = declared.DEFAULT_READ_LIMIT
MAX_LINE_CHARS = declared.MAX_LINE_CHARS
MAX_READ_BYTES = 256 * 1024
MAX_IMAGE_BYTES = 3_750_000  # 5 MB once base64-encoded, the model APIs' image limit
LINE_TRUNCATED = "… [line truncated]"

ImageMediaType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
_IMAGE_TYPES: dict[str, ImageMediaType] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
_BINARY_SUFFIX_LIST = (
    ".exe .dll .so .dylib .o .a .lib .obj .class .jar .war .pyc .pyo .whl .egg .zip .gz .tgz "
    ".bz2 .xz .zst .7z .rar .tar .iso .dmg .bin .dat .db .sqlite .sqlite3 .pdf .doc .docx .xls "
    ".xlsx .ppt .pptx .odt .ods .mp3 .mp4 .wav .flac .ogg .avi .mov .mkv .webm .ico .bmp .tiff "
    ".psd .ttf .otf .woff .woff2 .eot .wasm .pack .idx"
)
_BINARY_SUFFIXES = frozenset(_BINARY_SUFFIX_LIST.split())
_READ_INPUT: LazyModel[ReadInput] = READ_INPUT


def present_read(output: Any) -> Content:
    """What the model sees of a successful Read: numbered lines, a warning, or the image."""
    file = output["file"]
    if output["type"] == "image":
        return (ImageBlock(media_type=file["type"], data=file["base64"]),)
    if output["type"] == "notebook":
        from dsh.tools.builtin._read_notebook import present_notebook

        return present_notebook(file["cells"])
    content = file["content"]
    if not content and not file["numLines"]:
        if not file["totalLines"]:
            return (
                "<system-reminder>Warning: the file exists but the contents are empty."
                "</system-reminder>"
            )
        return (
            "<system-reminder>Warning: the file exists but is shorter than the provided "
            f"offset ({file['startLine']}). The file has {file['totalLines']} lines."
            "</system-reminder>"
        )
    return format_numbered([_clip(x) for x in content.split("\n")], file["startLine"])


def format_numbered(lines: list[str], start: int) -> str:
    """As 2.1.332 numbers them: the line number, unpadded, a tab, the line (``file-tools`` in
    ``tests/fixtures/claude_strict.json``)."""
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, start))


def _clip(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + LINE_TRUNCATED


def _read_image(path: Path, media_type: ImageMediaType, file_path: str) -> ToolResult:
    data = path.read_bytes()
    if len(data) > MAX_IMAGE_BYTES:
        return ToolResult.error(
            f"Cannot read {file_path}: the image is {len(data)} bytes, over the "
            f"{MAX_IMAGE_BYTES}-byte limit"
        )
    encoded = base64.b64encode(data).decode("ascii")
    output = {
        "type": "image",
        "file": {"base64": encoded, "type": media_type, "originalSize": len(data)},
    }
    return ToolResult.ok(present_read(output), output=output)


def _read_notebook(path: Path, client: bytes | None, file_path: str) -> ToolResult | None:
    """A notebook's cells as 2.1.332 shows them; ``None`` when it is not one (read as text)."""
    from dsh.tools.builtin._read_notebook import notebook_cells

    cells = notebook_cells(client if client is not None else path.read_bytes())
    if cells is None:
        return None
    output = {"type": "notebook", "file": {"filePath": file_path, "cells": cells}}
    return ToolResult.ok(present_read(output), output=output)


def _looks_binary(path: Path) -> bool:
    if path.suffix.lower() in _BINARY_SUFFIXES:
        return True
    with path.open("rb") as f:
        return b"\0" in f.read(8192)


async def _client_text(path: Path) -> bytes | None:
    """The file as the editor has it (its unsaved buffer, even one not saved yet), when an
    ACP client offers ``fs/read_text_file`` and has it; ``None``: the disk answers."""
    files = CLIENT_FILES.get()
    text = await files.read(path) if files is not None else None
    return None if text is None else text.encode()


def _client_lines(text: bytes | None) -> io.BytesIO | None:
    return None if text is None else io.BytesIO(text)


def _refusal(path: Path, shown: str, client: bytes | None, whole: bool) -> ToolResult | None:
    """Why Read will not read ``path`` as text (binary, or too big to read whole), judged on
    the editor's text when it gave one (``client``), else on the disk's."""
    binary = path.suffix.lower() in _BINARY_SUFFIXES
    binary = binary or (b"\0" in client[:8192] if client is not None else _looks_binary(path))
    if binary:
        return ToolResult.error(
            f"Cannot read {shown}: it appears to be a binary file, and this tool reads text"
        )
    size = len(client) if client is not None else path.stat().st_size
    if whole and size > MAX_READ_BYTES:
        return ToolResult.error(
            f"File content of {shown} ({size // 1024} KB) exceeds the maximum allowed "
            f"size ({MAX_READ_BYTES // 1024} KB). Use offset and limit to read parts "
            "of it, or Grep to search it."
        )
    return None


async def _run_read(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(_READ_INPUT, invocation)
    except ArgumentsError as exc:
        return exc.result
    path = invocation.workspace.resolve(args.file_path)
    shown = str(path)
    try:
        media_type = _IMAGE_TYPES.get(path.suffix.lower())
        # Any text (a notebook's JSON too) as the editor has it; images from the disk (ACP's
        # fs has no binary read).
        client = None if media_type is not None or path.is_dir() else await _client_text(path)
        if client is None and not path.exists():
            try:
                real_path(path)
            except LinkError as exc:  # a link loop or a link to nothing, named
                return ToolResult.error(f"Cannot read {shown}: {exc}")
            return ToolResult.error(f"File does not exist: {shown}")
        if path.is_dir():
            return ToolResult.error(
                f"Cannot read {shown}: it is a directory, not a file (use Glob or `ls` to list it)"
            )
        if media_type is not None:
            return _read_image(path, media_type, shown)
        notebook = path.suffix.lower() == ".ipynb"
        whole = notebook or (args.offset is None and args.limit is None)
        refused = _refusal(path, shown, client, whole)
        if refused is not None:
            return refused
        if notebook:
            read = _read_notebook(path, client, args.file_path)
            if read is not None:
                note_read(invocation.workspace, path)
                return read
        start = max(args.offset or 1, 1)
        limit = args.limit or DEFAULT_READ_LIMIT
        selected: list[str] = []
        total = 0
        ended = False  # the last line ended with a newline: 2.1.332 counts an empty line after
        with _client_lines(client) or path.open("rb") as f:
            for total, raw in enumerate(f, 1):
                ended = raw.endswith(b"\n")
                if start <= total < start + limit:
                    line = raw.decode("utf-8", errors="replace").rstrip("\n").removesuffix("\r")
                    if total == 1:
                        line = line.removeprefix("\ufeff")
                    selected.append(line)
        if ended:
            total += 1
            if start <= total < start + limit:
                selected.append("")
    except PermissionError:
        return ToolResult.error(f"Cannot read {shown}: permission denied")
    except OSError as exc:
        return ToolResult.error(f"Cannot read {shown}: {exc.strerror or exc}")
    file_info: dict[str, Any] = {
        "filePath": args.file_path,  # as the call wrote it, as 2.1.332 shows it
        "content": "\n".join(selected),
        "numLines": len(selected),
        "startLine": start,
        "totalLines": total,
    }
    output = {"type": "text", "file": file_info}
    note_read(invocation.workspace, path)
    return ToolResult.ok(present_read(output), output=output)


READ_TOOL = implement(READ, _run_read, present_read)
