"""An ``@file``'s attachment as Claude Code 2.1.332 writes it, and read back for display.

A prompt that mentions a readable text file is sent as two ``<system-reminder>`` blocks
per file (the Read tool's call with the file's absolute path, then its numbered lines),
then the text as typed (``_prompt_input.attach_mentions`` makes them). What the user
sees of such a prompt is what 2.1.332 shows: the text as typed (``typed_text``), and
under it one ``Read PATH (N lines)`` line per file (``attached_reads``), never the
blocks the model reads. No prompt_toolkit or rich here: plain ``dsh run`` imports it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from dsh.messages import Content, TextBlock, content_text

__all__ = [
    "MAX_ATTACHED_LINES",
    "attached_reads",
    "attachment_blocks",
    "read_line",
    "typed_text",
]

MAX_ATTACHED_LINES: Final = 2000
"""What an ``@file`` attaches at most (the Read tool's default window)."""

_CALLED: Final = "<system-reminder>\nCalled the Read tool with the following input: "
_RESULT: Final = "<system-reminder>\nResult of calling the Read tool:\n"
_END: Final = "\n</system-reminder>"


def _numbered(text: str) -> str:
    lines = text.split("\n")[:MAX_ATTACHED_LINES]
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, 1))


def attachment_blocks(path: Path, body: str) -> tuple[TextBlock, TextBlock]:
    """The two blocks that attach ``body``, the text of the file at ``path`` (absolute)."""
    called = json.dumps({"file_path": str(path)}, ensure_ascii=False, separators=(",", ":"))
    return (
        TextBlock(f"{_CALLED}{called}{_END}"),
        TextBlock(f"{_RESULT}{_numbered(body)}{_END}"),
    )


def _blocks(content: Any) -> list[Any]:
    return [] if isinstance(content, str) else list(content)


def _attachment_count(blocks: Sequence[Any]) -> int:
    """How many leading blocks are attachments (the last block is always the typed text)."""
    count = 0
    while count < len(blocks) - 1:
        block = blocks[count]
        if not (isinstance(block, TextBlock) and block.text.startswith((_CALLED, _RESULT))):
            break
        count += 1
    return count


def typed_text(content: Content) -> str:
    """The prompt as typed: ``content``'s text without its leading ``@file`` attachments."""
    blocks = _blocks(content)
    if not blocks:
        return content_text(content)
    return content_text(tuple(blocks[_attachment_count(blocks) :]))


def attached_reads(content: Content) -> list[tuple[str, int]]:
    """Each file ``content`` attaches: its absolute path and how many lines it gave."""
    blocks = _blocks(content)
    found: list[tuple[str, int]] = []
    path = ""
    for block in blocks[: _attachment_count(blocks)]:
        text = block.text
        if text.startswith(_CALLED):
            try:
                called = json.loads(text[len(_CALLED) : -len(_END)])
            except ValueError:
                called = None
            path = str(called.get("file_path", "")) if isinstance(called, dict) else ""
        elif path:
            body = text[len(_RESULT) : -len(_END)] if text.endswith(_END) else ""
            found.append((path, body.count("\n") + 1))
            path = ""
    return found


def read_line(path: str, lines: int, cwd: Path | None = None) -> str:
    """2.1.332's line for an attached file: ``Read notes.txt (2 lines)`` (the path shown
    relative to ``cwd`` when under it; ``2000+ lines`` when the attachment was cut)."""
    here = str(cwd if cwd is not None else Path.cwd())
    shown = os.path.relpath(path, here) if path.startswith(here.rstrip("/") + "/") else path
    if lines >= MAX_ATTACHED_LINES:
        return f"Read {shown} ({MAX_ATTACHED_LINES}+ lines)"
    return f"Read {shown} ({lines} {'line' if lines == 1 else 'lines'})"
