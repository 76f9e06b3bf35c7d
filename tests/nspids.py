"""Pids said from inside dsh's namespace, found from outside it.

A process inside dsh's namespace (docs/reliability.md) sees that namespace's numbering and its
own ``/proc``; the tests look from outside. Such a process says ``PID@INODE`` (its
``os.getpid()`` and its pid namespace's inode, ``pid_token``): ``outer_pid`` finds the process
``/proc`` here shows for it, while it lives (a pid said outside the namespace maps to itself).
"""

from __future__ import annotations

import os
from pathlib import Path


def pid_token(pid: int | None = None) -> str:
    """``PID@INODE`` for ``pid`` (default this process) of this process's pid namespace."""
    return f"{os.getpid() if pid is None else pid}@{os.stat('/proc/self/ns/pid').st_ino}"


def outer_pid(token: int | str) -> int | None:
    """The live process (not a zombie) ``token`` names, by its number here; ``None`` if none."""
    if isinstance(token, int) or "@" not in token:
        return int(token) if _live(str(token)) else None
    pid, _, inode = token.partition("@")
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{name}/ns/pid").st_ino != int(inode):
                continue
            status = Path(f"/proc/{name}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("NSpid", "").split()[-1:] == [pid] and _live(name):
            return int(name)
    return None


def _live(name: str) -> bool:
    try:
        state = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


SHELL_PID = "$$@$(stat -Lc %i /proc/self/ns/pid)"
"""What a shell command writes for its own pid (``$$``) as ``PID@INODE``."""

SHELL_BG_PID = "$!@$(stat -Lc %i /proc/self/ns/pid)"
"""What a shell command writes for its last background job's pid (``$!``) as ``PID@INODE``."""
