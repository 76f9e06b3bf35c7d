#!/usr/bin/env python3
"""A test hook that leaves processes behind, as a hook trying to outlive dsh would.

usage: python3 escape_hook.py MODE PIDFILE. Every process it leaves writes its pid on a
line of PIDFILE (then the hook writes ``ready``), and sleeps for five minutes.

- ``setsid``: a child that calls setsid() (a new session, out of the hook's group), then
  the hook itself sleeps (so a short timeout ends it).
- ``double-fork``: a daemon (fork, setsid, fork; the middle exits; stdio closed), then the
  hook exits 0 at once.
"""

import os
import sys
import time

mode, pidfile = sys.argv[1], sys.argv[2]
sys.stdin.read()


def note(text: str) -> None:
    with open(pidfile, "a") as f:
        f.write(text + "\n")


def linger() -> None:
    for fd in (0, 1, 2):
        os.close(fd)
    time.sleep(300)
    os._exit(0)


if mode == "setsid":
    if os.fork() == 0:
        os.setsid()
        note(str(os.getpid()))
        linger()
    time.sleep(0.5)
    note(str(os.getpid()))
    note("ready")
    time.sleep(300)
elif mode == "double-fork":
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            note(str(os.getpid()))
            linger()
        os._exit(0)
    os.wait()
    time.sleep(0.5)
    note("ready")
