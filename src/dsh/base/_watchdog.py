"""The process tree walk and kill shared by dsh and its watchdog (standard library only).

Run as a script (``python -I -S _watchdog.py TOKEN``) it is the watchdog: it reads
``+PID``/``-PID`` lines (a contained process group, or its release) from stdin
and, when stdin closes because dsh is gone (an exit, a crash, kill -9 alike),
SIGKILLs every contained group, every process still under it and every process
of its user whose environment carries one of dsh's containment marks
(``DSH_CONTAINMENT``, words ``TOKEN.N``): what double-forked out of every tree
just before dsh died, re-parented to init. Imported, it gives
``dsh.base._containment`` the same walk and the same search.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable

__all__ = [
    "CONTAINMENT_ENV",
    "carriers",
    "descendants",
    "group_members",
    "kill_tree",
    "marks",
    "parent_map",
    "running",
]

CONTAINMENT_ENV = "DSH_CONTAINMENT"
_KEY = CONTAINMENT_ENV.encode() + b"="
_DEAD = (b"Z", b"X")  # states of a process that is dead, its parent not told yet
_ROUNDS = 5  # a search finds what forked while the last one killed; a bound, not a loop forever


def _stat(name: str) -> list[bytes]:
    """The fields of ``/proc/NAME/stat`` after the command name (empty when it is gone)."""
    try:
        with open(f"/proc/{name}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return []
    # The command name may hold spaces and parentheses: the fields follow the last ')'.
    return data.rsplit(b")", 1)[-1].split()


def parent_map() -> dict[int, int]:
    """Every process's parent pid, from ``/proc`` (empty where there is none)."""
    parents: dict[int, int] = {}
    for name in _pids():
        with contextlib.suppress(ValueError, IndexError):
            parents[int(name)] = int(_stat(name)[1])
    return parents


def group_members(pgid: int) -> set[int]:
    """Every live process in group ``pgid`` (zombies left out), from ``/proc``."""
    members: set[int] = set()
    for name in _pids():
        fields = _stat(name)
        with contextlib.suppress(ValueError, IndexError):
            if int(fields[2]) == pgid and fields[0] not in _DEAD:
                members.add(int(name))
    return members


def running(pid: int | str) -> bool:
    """Whether ``pid`` is a process that has not died (not a zombie)."""
    fields = _stat(str(pid))
    return bool(fields) and fields[0] not in _DEAD


def _pids() -> list[str]:
    try:
        return [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def marks(pid: int | str) -> list[bytes]:
    """The containment marks in ``pid``'s environment (none when it is unreadable or gone)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            data = f.read()
    except OSError:  # another user's, gone, or not dumpable
        return []
    if _KEY not in data:
        return []
    for item in data.split(b"\0"):
        if item.startswith(_KEY):
            return item[len(_KEY) :].split()
    return []


def carriers(match: Callable[[bytes], bool], pids: Iterable[int | str] | None = None) -> set[int]:
    """The processes of this user (of ``pids``, else all) with a mark ``match`` accepts."""
    uid, me = os.getuid(), os.getpid()
    found: set[int] = set()
    for pid in _pids() if pids is None else pids:
        if int(pid) == me or not any(match(mark) for mark in marks(pid)):
            continue
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{pid}").st_uid == uid:
                found.add(int(pid))
    return found


def descendants(roots: set[int], parents: dict[int, int] | None = None) -> set[int]:
    """Every process under ``roots`` (not the roots themselves), however it left their group."""
    parents = parent_map() if parents is None else parents
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    todo = list(roots)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found and child not in roots:
                found.add(child)
                todo.append(child)
    return found


def _kill(pid: int, *, group: bool) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if group:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)


def kill_tree(leaders: set[int]) -> set[int]:
    """SIGKILL the groups ``leaders`` lead, every process under them and those processes' groups.

    The tree is read before anything is killed (a killed parent's children are re-parented
    away). Returns the descendants found.
    """
    below = descendants(leaders)
    groups: set[int] = set()
    for pid in below:
        with contextlib.suppress(OSError):
            groups.add(os.getpgid(pid))
    own = os.getpgrp()
    # Every group first, each at once: a member killed alone before its group could let the
    # group's leader (a shell waiting for it) exit on its own first, 137 instead of SIGKILL.
    for leader in leaders:
        _kill(leader, group=True)
    for leader in leaders:
        _kill(leader, group=False)  # a root that is not (or no longer) its group's leader
    for pid in below:
        _kill(pid, group=False)
    for pgid in groups - leaders - {own}:
        _kill(pgid, group=True)
    return below


def _watch(token: bytes) -> None:
    contained: set[int] = set()
    for line in sys.stdin.buffer:
        text = line.strip()
        with contextlib.suppress(ValueError):
            if text[:1] == b"+":
                contained.add(int(text[1:]))
            elif text[:1] == b"-":
                contained.discard(int(text[1:]))
    if contained:
        kill_tree(contained)
    if not token:
        return
    prefix = token + b"."
    for _ in range(_ROUNDS):
        marked = carriers(lambda mark: mark.startswith(prefix))
        if not marked:
            return
        kill_tree(marked)
        time.sleep(0.01)  # SIGKILLed processes lose their environment (and their match) at once


if __name__ == "__main__":
    _watch(os.fsencode(sys.argv[1]) if len(sys.argv) > 1 else b"")
