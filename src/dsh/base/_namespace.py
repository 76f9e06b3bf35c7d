"""dsh's namespace: a pid namespace the kernel ends with dsh, which contained spawns join.

The watchdog (``_watchdog.py TOKEN FD``) makes it at the first contained spawn:
a pid namespace whose init, pid 1 there, exits when dsh's end of a pipe closes
(dsh ended in any way, SIGKILL included), and then the kernel SIGKILLs every
process in it. Unprivileged, the pid namespace belongs to a new user namespace
that maps only dsh's uid and gid to themselves (``setgroups`` denied); with
``CAP_SYS_ADMIN`` (root) there is no user namespace.

Each hook and Bash process joins it before its program runs (``Namespace.spawn``):
through util-linux's ``nsenter`` where it is installed (``nsenter --user --pid
--preserve-credentials --no-fork -- ARGV``: the same process, which joins and execs
ARGV, so dsh's spawn keeps Python's cheap vfork path), else a ``preexec_fn`` between
fork and exec (``setns`` into the user namespace, then the pid namespace; a fork
instead of a vfork, some milliseconds more a spawn: ``benchmarks/bench_spawn.py``).
The process itself stays in dsh's pid namespace (``setns`` on a pid namespace
moves only the children-to-be), so it keeps its pid, leads its group as before
and is ended by its group as before; everything it starts (a double fork, a
``setsid``, a child that scrubbed its containment mark) is inside, and dies
with dsh (the watchdog ends the process itself, as before; through the
``preexec_fn`` it also gets ``PR_SET_PDEATHSIG`` SIGKILL from dsh's main thread).
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:
    import ctypes

__all__ = ["ContainmentName", "Entry", "Namespace", "open_namespace"]

ContainmentName = Literal["namespace", "marks"]
"""How dsh contains what it starts: in its namespace where the kernel allows one (marks
as well), or by containment marks, process groups and trees alone."""

_CLONE_NEWUSER: Final = 0x10000000
_CLONE_NEWPID: Final = 0x20000000
_PR_SET_PDEATHSIG: Final = 1
_SIGKILL: Final = 9
_SYSTEM_PATH: Final = "/usr/bin:/bin:/usr/sbin:/sbin"

Entry = tuple[list[str], Callable[[], None] | None]
"""How a spawn joins the namespace: the argv to run and the ``preexec_fn`` to give it."""


class Namespace:
    """dsh's namespace, open: its init's pid (in dsh's pid namespace) and the descriptors
    a spawn joins it through (close-on-exec, held while dsh lives)."""

    def __init__(self, init: int, kind: Literal["user", "pid"], life: int) -> None:
        self.init = init
        self.kind = kind
        self.life = life  # dsh's end of the pipe init waits on: closed only by dsh's end
        flags = os.O_RDONLY | os.O_CLOEXEC
        self.user = os.open(f"/proc/{init}/ns/user", flags) if kind == "user" else -1
        self.pid = os.open(f"/proc/{init}/ns/pid", flags)
        self.watch = os.pidfd_open(init)  # readable once init has exited
        self.launcher = self._launcher()

    def _launcher(self) -> tuple[str, ...] | None:
        """``nsenter`` and its arguments, where it is installed and joins this namespace."""
        found = shutil.which("nsenter", path=f"{os.environ.get('PATH', '')}:{_SYSTEM_PATH}")
        if found is None:
            return None
        joins = [f"--user=/proc/{self.init}/ns/user"] if self.kind == "user" else []
        joins.append(f"--pid=/proc/{self.init}/ns/pid")
        launcher = (found, *joins, "--preserve-credentials", "--no-fork", "--")
        try:  # an old nsenter without these flags, or one a security module stops
            subprocess.run([*launcher, "true"], check=True, timeout=5, capture_output=True)
        except (OSError, subprocess.SubprocessError):
            return None
        return launcher

    def spawn(self, argv: Sequence[str], env: Mapping[str, str] | None, cwd: object) -> Entry:
        """``argv`` made to join this namespace: behind ``nsenter`` when it runs a program
        Python would run (else Python's own error for it stands), else through a
        ``preexec_fn``."""
        if self.launcher is not None and _runnable(argv[0], env, cwd):
            return [*self.launcher, *argv], None
        return list(argv), self.enter(pdeathsig=_main_thread())

    def alive(self) -> bool:
        """Whether init still runs (a namespace whose init died takes no new process)."""
        return not select.select([self.watch], [], [], 0)[0]

    def enter(self, *, pdeathsig: bool) -> Callable[[], None]:
        """The ``preexec_fn`` that joins this namespace (and asks for SIGKILL on the parent
        thread's death): it runs in the child, between fork and exec."""
        libc = _libc()
        setns, prctl, user, pid = libc.setns, libc.prctl, self.user, self.pid

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


@functools.cache
def _libc() -> ctypes.CDLL:
    import ctypes  # here, not at the start: nsenter needs none of it

    return ctypes.CDLL(None, use_errno=True)


def _main_thread() -> bool:
    # The death signal follows the spawning thread: only the main thread lives as long as dsh.
    import threading

    return threading.current_thread() is threading.main_thread()


def _runnable(program: str, env: Mapping[str, str] | None, cwd: object) -> bool:
    """Whether ``program`` names an executable file, as ``subprocess`` would look it up."""
    if os.sep in program:
        path = Path(program) if cwd is None else Path(str(cwd), program)
        return path.is_file() and os.access(path, os.X_OK)
    search = (os.environ if env is None else env).get("PATH", os.defpath)
    return shutil.which(program, path=search) is not None


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
