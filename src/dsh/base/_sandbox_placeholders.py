"""Placeholders for the protected names that do not exist yet, for as long as dsh runs.

A protected name (``.git``, ``.codex``, ``.claude/settings.json``...) that does not exist
at the top of a writable root could be created by a sandboxed command, and a name Linux
cannot mount on does not exist: so, as Codex 0.171 and Claude Code do, an empty
**placeholder** is made on disk and the sandboxed command's mount namespace binds it
read-only like any protected path (``mkdir .git``, ``ln -s x .git``: ``File exists``;
``mv x .git``, ``rm -r .git``: ``Device or resource busy``; beneath it: ``Read-only file
system``). A placeholder is an empty directory, or a settings file holding ``{}`` (what
reads as no settings), with mode ``0555``/``0444`` and a modification time of 0 (the
epoch): its **mark**, which only a process outside the sandbox can change.

Lifetime: from the first sandboxed spawn that needs it until the session ends, not one
command: what a command leaves running (a double-forked child) keeps its mount namespace,
and removing the placeholder then would detach the mount and open the name. dsh holds a
shared ``flock`` on each placeholder it uses and tells its watchdog (``_watchdog.py``). At
the session's end, after the sweep of what it left running (``after_sweep``), dsh removes
them itself once nothing it started runs; when dsh ends otherwise (kill -9 included), the
watchdog waits until dsh's namespace and
every contained process is gone, then removes each placeholder that still bears the mark,
is still empty and that no other dsh holds (an exclusive ``flock`` it can take): two dsh
processes in one project share one placeholder, the last to end removes it. One left by
a machine that crashed is found by the next sandboxed spawn there (nobody holds it) and
used, then removed as its own.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from dsh.base._watchdog import is_placeholder, remove_placeholder

__all__ = ["hold_paths", "hold_placeholders", "placeholder_targets", "release_placeholders"]

_DIR_NAMES: Final = (".git", ".agents", ".codex", ".aws", ".dsh")
_SETTINGS_DIR: Final = ".claude"
_SETTINGS_FILES: Final = ("settings.json", "settings.local.json")
_FILE_BODY: Final = b"{}"  # a settings placeholder reads as settings that set nothing

_LOCK = threading.Lock()
_HELD: dict[str, int] = {}  # path -> the descriptor holding its shared lock


def _let_go() -> None:
    """In a child this process forked: the placeholders are its parent's. Holding their
    locks, it would keep the watchdog from removing them once the parent is gone."""
    global _LOCK
    _LOCK = threading.Lock()
    for fd in _HELD.values():
        os.close(fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_let_go)


def placeholder_targets(top: Path) -> list[tuple[Path, bool]]:
    """The protected names missing at the top of ``top`` (resolved): each ``(path, is_dir)``
    a placeholder would stand for. ``.claude``'s settings files need ``.claude`` itself when
    it is missing, and nothing when it is not a real directory (a link leads elsewhere,
    where Landlock decides) or is a placeholder itself."""
    found = [(top / name, True) for name in _DIR_NAMES if not os.path.lexists(top / name)]
    settings = top / _SETTINGS_DIR
    if not os.path.lexists(settings):
        found.append((settings, True))
    elif settings.is_dir() and not settings.is_symlink() and os.fspath(settings) not in _HELD:
        files = [settings / name for name in _SETTINGS_FILES]
        found += [(f, False) for f in files if not os.path.lexists(f)]
    return found


def hold_placeholders(tops: Iterable[Path]) -> list[Path]:
    """Make (or share) a placeholder at each missing protected name of ``tops`` (resolved);
    every placeholder held beneath them, made now or earlier (to bind read-only). A name that
    appears meanwhile, not a placeholder, is left to the caller's protected paths."""
    tops = list(tops)
    parents = {*tops, *(t / _SETTINGS_DIR for t in tops)}
    with _LOCK:
        for top in tops:
            for path, is_dir in placeholder_targets(top):
                _hold(path, is_dir)
        return [Path(key) for key in _HELD if Path(key).parent in parents]


def hold_paths(paths: Iterable[Path]) -> list[Path]:
    """Make (or share) a directory placeholder at each of ``paths`` (resolved, missing, their
    parents there), unless one held stands above it: those held for them, to bind read-only
    (``filesystem.denyWrite`` paths that do not exist yet)."""
    held: list[Path] = []
    with _LOCK:
        for path in paths:
            # Beneath a placeholder held already (made for this path by an earlier spawn):
            # that one stands for it, never one inside it.
            above = next((p for p in path.parents if os.fspath(p) in _HELD), None)
            if above is not None or _hold(path, True):
                held.append(above or path)
    return list(dict.fromkeys(held))


def _hold(path: Path, is_dir: bool) -> bool:
    key = os.fspath(path)
    if key in _HELD:
        return True
    for _ in range(3):  # another dsh may be removing the one it found: then make it anew
        try:
            _make(path, is_dir)
        except FileExistsError:
            pass
        except OSError:
            return False  # not writable here (nor, then, by the command): nothing to stand in
        try:
            fd = os.open(key, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            here = os.lstat(key)
            mine = os.fstat(fd)
        except OSError:
            os.close(fd)
            continue
        if (here.st_dev, here.st_ino) != (mine.st_dev, mine.st_ino):
            os.close(fd)  # removed and made again while this opened it
            continue
        if not is_placeholder(key, mine):
            os.close(fd)  # a real one appeared: the caller binds it as it is
            return False
        if not _HELD:
            from dsh.base._containment import after_sweep

            atexit.register(_at_exit)
            after_sweep(_at_exit)  # a session's end (dsh leaves with os._exit: no atexit)
        _HELD[key] = fd
        _tell(f">{key.encode().hex()}")
        return True
    return False


def _make(path: Path, is_dir: bool) -> None:
    if is_dir:
        os.mkdir(path, 0o555)
        os.utime(path, (0, 0))
        return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o444)
    try:
        os.write(fd, _FILE_BODY)
        os.utime(fd, (0, 0))
    finally:
        os.close(fd)


def _tell(line: str) -> None:
    from dsh.base._containment import tell_watchdog

    tell_watchdog(line)


def _at_exit() -> None:
    """At a session's end (after its sweep) or a normal exit, remove the placeholders now
    when nothing dsh started still runs; else the watchdog does, once the kernel has."""
    from dsh.base._containment import anything_contained_running

    if not anything_contained_running():
        release_placeholders()


def release_placeholders() -> int:
    """Let go of every placeholder this process holds and remove those nobody else holds
    (dsh's exit does it through the watchdog; this is for a process without one, and tests).
    The number removed."""
    removed = 0
    with _LOCK:
        for key, fd in list(_HELD.items()):
            os.close(fd)
            del _HELD[key]
            removed += remove_placeholder(key)
            _tell(f"<{key.encode().hex()}")
    return removed
