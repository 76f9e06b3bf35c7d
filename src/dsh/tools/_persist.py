"""A successful tool result too large for the model: saved to a private file, a preview shown.

What Claude Code 2.1.332 does with every tool's result (``toolResultStorage``): a tool
declares the most it returns inline (``maxResultSizeChars``; Grep 20,000, Bash 30,000, Read
none: it bounds itself), capped for every tool at 50,000 characters. A result over its
tool's limit is written whole to ``<session dir>/<session id>/tool-results/<tool use
id>.txt`` (a list of text blocks: ``.json``, the blocks as indented JSON), and the model
gets, in its place::

    <persisted-output>
    Output too large (4.1MB). Full output saved to: /path/tool-results/call_1.txt

    Preview (first 2KB):
    <the first 2,000 characters, cut at the last line break past the first 1,000>
    ...
    </persisted-output>

(``...`` only when the preview is not the whole text). dsh's file is 0600 in 0700
directories, never written through a symlink, as its session files are. A result with an
image, a failure, and a result that cannot be saved (no session file, a full disk) are
left as they are: Claude Code also shows the result whole when saving it fails.

A tool whose own output is over a bound of its own saves it here too, before any hook
sees the result (``persist_output_file``: the Bash tool over ``BASH_MAX_OUTPUT_LENGTH``,
whose ``tool_response`` then names the file). A failure is never persisted; the text of a
tool's failure is cut in the middle past ``MAX_ERROR_CHARS`` instead (``cut_error``), as
Claude Code 2.1.332 formats an error a tool raised: the first and last 5,000 characters
around ``\n\n... [N characters truncated] ...\n\n`` (``tests/fixtures/claude_bounds.json``).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final

from dsh.messages import TextBlock
from dsh.session import SessionError
from dsh.session._private_files import make_private_dir, open_private
from dsh.tools._identity import CallToken, ToolCall
from dsh.tools._types import ToolResult

__all__ = [
    "DEFAULT_MAX_RESULT_CHARS",
    "MAX_ERROR_CHARS",
    "PREVIEW_CHARS",
    "cut_error",
    "format_size",
    "persist_output_file",
    "persist_oversized",
    "persist_text",
    "persisted_message",
    "preview_of",
]

logger = logging.getLogger("dsh.tools")

DEFAULT_MAX_RESULT_CHARS: Final = 50_000
"""Claude Code's cap on any tool's inline result, whatever the tool declares."""
PREVIEW_CHARS: Final = 2_000
"""How much of a persisted result the model sees (Claude Code's ``PREVIEW_SIZE_BYTES``)."""
MAX_ERROR_CHARS: Final = 10_000
"""The most of a tool's failure text the model (and PostToolUseFailure's ``error``) sees."""

_SAFE_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}")


def format_size(size: int) -> str:
    """Claude Code's ``formatFileSize``: ``512 bytes``, ``39.1KB``, ``2MB``."""
    kb = size / 1024
    if kb < 1:
        return f"{size} bytes"
    for unit in ("KB", "MB"):
        if kb < 1024:
            return _one_decimal(kb) + unit
        kb /= 1024
    return _one_decimal(kb) + "GB"


def _one_decimal(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def preview_of(text: str) -> tuple[str, bool]:
    """The first ``PREVIEW_CHARS``, cut at the last line break past half of them; more follows?"""
    if len(text) <= PREVIEW_CHARS:
        return text, False
    head = text[:PREVIEW_CHARS]
    newline = head.rfind("\n")
    cut = newline if newline > PREVIEW_CHARS * 0.5 else PREVIEW_CHARS
    return text[:cut], True


def persisted_message(path: Path, size: int, text: str) -> str:
    """What the model sees in place of a persisted result (Claude Code's wording)."""
    preview, more = preview_of(text)
    return (
        "<persisted-output>\n"
        f"Output too large ({format_size(size)}). Full output saved to: {path}\n\n"
        f"Preview (first {format_size(PREVIEW_CHARS)}):\n"
        f"{preview}{chr(10) + '...' if more else ''}\n"
        "</persisted-output>"
    )


def cut_error(call: ToolCall, result: ToolResult) -> ToolResult:
    """A failure's text cut in the middle past its tool's ``max_error_chars``; other results
    as they are.

    Not a failure of the arguments (``INVALID_ARGS``): Claude Code shows its input errors
    (``<tool_use_error>``) whole, and they are bounded by the arguments' own bound."""
    content = result.content
    limit = call.tool.max_error_chars if call.tool is not None else MAX_ERROR_CHARS
    if not result.is_error or result.code == "INVALID_ARGS" or not isinstance(content, str):
        return result
    if limit is None or len(content) <= limit:
        return result
    keep = limit // 2
    text = (
        f"{content[:keep]}\n\n... [{len(content) - 2 * keep} characters truncated] ...\n\n"
        f"{content[len(content) - keep :]}"
    )
    return ToolResult(text, result.output, True, result.code, result.info)


def persist_output_file(
    source: Path, directory: Path | None, token: CallToken | None
) -> Path | None:
    """A copy of the file ``source`` (a tool's whole output) among the session's tool results,
    named after the call; ``None`` when there is nowhere to put it or it cannot be written."""
    if directory is None or token is None:
        return None

    def copy(sink: IO[bytes]) -> None:
        import shutil  # a large Bash output's copy: not every run's (shutil imports bz2, lzma)

        with source.open("rb") as f:
            shutil.copyfileobj(f, sink, 1 << 20)

    return _create(directory, _names(None, token, "txt"), copy, what=str(token))


def persist_text(directory: Path | None, name: str, text: str) -> Path | None:
    """``text`` saved as ``name`` among the session's tool results (a hook's output too large
    to show, as 2.1.332 saves it there); ``None`` when there is nowhere to put it, the name is
    taken, or it cannot be written."""
    if directory is None:
        return None
    data = text.encode("utf-8", errors="replace")
    return _create(directory, [name], lambda sink: sink.write(data), what=name)


def persist_oversized(call: ToolCall, result: ToolResult, directory: Path | None) -> ToolResult:
    """``result`` with its content persisted and previewed when it is over the tool's limit."""
    definition = call.tool
    if directory is None or result.is_error or definition is None:
        return result
    declared = definition.max_result_chars
    if declared is None:
        return result
    limit = min(declared, DEFAULT_MAX_RESULT_CHARS)
    content = result.content
    if isinstance(content, str):
        size, text, suffix = len(content), content, "txt"
    else:
        if not all(type(block) is TextBlock for block in content):
            return result  # an image is never persisted
        texts = [block.text for block in content if isinstance(block, TextBlock)]
        size = sum(map(len, texts))
        if size <= limit:
            return result
        blocks = [{"type": "text", "text": t} for t in texts]
        text, suffix = json.dumps(blocks, indent=2, ensure_ascii=False), "json"
        size = len(text)
    if size <= limit:
        return result
    path = _write(directory, call, text, suffix)
    if path is None:
        return result
    message = persisted_message(path, size, text)
    return ToolResult(message, result.output, False, None, result.info)


def _write(directory: Path, call: ToolCall, text: str, suffix: str) -> Path | None:
    """The file holding ``text``: ``<tool use id>.<suffix>``, created afresh; ``None`` if not."""
    data = text.encode("utf-8", errors="replace")
    names = _names(call.tool_use_id, call.token, suffix)
    return _create(directory, names, lambda sink: sink.write(data), what=call.name)


def _names(tool_use_id: str | None, token: CallToken | None, suffix: str) -> list[str]:
    """The tool use id if it is a usable file name, then the call's token (unique in the
    session) for a reused or unusable id."""
    names = []
    if tool_use_id is not None and _SAFE_NAME.fullmatch(tool_use_id):
        names.append(f"{tool_use_id}.{suffix}")
    if token is not None:
        names.append(f"{str(token).replace(':', '_')}.{suffix}")
    return names


def _create(
    directory: Path, names: list[str], write: Callable[[IO[bytes]], object], *, what: str
) -> Path | None:
    """The first of ``names`` in ``directory`` created afresh (0600) and filled by ``write``."""
    try:
        make_private_dir(directory)
        for candidate in names:
            path = directory / candidate
            try:
                fd = open_private(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            except FileExistsError:
                continue
            try:
                with os.fdopen(fd, "wb") as f:
                    write(f)
            except BaseException:
                path.unlink(missing_ok=True)  # no half-written file left behind
                raise
            return path
    except (OSError, SessionError, UnicodeError) as exc:
        logger.warning("tool result of %s not persisted in %s: %s", what, directory, exc)
    return None
