"""No process dsh starts outlives its owner: process trees contained, on Linux.

Every hook and Bash process is a group leader (and a session leader where dsh
has a terminal: ``own_session``); the executor and
the Bash tool ``contain_process`` it right after the spawn and ``end_process_tree`` it on a
timeout, an abort or a cancellation: that SIGKILLs its group, every process
still under it (found through ``/proc``, read before the kill) and their groups,
so a ``setsid`` or ``setpgid`` child dies with the rest.

- **dsh's own death.** The first ``contain_process`` starts a watchdog (``_watchdog.py``,
  in its own session) fed the contained pids on a pipe. When dsh exits in any
  way, kill -9 included, the pipe closes and the watchdog ends every group
  still contained and the trees under them.
- **Session end.** ``sweep_processes`` ends every group that outlived its run (what a
  hook left running in the background after a normal exit) and, once ``become_subreaper``
  made dsh a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``; ``dsh run``
  does), every process re-parented to dsh: what escaped its group by a double
  fork whose middle process exited.

Limits: the sweep is per process, not per session (in a process serving several
sessions, one's end also ends what another's finished hooks left behind and their
orphans); a double-forked process is found only at session end (while dsh
lives) and only when dsh is a subreaper; one that double-forks before dsh is
killed -9 is re-parented to init and survives. Elsewhere than Linux, process
groups only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Final

from dsh.base._watchdog import kill_tree, parent_map

__all__ = [
    "become_subreaper",
    "contain_process",
    "end_process_tree",
    "release_process",
    "sweep_processes",
]

_PR_SET_CHILD_SUBREAPER: Final = 36
_LINUX: Final = sys.platform.startswith("linux")


class _Warden:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.contained: set[int] = set()
        self.spawned: set[int] = set()
        self.lingering: set[int] = set()
        self.watchdog: subprocess.Popen[bytes] | None = None
        self.pipe: IO[bytes] | None = None
        self.subreaper = False
        self.tried = False

    def tell(self, line: str) -> None:
        if not self.tried:
            self.tried = True
            self.start_watchdog()
        if self.pipe is not None:
            try:
                self.pipe.write(line.encode() + b"\n")
                self.pipe.flush()
            except (OSError, ValueError):
                self.pipe = None  # the watchdog is gone: groups and sweeps still work

    def start_watchdog(self) -> None:
        script = Path(__file__).with_name("_watchdog.py")
        try:
            self.watchdog = subprocess.Popen(
                [sys.executable, "-I", "-S", str(script)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C at the terminal is dsh's, not the watchdog's
            )
        except OSError:
            return  # no watchdog: groups and sweeps still work
        self.pipe = self.watchdog.stdin


_WARDEN = _Warden()


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux): orphans of what it started come back to it."""
    if not _LINUX or _WARDEN.subreaper:
        return _WARDEN.subreaper
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        _WARDEN.subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _WARDEN.subreaper = False
    return _WARDEN.subreaper


def contain_process(pid: int) -> None:
    """``pid`` leads a group dsh started: it ends with dsh, whatever way dsh ends."""
    if not _LINUX:
        return
    with _WARDEN.lock:
        _WARDEN.contained.add(pid)
        _WARDEN.spawned.add(pid)
        _WARDEN.tell(f"+{pid}")


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def release_process(pid: int) -> None:
    """``pid``'s group is over; forget it unless something of it still runs (then the
    session's end, or the watchdog, ends it)."""
    if not _LINUX:
        return
    with _WARDEN.lock:
        if _group_alive(pid):
            _WARDEN.lingering.add(pid)
            return
        _WARDEN.lingering.discard(pid)
        _WARDEN.contained.discard(pid)
        _WARDEN.spawned.discard(pid)
        _WARDEN.tell(f"-{pid}")


def end_process_tree(pid: int) -> None:
    """SIGKILL ``pid``'s group, everything under it and their groups (the group only, off Linux)."""
    if _LINUX:
        kill_tree({pid})
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _reap(orphans: set[int]) -> None:
    """Wait for the killed orphans: re-parented to dsh, nobody else waits for them."""
    left = set(orphans)
    for _ in range(200):  # SIGKILLed processes go in milliseconds; 2 s bounds a stuck one
        for pid in list(left):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                left.discard(pid)
        if not left:
            return
        time.sleep(0.01)


def sweep_processes() -> int:
    """End what is left at a session's end; returns how many processes were killed."""
    if not _LINUX:
        return 0
    with _WARDEN.lock:
        # Only what outlived its run: a hook or command still running belongs to its owner.
        leaders = {pid for pid in _WARDEN.lingering if _group_alive(pid)}
        watchdog = _WARDEN.watchdog.pid if _WARDEN.watchdog is not None else None
        spawned = set(_WARDEN.spawned)
    parents = parent_map()
    me = os.getpid()
    orphans: set[int] = set()
    if _WARDEN.subreaper:
        orphans = {p for p, pp in parents.items() if pp == me and p not in spawned}
        orphans.discard(watchdog or -1)
    if not leaders and not orphans:
        return 0
    killed = kill_tree(leaders | orphans)
    _reap(orphans)
    for pid in leaders:
        release_process(pid)
    return len(killed) + len(orphans) + len(leaders)
