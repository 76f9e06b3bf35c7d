"""A hook's output too large to show, saved to a file as Claude Code 2.1.332 saves it.

An ``additionalContext``, or a plain stdout the model is shown (``SHOWN_STDOUT``), over
10,000 characters (``HOOK_OUTPUT_CAP``) is written whole among the session's tool results
(``hook-<id>-<Event>-<hash>-additionalContext.txt``, ``hook-<id>-<hash>-stdout.txt``; ``<id>``
the call's tool-use id, else the session's) and the model gets, in its place, the
``<persisted-output>`` block a large tool result gets: its size, the file, a 2,000-character
preview (recorded: ``hook-output-big`` in ``tests/fixtures/claude_strict.json``). This is
done as the answer is decoded (``answers._caps.cap_answer``), so the session log keeps the
preview, not the whole text. Where it cannot be saved (no session file, a full disk) the
text is cut at 10,000 characters with a note, as every other text of an answer is.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from dsh.hooks.claude.answers._caps import Saver
from dsh.tools._persist import persist_text, persisted_message

__all__ = ["SHOWN_STDOUT", "output_saver"]

SHOWN_STDOUT: Final = frozenset(
    {"SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PostModelSwitch"}
)
"""The events whose plain stdout reaches the model (elsewhere it is capped, not saved)."""


def output_saver(
    directory: Path | None, event: str, payload: Mapping[str, Any], session: str
) -> Saver | None:
    """How one firing's hooks' long outputs are saved; ``None``: nowhere to save them."""
    if directory is None:
        return None
    owner = str(payload.get("tool_use_id") or session)

    def save(label: str, text: str) -> str | None:
        if label == "stdout" and event not in SHOWN_STDOUT:
            return None
        digest = hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:32]
        stem = f"hook-{owner}-{digest}" if label == "stdout" else f"hook-{owner}-{event}-{digest}"
        name = f"{stem}-{label}.txt"
        path = persist_text(directory, name, text)
        if path is None and (directory / name).is_file():
            path = directory / name  # the same output saved before keeps its file
        return None if path is None else persisted_message(path, len(text), text)

    return save
