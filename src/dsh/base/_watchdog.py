"""The process tree walk and kill shared by dsh and its watchdog (standard library only).

Run as a script (``python -I -S _watchdog.py TOKEN [FD]``) it is the watchdog: it reads
``+PID``/``-PID`` lines (a contained process group, or its release) and ``>HEX``/``<HEX``
lines (a sandbox placeholder dsh holds, its path in hex, or its release:
``_sandbox_placeholders``) from stdin and, when stdin closes because dsh is gone (an exit,
a crash, kill -9 alike) or dsh's process has ended while another holds a copy of the pipe
(a child dsh forked that never exec'd: ``_dsh_ended``), SIGKILLs its namespace's init,
every contained group, every process still under it and every process of its user whose
environment carries one of dsh's containment marks (``DSH_CONTAINMENT``, words
``TOKEN.N``): what double-forked out of every tree just before dsh died, re-parented to
init. Then, dsh's namespace gone too (its init is this
watchdog's child), it removes the placeholders still held (``remove_placeholder``: only
one that still bears the mark, is empty and no other dsh holds). Imported, it gives
``dsh.base._containment`` the same walk and the same search.

Given ``FD`` (the read end of a pipe only dsh writes to, never written), it first
makes dsh's **namespace** (``_make_namespace``): a child unshares a pid namespace and a
mount namespace (with a user namespace mapping only its own uid and gid to themselves, where
it lacks ``CAP_SYS_ADMIN``) and forks its init, pid 1 there, which mounts the namespace's
own ``/proc``, reaps orphans and exits when ``FD`` reads end of file: dsh is gone, however
it ended, and the kernel SIGKILLs everything in the namespace. The first line on stdout
says which it got: ``ns INIT_PID user`` or ``ns INIT_PID pid``, else ``marks REASON``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import stat
import sys
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ctypes

__all__ = [
    "CONTAINMENT_ENV",
    "carriers",
    "descendants",
    "group_members",
    "is_placeholder",
    "kill_tree",
    "marks",
    "parent_map",
    "remove_placeholder",
    "running",
]

CONTAINMENT_ENV = "DSH_CONTAINMENT"
_KEY = CONTAINMENT_ENV.encode() + b"="
_DEAD = (b"Z", b"X")  # states of a process that is dead, its parent not told yet
_ROUNDS = 5  # a search finds what forked while the last one killed; a bound, not a loop forever
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x2, 0x4, 0x8
_MS_REC, _MS_SLAVE = 0x4000, 0x80000
_PR_SET_CHILD_SUBREAPER = 36
_DRAIN = 1 << 20  # bytes read after dsh's end: what it wrote before, not a fork's endless lines


def _stat(name: str) -> list[bytes]:
    """The fields of ``/proc/NAME/stat`` after the command name (empty when it is gone)."""
    try:
        with open(f"/proc/{name}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return []
    # The command name may hold spaces and parentheses: the fields follow the last ')'.
    return data.rsplit(b")", 1)[-1].split()


def parent_map() -> dict[int, int]:
    """Every process's parent pid, from ``/proc`` (empty where there is none)."""
    parents: dict[int, int] = {}
    for name in _pids():
        with contextlib.suppress(ValueError, IndexError):
            parents[int(name)] = int(_stat(name)[1])
    return parents


def group_members(pgid: int) -> set[int]:
    """Every live process in group ``pgid`` (zombies left out), from ``/proc``."""
    members: set[int] = set()
    for name in _pids():
        fields = _stat(name)
        with contextlib.suppress(ValueError, IndexError):
            if int(fields[2]) == pgid and fields[0] not in _DEAD:
                members.add(int(name))
    return members


def running(pid: int | str) -> bool:
    """Whether ``pid`` is a process that has not died (not a zombie)."""
    fields = _stat(str(pid))
    return bool(fields) and fields[0] not in _DEAD


def _pids() -> list[str]:
    try:
        return [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def marks(pid: int | str) -> list[bytes]:
    """The containment marks in ``pid``'s environment (none when it is unreadable or gone)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            data = f.read()
    except OSError:  # another user's, gone, or not dumpable
        return []
    if _KEY not in data:
        return []
    for item in data.split(b"\0"):
        if item.startswith(_KEY):
            return item[len(_KEY) :].split()
    return []


def carriers(match: Callable[[bytes], bool], pids: Iterable[int | str] | None = None) -> set[int]:
    """The processes of this user (of ``pids``, else all) with a mark ``match`` accepts."""
    uid, me = os.getuid(), os.getpid()
    found: set[int] = set()
    for pid in _pids() if pids is None else pids:
        if int(pid) == me or not any(match(mark) for mark in marks(pid)):
            continue
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{pid}").st_uid == uid:
                found.add(int(pid))
    return found


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
    # Every group first, each at once: a member killed alone before its group could let the
    # group's leader (a shell waiting for it) exit on its own first, 137 instead of SIGKILL.
    for leader in leaders:
        _kill(leader, group=True)
    for leader in leaders:
        _kill(leader, group=False)  # a root that is not (or no longer) its group's leader
    for pid in below:
        _kill(pid, group=False)
    for pgid in groups - leaders - {own}:
        _kill(pgid, group=True)
    return below


def is_placeholder(path: str, st: os.stat_result) -> bool:
    """Whether ``path`` (``st`` its ``lstat``) is a sandbox placeholder: its modification time
    the epoch, and an empty directory or a file holding ``{}``."""
    if st.st_mtime_ns != 0:
        return False
    try:
        if stat.S_ISDIR(st.st_mode):
            return not os.listdir(path)
        if stat.S_ISREG(st.st_mode) and st.st_size == 2:
            with open(path, "rb") as f:
                return f.read(3) == b"{}"
    except OSError:
        return False
    return False


def remove_placeholder(path: str) -> int:
    """Remove the placeholder at ``path`` unless another process holds it (a shared
    ``flock``) or it is no longer one; 1 when removed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return 0
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        mine, here = os.fstat(fd), os.lstat(path)
        if (mine.st_dev, mine.st_ino) != (here.st_dev, here.st_ino) or not is_placeholder(
            path, here
        ):
            return 0
        (os.rmdir if stat.S_ISDIR(here.st_mode) else os.unlink)(path)
        return 1
    except OSError:
        return 0
    finally:
        os.close(fd)


def _wait_children(bound: float) -> None:
    """Reap this watchdog's children (dsh's namespace's init: it exits once the kernel has
    ended every process in the namespace), for at most ``bound`` seconds."""
    end = time.monotonic() + bound
    while time.monotonic() < end:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.01)
        except ChildProcessError:
            return


def _dsh_ended() -> int | None:
    """A descriptor readable once dsh (this watchdog's parent) has ended, or ``None`` (no
    ``pidfd_open``, or dsh died while it was made: then the pipe alone tells). The pipe can
    outlive dsh: a child dsh forked that never exec'd holds a copy of its end."""
    parent = os.getppid()
    try:
        fd = os.pidfd_open(parent)
    except (OSError, AttributeError):
        return None
    if os.getppid() != parent:  # re-parented meanwhile: dsh died before the pidfd was made
        os.close(fd)
        return None
    return fd


def _lines(ended: int | None) -> Iterable[bytes]:
    """dsh's lines on stdin until it closes or, ``ended`` readable, dsh's process is gone:
    then what it wrote before is still read (a bounded amount), not what a fork goes on to."""
    if ended is None:
        yield from sys.stdin.buffer
        return
    pending = b""
    left: int | None = None  # bytes still read once dsh has ended
    while True:
        if left is None and ended in select.select([0, ended], [], [])[0]:
            left = _DRAIN
        if left is not None and not select.select([0], [], [], 0)[0]:
            return  # dsh is gone and nothing it wrote is left
        try:
            chunk = os.read(0, 65536)
        except OSError:
            return
        if not chunk:
            return
        if left is not None:
            left -= len(chunk)
            if left < 0:
                return
        *whole, pending = (pending + chunk).split(b"\n")
        yield from whole


def _watch(token: bytes, ended: int | None) -> None:
    contained: set[int] = set()
    placeholders: set[str] = set()
    for line in _lines(ended):
        text = line.strip()
        with contextlib.suppress(ValueError):
            if text[:1] == b"+":
                contained.add(int(text[1:]))
            elif text[:1] == b"-":
                contained.discard(int(text[1:]))
            elif text[:1] == b">":
                placeholders.add(bytes.fromhex(text[1:].decode()).decode())
            elif text[:1] == b"<":
                placeholders.discard(bytes.fromhex(text[1:].decode()).decode())
    _kill_children()  # dsh's namespace's init: the kernel ends every process in it
    if contained:
        kill_tree(contained)
    if token:
        _kill_marked(token + b".")
    if placeholders:
        _wait_children(2.0)  # nothing sandboxed left that a removal could un-protect
        for path in placeholders:
            remove_placeholder(path)


def _kill_children() -> None:
    """SIGKILL this watchdog's own children: its namespace's init, which otherwise waits for
    dsh's end of its pipe (held by a fork of dsh as well, the namespace would live on)."""
    me = os.getpid()
    for pid, ppid in parent_map().items():
        if ppid == me:
            _kill(pid, group=False)


def _kill_marked(prefix: bytes) -> None:
    for _ in range(_ROUNDS):
        marked = carriers(lambda mark: mark.startswith(prefix))
        if not marked:
            return
        kill_tree(marked)
        time.sleep(0.01)  # SIGKILLed processes lose their environment (and their match) at once


def _mount_proc(libc: ctypes.CDLL) -> str:
    """Mount the namespace's own ``/proc`` (run by its init): ``""``, or why not."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if libc.mount(b"proc", b"/proc", b"proc", flags, None) == 0:
        return ""
    import ctypes

    errno = ctypes.get_errno()
    return f"could not mount its /proc: {os.strerror(errno)}"


def _init(life: int, libc: ctypes.CDLL, told: int) -> None:
    """Pid 1 of dsh's namespace: mount its ``/proc`` (say on ``told`` whether it did), then
    reap what is re-parented here until dsh's pipe closes."""
    why = _mount_proc(libc)
    with contextlib.suppress(OSError):
        os.write(told, why.encode() or b"ok")
    os.close(told)
    if why:
        os._exit(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)  # hold none of dsh's pipes

    def reap(_signum: int, _frame: object) -> None:
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass

    signal.signal(signal.SIGCHLD, reap)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        while os.read(life, 64):
            pass
    os._exit(0)  # the kernel SIGKILLs every process left in the namespace


def _unshare(libc: ctypes.CDLL) -> str:
    """Enter a new mount namespace, a new pid namespace for children (and a user namespace,
    unprivileged): its kind. Every mount is made a slave: what the namespace mounts (its
    ``/proc``) stays in it, what the system mounts later still shows."""
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWPID | _CLONE_NEWNS) == 0:
        _slave(libc)
        return "pid"  # privileged: no user namespace, the processes keep their capabilities
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWPID | _CLONE_NEWNS) != 0:
        import ctypes

        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), "unshare")
    for name, text in (
        ("setgroups", "deny"),
        ("uid_map", f"{uid} {uid} 1"),
        ("gid_map", f"{gid} {gid} 1"),
    ):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    _slave(libc)
    return "user"


def _slave(libc: ctypes.CDLL) -> None:
    if libc.mount(None, b"/", None, _MS_REC | _MS_SLAVE, None) != 0:
        import ctypes

        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), "mount")


def _make_namespace(life: int) -> None:
    """Make dsh's namespace and its init, and say which on stdout (see the module)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # init is this watchdog's child
    except (OSError, AttributeError) as exc:
        _say(f"marks {exc}")
        return
    child = os.fork()
    if child == 0:
        try:
            kind = _unshare(libc)
            told, tell = os.pipe()
            init = os.fork()
        except OSError as exc:
            _say(f"marks {exc.strerror or exc} ({exc.filename or 'unshare'})")
            os._exit(0)
        if init == 0:
            os.close(told)
            _init(life, libc, tell)
        os.close(tell)
        said = ""
        with contextlib.suppress(OSError):
            said = os.read(told, 200).decode(errors="replace")
        _say(f"ns {init} {kind}" if said == "ok" else f"marks {said or 'its init died'}")
        os._exit(0)
    os.close(life)
    os.waitpid(child, 0)


def _say(line: str) -> None:
    with contextlib.suppress(OSError):
        os.write(1, line.encode() + b"\n")


if __name__ == "__main__":
    ended = _dsh_ended()  # first: the parent is dsh (unless it died in these milliseconds)
    if len(sys.argv) > 2:
        _make_namespace(int(sys.argv[2]))
        os.close(1)  # dsh reads one line
    _watch(os.fsencode(sys.argv[1]) if len(sys.argv) > 1 else b"", ended)
