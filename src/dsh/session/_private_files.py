"""Session files are private and symlink-safe: 0600 files in 0700 directories, no link followed.

A session log holds everything a user and a model said; anyone who can plant a
symlink in the data directory must not make dsh write (or read) through it. Every
file the store opens is opened with ``O_NOFOLLOW`` (a planted link is refused
with ``UnsafeSessionPathError``, naming it), and what it creates is made 0600
whatever the umask (the directories it creates, 0700).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from dsh.session._session_error import SessionError

__all__ = [
    "UnsafeSessionPathError",
    "make_private_dir",
    "open_private",
    "read_private",
    "refuse_symlink",
]

_FILE_MODE = 0o600
_DIR_MODE = 0o700


class UnsafeSessionPathError(SessionError):
    """A session file is a symlink (or not a regular file): the store will not follow it."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}; refusing to follow it")
        self.path = path
        self.problem = problem


def refuse_symlink(path: Path) -> None:
    """``UnsafeSessionPathError`` when ``path`` exists and is a symlink or not a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeSessionPathError(path, "is a symbolic link")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeSessionPathError(path, "is not a regular file")


def open_private(path: Path, flags: int) -> int:
    """``os.open(path, flags | O_NOFOLLOW)``, a created file made 0600; refuses a symlink."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, _FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeSessionPathError(path, "is a symbolic link") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeSessionPathError(path, "is not a regular file")
        if flags & os.O_CREAT and stat.S_IMODE(st.st_mode) != _FILE_MODE:
            # The umask may have taken the owner's bits, or an older dsh left 0644.
            os.fchmod(fd, _FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_private(path: Path, end: int | None = None) -> bytes:
    """The content of ``path`` (up to byte ``end``, if given), never through a symlink."""
    fd = open_private(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as f:
        return f.read(-1 if end is None else end)


def make_private_dir(directory: Path) -> None:
    """Create ``directory`` (and its parents) if missing; the ones created here are 0700."""
    if directory.is_dir():
        return
    missing = []
    at = directory
    while not at.exists():
        missing.append(at)
        at = at.parent
    directory.mkdir(parents=True, exist_ok=True)
    for created in missing:
        # mkdir's mode is cut by the umask; chmod is not.
        os.chmod(created, _DIR_MODE)
