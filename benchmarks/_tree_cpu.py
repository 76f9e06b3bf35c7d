"""A run's whole process tree's CPU: the benchmarks' process becomes a subreaper.

What a tool leaves to end after it (dsh's watchdog and namespace, a helper a tool
double-forks) is re-parented to the benchmark instead of init, so reaping it once the
run has exited counts its CPU in ``RUSAGE_CHILDREN`` too. ``become_subreaper()`` once,
then after each run ``reap_orphans()``; ``children_cpu()`` before and after.
"""

from __future__ import annotations

import ctypes
import os
import resource
import time

__all__ = ["become_subreaper", "children_cpu", "reap_orphans"]

_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """Make orphans of this process's descendants this process's children (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def children_cpu() -> float:
    """User + system seconds of every child reaped so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def reap_orphans(bound: float = 5.0) -> None:
    """Wait for what a run left behind (re-parented here), ``bound`` seconds at most."""
    end = time.monotonic() + bound
    while time.monotonic() < end:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.005)
        except ChildProcessError:
            return
