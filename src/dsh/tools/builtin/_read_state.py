"""Which files the session has read (or written), and when: what NotebookEdit checks first,
and what Edit's ending says (``_write``). Kept by real path, so a link and its target agree.

2.1.332 refuses to edit a notebook the conversation has not read, or one changed on disk
since it was read (``File has not been read yet``, ``File has been modified since read``).
The record lives in ``Workspace.session_state`` (as long as the session's workspace): each
read path with the file's modification time then, updated when NotebookEdit writes it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from dsh.tools._types import Workspace

__all__ = ["READ_STATE_KEY", "note_read", "read_time"]

READ_STATE_KEY = "dsh.read_files"
"""Where the read files live in ``Workspace.session_state``: absolute path → mtime (ns)."""


def _files(workspace: Workspace) -> dict[str, int]:
    files = workspace.session_state.get(READ_STATE_KEY)
    if not isinstance(files, dict):
        files = workspace.session_state[READ_STATE_KEY] = {}
    return files


def note_read(workspace: Workspace, path: Path) -> None:
    """Remember that ``path`` was read (or written by a tool that keeps it read) now."""
    with contextlib.suppress(OSError):
        _files(workspace)[os.path.realpath(path)] = path.stat().st_mtime_ns


def read_time(workspace: Workspace, path: Path) -> int | None:
    """The modification time ``path`` had when last read, or ``None`` if it never was."""
    return _files(workspace).get(os.path.realpath(path))
