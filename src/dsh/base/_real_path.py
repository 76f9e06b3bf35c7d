"""Where a path really is: symbolic links followed for the file and each parent.

``real_path`` is what every path decision stands on (the permission checks, the
file tools): a file that does not exist yet is its deepest existing parent,
resolved, with the rest of the path after it. ``first_link`` names the first
symbolic link on the way, for messages. A loop, or a link whose target does not
exist, is a ``LinkError`` saying which link and where it points.

The answer is true when it is computed: a link changed afterwards is not seen
(the writers open what they resolved without following links again, see
``dsh.tools.builtin._real_write``).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Final, Literal, final

from dsh._frozen import frozen
from dsh.base._errors import DshError

__all__ = [
    "NAME_MAX",
    "PATH_MAX",
    "LinkError",
    "contained_path",
    "first_link",
    "real_path",
    "real_path_or_self",
]

NAME_MAX: Final = 255
"""The longest file name (bytes) Linux and macOS file systems take."""
PATH_MAX: Final = 4096
"""The longest path (bytes) a system call takes."""


@final
class LinkError(DshError, OSError):
    """A symbolic link on a path that cannot be followed: a loop, or a dangling link."""

    def __init__(self, kind: Literal["loop", "dangling"], link: Path, target: Path) -> None:
        self.kind = kind
        self.link = link
        self.target = target
        if kind == "loop":
            text = f"{link} is a symbolic link in a loop (it never reaches a file)"
        else:
            text = f"{link} is a symbolic link to {target}, which does not exist"
        super().__init__(errno.ELOOP if kind == "loop" else errno.ENOENT, text)

    def __str__(self) -> str:
        return str(self.strerror)


@final
@frozen(kw_only=True)
class _Existing:
    path: Path
    tail: tuple[str, ...]


def _deepest_existing(path: Path) -> _Existing:
    tail: list[str] = []
    p = path
    while not os.path.lexists(p) and p.parent != p:
        tail.append(p.name)
        p = p.parent
    return _Existing(path=p, tail=tuple(reversed(tail)))


def real_path(path: Path) -> Path:
    """``path`` (absolute) with every symbolic link followed; ``LinkError`` for a loop or a
    link to nothing. Parts that do not exist yet are kept as written."""
    found = _deepest_existing(path)
    try:
        real = os.path.realpath(found.path, strict=True)
    except OSError as exc:
        link = first_link(found.path) or found.path
        if exc.errno == errno.ELOOP:
            raise LinkError("loop", link, link) from None
        if isinstance(exc, FileNotFoundError):
            raise LinkError("dangling", link, Path(os.path.realpath(found.path))) from None
        raise
    return Path(os.path.normpath(os.path.join(real, *found.tail)))


def real_path_or_self(path: Path) -> Path:
    """``real_path``, or where a dangling link points, or ``path`` itself for a loop or an
    unreadable directory: for decisions, which must not fail on what a tool will refuse."""
    try:
        return real_path(path)
    except LinkError as exc:
        return exc.target if exc.kind == "dangling" else path
    except OSError:
        return path


def first_link(path: Path) -> Path | None:
    """The first symbolic link on ``path`` from the root down (itself included), if any."""
    parts = path.parts
    for i in range(1, len(parts) + 1):
        here = Path(*parts[:i])
        if os.path.islink(here):
            return here
    return None


def contained_path(root: Path, relative: str) -> Path | str:
    """``root / relative`` where it really is, when that is a usable path inside ``root``
    (itself resolved); else why not, as words to follow the path in a sentence (``has a
    NUL byte``, ``leaves the plugin``...). For paths a manifest names inside its plugin."""
    if "\x00" in relative:
        return "has a NUL byte"
    try:
        encoded = os.fsencode(relative)
    except UnicodeError:
        return "is not a file name this system can write"
    if len(encoded) > PATH_MAX:
        return f"is over {PATH_MAX} bytes"
    if any(len(part) > NAME_MAX for part in encoded.split(b"/")):
        return f"has a name over {NAME_MAX} bytes"
    try:
        base = real_path(root)
        found = real_path(root / relative)
    except OSError as exc:
        return f"cannot be followed ({exc})"
    except ValueError:
        return "is not a usable path"
    if found != base and base not in found.parents:
        return "leaves the plugin"
    return found
