#!/usr/bin/env python3
"""A test hook that leaves processes behind, as a hook trying to outlive dsh would.

usage: python3 escape_hook.py MODE PIDFILE. Every process it leaves writes its pid (as
``PID@INODE``: ``tests/nspids.py``) on a line of PIDFILE (the hook waits for those lines,
then writes ``ready``), and sleeps for five minutes.

- ``setsid``: a child that calls setsid() (a new session, out of the hook's group), then
  the hook itself sleeps (so a short timeout ends it).
- ``double-fork``: a daemon (fork, setsid, fork; the middle exits; stdio closed), then the
  hook exits 0 at once.
- ``double-fork-stay``: the same daemon, then the hook writes ``ready`` and sleeps (so the
  daemon, re-parented away from it, exists while the hook still runs).
- ``leave``: a ``setsid()`` child, a ``nohup sleep`` child left in the hook's group (as
  ``nohup ... &`` does) and a double-forked daemon; then the hook exits 0.
- ``check``: no process; writes ``alive PID`` or ``dead PID`` for each pid of PIDFILE to
  ``PIDFILE.check`` (a later hook of the same session looking at what an earlier one left).
- ``hang``: writes ``hanging`` to ``PIDFILE.hang`` and sleeps (holds the session open).
"""

import os
import subprocess
import sys
import time
from pathlib import Path

mode, pidfile = sys.argv[1], sys.argv[2]
sys.stdin.read()


def note(text: str) -> None:
    with open(pidfile, "a") as f:
        f.write(text + "\n")


def own_pid(pid: int | None = None) -> str:
    """``PID@INODE``: this process's pid (or ``pid``, of its namespace) and its pid namespace's
    inode, which the test (outside dsh's namespace) finds it by (``tests/nspids.py``)."""
    return f"{os.getpid() if pid is None else pid}@{os.stat('/proc/self/ns/pid').st_ino}"


def linger() -> None:
    for fd in (0, 1, 2):
        os.close(fd)
    time.sleep(300)
    os._exit(0)


def daemon() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            note(own_pid())
            linger()
        os._exit(0)
    os.wait()


def wait_for_pids(count: int) -> None:
    """Until PIDFILE holds ``count`` pids: what the hook left has said who it is (a sleep
    would not wait long enough on a loaded machine)."""
    while True:
        try:
            if sum("@" in line for line in Path(pidfile).read_text().split()) >= count:
                return
        except FileNotFoundError:
            pass
        time.sleep(0.01)


def alive(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


if mode == "setsid":
    if os.fork() == 0:
        os.setsid()
        note(own_pid())
        linger()
    wait_for_pids(1)
    note(own_pid())
    note("ready")
    time.sleep(300)
elif mode == "double-fork":
    daemon()
    wait_for_pids(1)
    note("ready")
elif mode == "double-fork-stay":
    daemon()
    wait_for_pids(1)
    note("ready")
    time.sleep(300)
elif mode == "leave":
    if os.fork() == 0:
        os.setsid()
        note(own_pid())
        linger()
    nohup = subprocess.Popen(
        ["nohup", "sleep", "300"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    note(own_pid(nohup.pid))
    daemon()
    wait_for_pids(3)
    note("ready")
elif mode == "check":
    with open(pidfile) as f:
        pids = [line.strip() for line in f if "@" in line]
    with open(pidfile + ".check", "w") as out:  # in the same namespace: its numbers are ours
        out.write("".join(f"{'alive' if alive(p.split('@')[0]) else 'dead'} {p}\n" for p in pids))
elif mode == "hang":
    with open(pidfile + ".hang", "w") as f:
        f.write("hanging\n")
    time.sleep(300)
