"""``SessionError``: the root of the session store's errors, below every store module.

It has a module of its own so that the private-file layer (which the stored
events read through) and the store base (which holds the stored events) can
both raise it without importing each other.
"""

from __future__ import annotations

from pathlib import Path

from dsh.base import DshError

__all__ = ["SessionError", "SessionWriteError", "write_failure"]


class SessionError(DshError):
    """A session store operation failed."""


class SessionWriteError(SessionError):
    """The session log could not be written (disk full, a file-size limit, an I/O error,
    the file deleted under the running session): nothing more is recorded, and what was
    recorded before stays readable. ``path`` is the file, ``reason`` why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"cannot write the session log {path}: {reason}")
        self.path = path
        self.reason = reason


def write_failure(path: Path, exc: OSError) -> SessionWriteError:
    """The ``SessionWriteError`` an ``OSError`` writing ``path`` is."""
    return SessionWriteError(path, exc.strerror or str(exc))
