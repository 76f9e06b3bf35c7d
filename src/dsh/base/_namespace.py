"""dsh's namespace: pid and mount namespaces the kernel ends with dsh, which contained spawns join.

The watchdog (``_watchdog``, through ``_namespace_make``) makes it at the first contained
spawn (or sooner, when one is likely), and names it once ``nsenter`` has joined it:
a pid namespace whose init, pid 1 there, exits when dsh's end of a pipe closes
(dsh ended in any way, SIGKILL included), and then the kernel SIGKILLs every
process in it; with it a mount namespace (mounts below ``/`` made slaves: nothing
mounted in it reaches dsh's) where init mounts a fresh ``/proc``, the namespace's
own, so ``ps``, ``pgrep`` and ``pkill`` inside give the numbers ``kill`` inside
takes. Unprivileged, both belong to a new user namespace that maps only dsh's uid
and gid to themselves (``setgroups`` denied); with ``CAP_SYS_ADMIN`` (root) there
is no user namespace.

Each hook and Bash process runs inside it (``Namespace.spawn``), through util-linux's
``nsenter`` (``nsenter --user --pid --mount --wd=. --preserve-credentials -- ARGV``):
dsh spawns ``nsenter`` (cheap vfork path kept), which joins the namespaces and forks
ARGV, pid namespace being joined only by the children-to-be, and waits for it: its exit
status is ARGV's, and a death by a signal is raised again on ``nsenter`` itself. ARGV
is in ``nsenter``'s process group (and session), so the group's kill reaches it; ARGV
and all it starts share one pid numbering (``$$`` a small number, ``$PPID`` 0: its
parent is outside). Where ``nsenter`` is missing or cannot join, no namespace: marks
(``setns`` in a ``preexec_fn`` would move only the children, leaving the process
itself with the outer numbering and its children with the inner one).
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Final, Literal

from dsh.base._namespace_make import launcher

__all__ = ["ContainmentName", "Entry", "Namespace", "find_nsenter", "open_namespace"]

ContainmentName = Literal["namespace", "marks"]
"""How dsh contains what it starts: in its namespace where the kernel allows one (marks
as well), or by containment marks, process groups and trees alone."""

_SYSTEM_PATH: Final = "/usr/bin:/bin:/usr/sbin:/sbin"

Entry = tuple[list[str], Callable[[], None] | None]
"""How a spawn joins the namespace: the argv to run and the ``preexec_fn`` to give it
(none: ``nsenter`` does it)."""


def find_nsenter() -> str | None:
    """util-linux's ``nsenter``, on ``PATH`` or in the system's directories."""
    return shutil.which("nsenter", path=f"{os.environ.get('PATH', '')}:{_SYSTEM_PATH}")


class Namespace:
    """dsh's namespace, open: its init's pid (in dsh's pid namespace), the ``nsenter``
    command that joins it, and a descriptor that tells when init has exited."""

    def __init__(self, init: int, kind: Literal["user", "pid"], life: int, nsenter: str) -> None:
        self.init = init
        self.kind = kind
        self.life = life  # dsh's end of the pipe init waits on: closed only by dsh's end
        self.watch = os.pidfd_open(init)  # readable once init has exited
        # The watchdog has run `true` through it before naming the namespace.
        self.launcher = launcher(nsenter, init, kind)

    def spawn(self, argv: Sequence[str], env: Mapping[str, str] | None, cwd: object) -> Entry:
        """``argv`` run inside this namespace, behind ``nsenter``, when it names a program
        Python would run (else as it is: Python's own error for it stands)."""
        if _runnable(argv[0], env, cwd):
            return [*self.launcher, *argv], None
        return list(argv), None

    def alive(self) -> bool:
        """Whether init still runs (a namespace whose init died takes no new process)."""
        return not select.select([self.watch], [], [], 0)[0]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.watch)


def _runnable(program: str, env: Mapping[str, str] | None, cwd: object) -> bool:
    """Whether ``program`` names an executable file, as ``subprocess`` would look it up."""
    if os.sep in program:
        path = Path(program) if cwd is None else Path(str(cwd), program)
        return path.is_file() and os.access(path, os.X_OK)
    search = (os.environ if env is None else env).get("PATH", os.defpath)
    return shutil.which(program, path=search) is not None


def open_namespace(hello: str, life: int, nsenter: str) -> Namespace | str:
    """The namespace the watchdog's first line (``hello``) names, or why there is none."""
    words = hello.split()
    if len(words) == 3 and words[0] == "ns" and words[1].isdigit() and words[2] in ("user", "pid"):
        kind: Literal["user", "pid"] = "user" if words[2] == "user" else "pid"
        try:
            return Namespace(int(words[1]), kind, life, nsenter)
        except OSError as exc:
            return str(exc) if exc.errno is None else f"its namespace could not be opened: {exc}"
    if words[:1] == ["marks"]:
        return " ".join(words[1:]) or "the kernel refused a namespace"
    return "the watchdog did not start"
