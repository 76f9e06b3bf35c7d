"""How dsh's child processes are waited for: a pidfd on the event loop, not a thread per child.

Python 3.11's default ``ThreadedChildWatcher`` starts one thread per child to
block in ``waitpid`` (a thread start and a thread hand-off on every hook and
Bash call); ``PidfdChildWatcher`` waits on the child's pidfd in the running
loop, as 3.12 does by default. ``use_pidfd_child_watcher`` installs it once,
before dsh's first spawn, where the kernel has ``pidfd_open`` (Linux 5.3+) and
nobody chose another watcher; elsewhere it changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVarTuple

_Ts = TypeVarTuple("_Ts")

__all__ = ["use_pidfd_child_watcher"]

logger = logging.getLogger("dsh")

_decided = False


def use_pidfd_child_watcher() -> None:
    """Wait for children through pidfds from now on, when that is possible (see the module)."""
    global _decided
    if _decided:
        return
    _decided = True
    if sys.version_info >= (3, 12) or not hasattr(os, "pidfd_open"):
        return
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:  # an old kernel, or a sandbox that filters the call
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        if type(asyncio.get_child_watcher()) is asyncio.ThreadedChildWatcher:
            asyncio.set_child_watcher(_PidfdWatcher())


if sys.version_info < (3, 12):
    _WatcherBase = asyncio.AbstractChildWatcher
else:  # deprecated in 3.12 and gone in 3.14, where the loop waits on pidfds itself
    _WatcherBase = object


class _PidfdWatcher(_WatcherBase):
    """3.12's ``PidfdChildWatcher``: any running loop, no thread (3.11's is bound to one loop)."""

    def add_child_handler(
        self, pid: int, callback: Callable[[int, int, *_Ts], object], *args: *_Ts
    ) -> None:
        loop = asyncio.get_running_loop()
        pidfd = os.pidfd_open(pid)
        loop.add_reader(pidfd, self._reap, loop, pid, pidfd, callback, args)

    def _reap(
        self,
        loop: asyncio.AbstractEventLoop,
        pid: int,
        pidfd: int,
        callback: Callable[..., object],
        args: tuple[Any, ...],
    ) -> None:
        loop.remove_reader(pidfd)
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:  # reaped by someone else: its status is lost
            returncode = 255
            logger.warning("child process pid %d exit status already read", pid)
        else:
            returncode = os.waitstatus_to_exitcode(status)
        os.close(pidfd)
        callback(pid, returncode, *args)

    def remove_child_handler(self, pid: int) -> bool:
        return True  # the reader goes when the child does

    def attach_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        pass

    def close(self) -> None:
        pass

    def is_active(self) -> bool:
        return True

    def __enter__(self) -> _PidfdWatcher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        pass
