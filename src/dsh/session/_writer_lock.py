"""The single-writer rule of a JSONL session: an exclusive ``flock`` on ``<id>.lock``.

The kernel drops the lock when its descriptor closes or the process dies, so a
crashed writer never leaves a stale one; the file's content only names the
holder, for the error a second writer gets.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from dsh.session._private_files import open_private
from dsh.session._store_base import SessionLockedError

__all__ = ["take_writer_lock"]


def take_writer_lock(session_id: str, lock_path: Path) -> int:
    """The descriptor holding ``session_id``'s lock; ``SessionLockedError`` if another holds it."""
    fd = open_private(lock_path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = None
        with contextlib.suppress(OSError):
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or None
        os.close(fd)
        raise SessionLockedError(session_id, lock_path, holder) from None
    except BaseException:
        os.close(fd)
        raise
    # The lock file is never deleted: unlinking it would let two writers
    # lock two different inodes. Its content only names the holder.
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd
