"""The process tree walk and kill shared by dsh and its watchdog (standard library only).

Run as a script (``python -I -S _watchdog.py``) it is the watchdog: it reads
``+PID``/``-PID`` lines (a contained process group, or its release) from stdin
and, when stdin closes because dsh is gone (an exit, a crash, kill -9 alike),
SIGKILLs every contained group and every process still under it, then exits.
Imported, it gives ``dsh.base._containment`` the same walk.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

__all__ = ["descendants", "kill_tree", "parent_map"]


def parent_map() -> dict[int, int]:
    """Every process's parent pid, from ``/proc`` (empty where there is none)."""
    parents: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return parents
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
            # The command name may hold spaces and parentheses: the fields follow the last ')'.
            parents[int(name)] = int(data.rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return parents


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
    for leader in leaders:
        _kill(leader, group=True)
        _kill(leader, group=False)  # a root that is not (or no longer) its group's leader
    for pid in below:
        _kill(pid, group=False)
    for pgid in groups - leaders - {own}:
        _kill(pgid, group=True)
    return below


def _watch() -> None:
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


if __name__ == "__main__":
    _watch()
