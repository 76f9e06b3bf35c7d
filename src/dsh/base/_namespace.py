"""dsh's namespace: a pid namespace the kernel ends with dsh, which contained spawns join.

The watchdog (``_watchdog.py TOKEN FD``) makes it at the first contained spawn:
a pid namespace whose init, pid 1 there, exits when dsh's end of a pipe closes
(dsh ended in any way, SIGKILL included), and then the kernel SIGKILLs every
process in it. Unprivileged, the pid namespace belongs to a new user namespace
that maps only dsh's uid and gid to themselves (``setgroups`` denied); with
``CAP_SYS_ADMIN`` (root) there is no user namespace.

Each hook and Bash process joins it between fork and exec (``Namespace.enter``,
a ``preexec_fn``: ``setns`` into the user namespace, then the pid namespace).
The process itself stays in dsh's pid namespace (``setns`` on a pid namespace
moves only the children-to-be), so it keeps its pid, leads its group as before
and is ended by its group as before; everything it starts (a double fork, a
``setsid``, a child that scrubbed its containment mark) is inside, and dies
with dsh. It also gets ``PR_SET_PDEATHSIG`` SIGKILL: the kernel ends it when
the thread that spawned it (dsh's event loop) ends.
"""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Callable
from typing import Final, Literal

__all__ = ["ContainmentName", "Namespace", "open_namespace"]

ContainmentName = Literal["namespace", "marks"]
"""How dsh contains what it starts: in its namespace where the kernel allows one (marks
as well), or by containment marks, process groups and trees alone."""

_CLONE_NEWUSER: Final = 0x10000000
_CLONE_NEWPID: Final = 0x20000000
_PR_SET_PDEATHSIG: Final = 1
_SIGKILL: Final = 9


class Namespace:
    """dsh's namespace, open: its init's pid (in dsh's pid namespace) and the descriptors
    a spawn joins it through (close-on-exec, held while dsh lives)."""

    def __init__(self, init: int, kind: Literal["user", "pid"], life: int) -> None:
        import ctypes

        self.init = init
        self.kind = kind
        self.life = life  # dsh's end of the pipe init waits on: closed only by dsh's end
        flags = os.O_RDONLY | os.O_CLOEXEC
        self.user = os.open(f"/proc/{init}/ns/user", flags) if kind == "user" else -1
        self.pid = os.open(f"/proc/{init}/ns/pid", flags)
        self.watch = os.pidfd_open(init)  # readable once init has exited
        libc = ctypes.CDLL(None, use_errno=True)
        self._setns = libc.setns
        self._prctl = libc.prctl

    def alive(self) -> bool:
        """Whether init still runs (a namespace whose init died takes no new process)."""
        return not select.select([self.watch], [], [], 0)[0]

    def enter(self, *, pdeathsig: bool) -> Callable[[], None]:
        """The ``preexec_fn`` that joins this namespace (and asks for SIGKILL on the parent
        thread's death): it runs in the child, between fork and exec."""
        setns, prctl, user, pid = self._setns, self._prctl, self.user, self.pid

        def enter() -> None:
            if user >= 0 and setns(user, _CLONE_NEWUSER) != 0:
                raise OSError("dsh: could not join its user namespace")
            if setns(pid, _CLONE_NEWPID) != 0:
                raise OSError("dsh: could not join its pid namespace")
            if pdeathsig:
                prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)

        return enter

    def close(self) -> None:
        for fd in (self.user, self.pid, self.watch):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)


def open_namespace(hello: str, life: int) -> Namespace | str:
    """The namespace the watchdog's first line (``hello``) names, or why there is none."""
    words = hello.split()
    if len(words) == 3 and words[0] == "ns" and words[1].isdigit() and words[2] in ("user", "pid"):
        kind: Literal["user", "pid"] = "user" if words[2] == "user" else "pid"
        try:
            return Namespace(int(words[1]), kind, life)
        except (OSError, AttributeError) as exc:
            return f"its namespace could not be opened: {exc}"
    if words[:1] == ["marks"]:
        return " ".join(words[1:]) or "the kernel refused a namespace"
    return "the watchdog did not start"
