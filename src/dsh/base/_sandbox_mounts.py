"""The sandboxed command's own mount namespace: what it sees read-only, hidden or re-opened.

``MountPlan`` is built in dsh (paths resolved, flags read) and applied in the child between
``fork`` and ``exec`` (``apply``), before Landlock. In order:

1. every mount **read-only** (``mount_setattr``, recursive, Linux 5.12+), then each
   writable root bound back in place from a clone of its mount taken before (so it keeps
   its own flags): outside the writable roots, what Landlock does not govern (``chmod``,
   ``chown``, times, extended attributes) fails with ``EROFS``, as under Codex 0.171's
   bubblewrap (``--ro-bind / /`` then each writable root). Where the kernel has no
   ``mount_setattr``, this step is left out and Landlock alone holds;
2. each **protected** path (or its placeholder) bound read-only onto itself;
3. each **unreadable** path covered by an empty read-only mount (a ``tmpfs`` over a
   directory, ``/dev/null`` over a file), the readable paths beneath it bound back in place.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeAlias, final

from dsh._frozen import frozen

if TYPE_CHECKING:
    from dsh.base._sandbox_kernel import KernelCalls

__all__ = ["MountPlan", "Reopen", "reopen"]

_MS_RDONLY, _MS_REMOUNT, _MS_BIND = 0x1, 0x20, 0x1000
_MS_REC, _MS_SLAVE = 0x4000, 0x80000
_MS_EMPTY: Final = 0x2 | 0x4 | 0x8  # nosuid, nodev, noexec: a denyRead placeholder

Reopen: TypeAlias = tuple[bytes, list[bytes], bool]
"""A readable path inside an unreadable directory: itself, the mount point's components
from that directory down (each made in the empty mount), whether it is a directory."""


def reopen(hidden: Path, path: Path) -> Reopen:
    """How ``path`` (beneath the unreadable directory ``hidden``) is bound back inside it."""
    parts = path.relative_to(hidden).parts
    steps = [os.fsencode(hidden.joinpath(*parts[: i + 1])) for i in range(len(parts))]
    return os.fsencode(path), steps, path.is_dir()


def _outermost(paths: list[Path]) -> list[bytes]:
    """Existing directories of ``paths``, resolved, but those beneath another (its clone
    holds them), outermost first."""
    found = sorted({p.resolve() for p in paths if p.is_dir()}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in found:
        if not any(path.is_relative_to(k) for k in kept):
            kept.append(path)
    return [os.fsencode(p) for p in kept]


@final
@frozen
class MountPlan:
    """What the child mounts (see the module): ``writable`` roots bound back after every
    mount is made read-only; ``binds`` (path, flags to keep) bound read-only; ``hidden``
    (path, is a directory, readable paths beneath) covered."""

    writable: list[bytes]
    binds: list[tuple[bytes, int]]
    hidden: list[tuple[bytes, bool, list[Reopen]]]
    null_flags: int

    @classmethod
    def of(
        cls,
        writable: list[Path],
        binds: list[tuple[bytes, int]],
        hidden: list[tuple[bytes, bool, list[Reopen]]],
        null_flags: int,
    ) -> MountPlan:
        return cls(_outermost(writable), binds, hidden, null_flags)

    def apply(self, calls: KernelCalls) -> None:
        """In the child, in its own new mount namespace (no imports, no threads)."""
        calls.mount(None, b"/", _MS_REC | _MS_SLAVE)
        trees = [calls.open_tree(root) for root in self.writable]
        if calls.read_only_everywhere():
            for tree, root in zip(trees, self.writable, strict=True):
                calls.move_mount(tree, root)
        for tree in trees:
            os.close(tree)
        for path, flags in self.binds:
            calls.mount(path, path, _MS_BIND | _MS_REC)
            calls.mount(None, path, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | flags)
        for path, is_dir, reopened in self.hidden:  # denyRead: an empty read-only mount over it
            if is_dir:
                _cover(calls, path, reopened)
            else:
                calls.mount(b"/dev/null", path, _MS_BIND)
                flags = _MS_BIND | _MS_REMOUNT | _MS_RDONLY | self.null_flags
                calls.mount(None, path, flags)


def _cover(calls: KernelCalls, path: bytes, reopened: list[Reopen]) -> None:
    """In the child: an empty ``tmpfs`` over ``path``, each ``reopened`` path bound back in
    place inside it (a clone of its mount taken before it is covered), then read-only."""
    if not reopened:
        calls.mount(b"tmpfs", path, _MS_RDONLY | _MS_EMPTY, b"tmpfs")
        return
    trees = [calls.open_tree(source) for source, _, _ in reopened]
    calls.mount(b"tmpfs", path, _MS_EMPTY, b"tmpfs", b"mode=0755")
    for tree, (_, steps, is_dir) in zip(trees, reopened, strict=True):
        for step in steps[:-1]:
            with contextlib.suppress(FileExistsError):
                os.mkdir(step, 0o755)
        if is_dir:
            with contextlib.suppress(FileExistsError):
                os.mkdir(steps[-1], 0o755)
        else:
            os.close(os.open(steps[-1], os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o444))
        calls.move_mount(tree, steps[-1])
        os.close(tree)
    calls.mount(None, path, _MS_REMOUNT | _MS_RDONLY | _MS_EMPTY)
