"""The process tree walk and kill shared by dsh and its watchdog (standard library only).

Run as the watchdog (``main``, with ``TOKEN [FD NSENTER]``, in ``python -I -S`` that
``_warden`` starts), it reads
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

Given ``FD`` (the read end of a pipe only dsh writes to, never written), it first makes
dsh's **namespace** (``_namespace_make``), whose init exits when ``FD`` reads end of file
(dsh is gone, however it ended; the kernel SIGKILLs everything in the namespace), checks
that ``NSENTER`` joins it and says on stdout what it got.

Its start is the watchdog's main cost (one runs beside every session that starts a
process), so it imports the least: not typing (~6 ms; mypy reads any ``TYPE_CHECKING`` as
true), not contextlib, not signal (its enums, ~3 ms: its C module has the same functions),
fcntl only to remove a placeholder; ctypes' C module only to make the namespace (ctypes
itself only to say why that failed).
"""

from __future__ import annotations

import os
import select
import stat
import sys
import time

TYPE_CHECKING = False  # see above
if TYPE_CHECKING:
    import signal as _signal
    from collections.abc import Callable, Iterable
else:
    import _signal

__all__ = [
    "CONTAINMENT_ENV",
    "carriers",
    "descendants",
    "group_members",
    "is_placeholder",
    "kill_tree",
    "main",
    "marks",
    "parent_map",
    "remove_placeholder",
    "running",
]

CONTAINMENT_ENV = "DSH_CONTAINMENT"
_KEY = CONTAINMENT_ENV.encode() + b"="
_DEAD = (b"Z", b"X")  # states of a process that is dead, its parent not told yet
_ROUNDS = 5  # a search finds what forked while the last one killed; a bound, not a loop forever
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
        try:
            parents[int(name)] = int(_stat(name)[1])
        except (ValueError, IndexError):
            pass
    return parents


def group_members(pgid: int) -> set[int]:
    """Every live process in group ``pgid`` (zombies left out), from ``/proc``."""
    members: set[int] = set()
    for name in _pids():
        fields = _stat(name)
        try:
            if int(fields[2]) == pgid and fields[0] not in _DEAD:
                members.add(int(name))
        except (ValueError, IndexError):
            pass
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
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                found.add(int(pid))
        except OSError:
            pass
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
    try:
        if group:
            os.killpg(pid, _signal.SIGKILL)
        else:
            os.kill(pid, _signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(leaders: set[int]) -> set[int]:
    """SIGKILL the groups ``leaders`` lead, every process under them and those processes' groups.

    The tree is read before anything is killed (a killed parent's children are re-parented
    away). Returns the descendants found.
    """
    below = descendants(leaders)
    groups: set[int] = set()
    for pid in below:
        try:
            groups.add(os.getpgid(pid))
        except OSError:
            pass
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
    import fcntl

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


def _watch(token: bytes, ended: int | None, init: int | None) -> None:
    contained: set[int] = set()
    placeholders: set[str] = set()
    for line in _lines(ended):
        text = line.strip()
        try:
            if text[:1] == b"+":
                contained.add(int(text[1:]))
            elif text[:1] == b"-":
                contained.discard(int(text[1:]))
            elif text[:1] == b">":
                placeholders.add(bytes.fromhex(text[1:].decode()).decode())
            elif text[:1] == b"<":
                placeholders.discard(bytes.fromhex(text[1:].decode()).decode())
        except ValueError:
            pass
    _kill_children(init)  # dsh's namespace's init: the kernel ends every process in it
    if contained:
        kill_tree(contained)
    if token:
        _kill_marked(token + b".")
    if placeholders:
        _wait_children(2.0)  # nothing sandboxed left that a removal could un-protect
        for path in placeholders:
            remove_placeholder(path)


def _kill_children(init: int | None) -> None:
    """SIGKILL this watchdog's own children: its namespace's init, which otherwise waits for
    dsh's end of its pipe (held by a fork of dsh as well, the namespace would live on).
    ``init`` is its pid (a child not reaped yet: its pid cannot be reused), ``0`` when no
    namespace was made, ``None`` when unknown: then every child ``/proc`` shows."""
    if init is None:
        me = os.getpid()
        children = {pid for pid, ppid in parent_map().items() if ppid == me}
    else:
        children = {init} if init else set()
    for pid in children:
        _kill(pid, group=False)


def _kill_marked(prefix: bytes) -> None:
    for _ in range(_ROUNDS):
        marked = carriers(lambda mark: mark.startswith(prefix))
        if not marked:
            return
        kill_tree(marked)
        time.sleep(0.01)  # SIGKILLed processes lose their environment (and their match) at once


def main(argv: list[str]) -> None:
    """The watchdog: ``argv`` is ``TOKEN [FD NSENTER]`` (see the module)."""
    ended = _dsh_ended()  # first: the parent is dsh (unless it died in these milliseconds)
    init: int | None = 0
    if len(argv) > 1:
        from dsh.base._namespace_make import make_namespace

        init = make_namespace(int(argv[1]), argv[2] if len(argv) > 2 else "")
        os.close(1)  # dsh reads one line
    _watch(os.fsencode(argv[0]) if argv else b"", ended, init)
    os._exit(0)  # nothing buffered: the interpreter's teardown would cost ~2 ms of CPU
