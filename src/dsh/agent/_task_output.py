"""A background subagent's output file: the child's session events as JSONL, private, bounded.

2.1.332 names a file in the launch result and the ``<task-notification>`` (``output_file``,
``/tmp/claude-<uid>/<project>/<session>/tasks/<agent>.output``) that holds the subagent's
whole JSONL transcript while it runs. dsh's equivalent lives beside the parent's session
log: ``<session dir>/<root session id>/tasks/<agent id>.output``, one line per event of the
child's log as the log writes it (``encode_event``), 0600 in 0700 directories, never through
a symlink. It stops growing at ``MAX_OUTPUT_BYTES``, with one last line saying so. A session
with no file (an in-memory store) has no output file. Writing it never fails the child: a
file that cannot be written is logged and left as it is.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Final, final

from dsh.session import SessionError, SessionEvent
from dsh.session._codec import encode_event
from dsh.session._private_files import make_private_dir, open_private

if TYPE_CHECKING:
    from dsh.agent._agent import Agent

__all__ = ["MAX_OUTPUT_BYTES", "TaskOutput", "open_output", "output_path"]

logger = logging.getLogger("dsh.agent")

MAX_OUTPUT_BYTES: Final = 8 * 1024 * 1024
"""The most an output file holds; the child's own session log keeps everything."""


def output_path(parent: Agent, agent_id: str) -> Path | None:
    """Where ``agent_id``'s output goes: beside the root session's log (``None``: no log file)."""
    root = parent
    while root.parent is not None:
        root = root.parent
    log_path = root.session.path
    if log_path is None:
        return None
    return log_path.parent / root.session_id / "tasks" / f"{agent_id}.output"


def open_output(parent: Agent, agent_id: str, *, append: bool = False) -> TaskOutput | None:
    """``agent_id``'s output file, created (``append``: a resumed agent's, continued as
    2.1.332 continues it); ``None`` when there is none or it cannot be."""
    path = output_path(parent, agent_id)
    if path is None:
        return None
    output = TaskOutput(path, append=append)
    return output if output.opened else None


@final
class TaskOutput:
    """The output file of one background subagent, written as the child's log grows."""

    __slots__ = ("_fd", "_written", "path")

    def __init__(self, path: Path, *, append: bool = False) -> None:
        self.path = path
        self._written = 0
        self._fd: int | None = None
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (0 if append else os.O_TRUNC)
        try:
            make_private_dir(path.parent)
            self._fd = open_private(path, flags)
            self._written = os.fstat(self._fd).st_size  # the bound counts what is there
        except (OSError, SessionError) as exc:  # a planted link: UnsafeSessionPathError
            logger.warning("subagent output %s cannot be written: %s", path, exc)

    @property
    def opened(self) -> bool:
        """Whether the file is open for writing (not refused, not closed)."""
        return self._fd is not None

    def write(self, event: SessionEvent) -> None:
        """Append ``event``'s line (the ``on_event`` of the child)."""
        if self._fd is None:
            return
        line = (encode_event(event) + "\n").encode("utf-8")
        if self._written + len(line) > MAX_OUTPUT_BYTES:
            note = {"type": "dsh/output-truncated", "limit_bytes": MAX_OUTPUT_BYTES}
            self._append((json.dumps(note) + "\n").encode("utf-8"))
            self.close()
            return
        self._append(line)

    def _append(self, data: bytes) -> None:
        assert self._fd is not None
        try:
            os.write(self._fd, data)
            self._written += len(data)
        except OSError as exc:
            logger.warning("subagent output %s: write failed: %s", self.path, exc)
            self.close()

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)
