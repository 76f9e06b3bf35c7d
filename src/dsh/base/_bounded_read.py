"""Reading a file dsh did not write: never blocking, never more than a bound.

Every file dsh reads from outside (settings, manifests, instruction files, trust
records, config, scripts) goes through here. It is opened with ``O_NONBLOCK``, so
a FIFO planted where a file was expected does not hang the run; then ``fstat``
must say it is a regular file (a FIFO, a device or a socket is refused by name,
never read); its size is checked before a byte is read; and the read itself is
bounded, since a file may grow between the check and the read. A file over its
bound is refused (``read_bounded``) or cut (``read_head``), never read whole.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final, final

from dsh._frozen import frozen
from dsh.base._errors import DshError

__all__ = ["FileHead", "UnreadableFileError", "read_bounded", "read_head"]

_CHUNK: Final = 1 << 20


class UnreadableFileError(DshError, OSError):
    """A file that is not a regular file, or is over its bound: ``path``, ``what`` it was
    to be, and the ``reason``. An ``OSError`` too, so a caller that reports unreadable
    files already reports these (``strerror`` is the reason).
    """

    def __init__(self, path: Path, what: str, reason: str) -> None:
        super().__init__(0, reason)
        self.path = path
        self.what = what
        self.reason = reason
        self.filename = str(path)

    def __str__(self) -> str:
        return f"{self.what} {self.path}: {self.reason}"


@final
@frozen
class FileHead:
    """The first bytes of a file (``data``) and the file's ``size`` when it was read."""

    data: bytes
    size: int

    @property
    def cut(self) -> bool:
        """Whether the file holds more than ``data``."""
        return self.size > len(self.data)


def read_bounded(path: Path | str, limit: int, what: str, *, follow: bool = True) -> bytes:
    """All of the regular file ``path``, refusing one over ``limit`` bytes before reading it.

    ``what`` names the file in the error (``"settings file"``). A missing file is
    ``FileNotFoundError``; other failures to open or read are the ``OSError`` the
    system gave (``follow=False``: a symlink is refused, ``ELOOP``); not a regular
    file, or over ``limit``: ``UnreadableFileError``.
    """
    head = _read(Path(path), limit, what, refuse_over=True, follow=follow)
    return head.data


def read_head(path: Path | str, limit: int, what: str) -> FileHead:
    """The first ``limit`` bytes of the regular file ``path`` and its size (``cut`` when
    it holds more); the same refusals as ``read_bounded`` but for the size."""
    return _read(Path(path), limit, what, refuse_over=False, follow=True)


def _read(path: Path, limit: int, what: str, *, refuse_over: bool, follow: bool) -> FileHead:
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    fd = os.open(path, flags if follow else flags | os.O_NOFOLLOW)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableFileError(path, what, f"is {_kind(st.st_mode)}, not a regular file")
        if refuse_over and st.st_size > limit:
            raise UnreadableFileError(path, what, _over(st.st_size, limit))
        chunks: list[bytes] = []
        left = limit + 1  # one byte more: a file that grew past the bound is seen to
        while left > 0 and (chunk := os.read(fd, min(left, _CHUNK))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        if refuse_over:
            raise UnreadableFileError(path, what, _over(max(st.st_size, len(data)), limit))
        return FileHead(data[:limit], max(st.st_size, len(data)))
    return FileHead(data, len(data))  # read to its end


def _over(size: int, limit: int) -> str:
    return f"is {size:,} bytes, over the {limit:,}-byte bound"


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "a special file"
