"""Writing a file where it really is, and never through a link swapped in meanwhile.

The file tools resolve the path they are given (``dsh.base._real_path.real_path``:
symbolic links followed for the file and each parent), so a write through a
link changes the link's target and keeps the link. Then ``replace_text`` walks
from ``/`` to the resolved parent one directory at a time, each opened with
``O_NOFOLLOW`` relative to the one before, creates the temporary file in it
with ``O_EXCL | O_NOFOLLOW`` and renames it over the final name inside that
same directory: a link put on the way after the resolution is refused
(``ELOOP``/``ENOTDIR``), not followed.

The limit (TOCTOU): the permission check resolves the path when it decides;
a link changed between that decision and the tool's run is resolved again by
the tool, which then writes where it points without asking again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

__all__ = ["replace_text"]

# O_PATH where there is one (Linux): a directory one may only pass through (mode 0711)
# is walked as the kernel's own lookup walks it, without read permission.
_WALK = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_CLOEXEC
_DIR_FLAGS = _WALK | os.O_NOFOLLOW


def _open_dir(path: Path) -> int:
    """A descriptor of the directory ``path`` (absolute, no links), made where missing."""
    fd = os.open("/", _WALK)
    try:
        for part in path.parts[1:]:
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                # Made meanwhile by someone else: opened below all the same, links refused.
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def replace_text(path: Path, text: str) -> None:
    """Replace the content of ``path`` (resolved: absolute, no links) atomically: a crash
    leaves the old file or the new one. The file keeps its permission bits; a new one gets
    the umask's."""
    directory = _open_dir(path.parent)
    name = path.name
    tmp = f".{name}.{secrets.token_hex(4)}.dsh-tmp"
    try:
        try:
            st = os.stat(name, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        else:
            if stat.S_ISLNK(st.st_mode):
                raise OSError(errno.ELOOP, f"{path} became a symbolic link while it was written")
            mode = stat.S_IMODE(st.st_mode)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o600, dir_fd=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(text)
                os.fchmod(f.fileno(), mode)
            os.replace(tmp, name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=directory)
            raise
    finally:
        os.close(directory)
