"""How the watchdog makes dsh's namespace (standard library only: the watchdog imports it;
dsh's ``_namespace`` takes ``launcher`` from it).

``make_namespace``: a child of the watchdog unshares a pid namespace and a mount namespace
(in a user namespace mapping only its own uid and gid to themselves, where it lacks
``CAP_SYS_ADMIN``; every mount made a slave) and forks its init, pid 1 there, which mounts
the namespace's own ``/proc``, ignores SIGCHLD (the kernel reaps the orphans it adopts)
and exits when dsh's pipe reads end of file. The watchdog then runs ``true`` through
``nsenter`` (``launcher``, the command every contained spawn runs behind) and says on its
stdout what dsh gets: ``ns INIT_PID user`` or ``ns INIT_PID pid``, else ``marks REASON``.
"""

from __future__ import annotations

import os
import select
import time

TYPE_CHECKING = False  # not typing's (~6 ms of the watchdog's start): see ``_watchdog``
if TYPE_CHECKING:
    import signal as _signal
else:
    import _signal  # signal's C module, without signal's enums (~3 ms)

__all__ = ["launcher", "make_namespace"]

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x2, 0x4, 0x8
_MS_REC, _MS_SLAVE = 0x4000, 0x80000
_PR_SET_CHILD_SUBREAPER = 36
_JOIN_BOUND = 5.0  # seconds for nsenter to join the namespace and run ``true``


class _Libc:
    """The C library's functions, called through ctypes' C module (``_ctypes``) as ctypes
    calls a function it has no types for: importing ctypes would cost ~1.5 ms of the
    watchdog's ~13. ``_ctypes`` keeps no ``errno``: a call that failed is made again through
    ctypes for it (``failure``), rare and only to say why."""

    def __init__(self) -> None:
        import _ctypes

        self.handle = _ctypes.dlopen(None)  # type: ignore[arg-type]  # NULL: the program's

    def __call__(self, name: str, *args: object) -> int:
        import _ctypes

        return int(_ctypes.call_function(_ctypes.dlsym(self.handle, name), args))

    def failure(self, name: str, *args: object) -> OSError:
        """Why ``name(*args)`` fails: the call made again, through ctypes, for its errno."""
        import ctypes

        getattr(ctypes.CDLL(None, use_errno=True), name)(*args)
        errno = ctypes.get_errno()
        return OSError(errno, os.strerror(errno), name)


def _mount_proc(libc: _Libc) -> str:
    """Mount the namespace's own ``/proc`` (run by its init): ``""``, or why not."""
    args = (b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None)
    if libc("mount", *args) == 0:
        return ""
    return f"could not mount its /proc: {libc.failure('mount', *args).strerror}"


def _init(life: int, libc: _Libc, told: int) -> None:
    """Pid 1 of dsh's namespace: mount its ``/proc`` (say on ``told`` whether it did), then
    live until dsh's pipe closes, what is re-parented here reaped by the kernel."""
    why = _mount_proc(libc)
    try:
        os.write(told, why.encode() or b"ok")
    except OSError:
        pass
    os.close(told)
    if why:
        os._exit(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)  # hold none of dsh's pipes
    # SIGCHLD ignored: the kernel reaps every orphan re-parented here, no zombie is left.
    _signal.signal(_signal.SIGCHLD, _signal.SIG_IGN)
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    try:
        while os.read(life, 64):
            pass
    except OSError:
        pass
    os._exit(0)  # the kernel SIGKILLs every process left in the namespace


def _unshare(libc: _Libc) -> str:
    """Enter a new mount namespace, a new pid namespace for children (and a user namespace,
    unprivileged): its kind. Every mount is made a slave: what the namespace mounts (its
    ``/proc``) stays in it, what the system mounts later still shows."""
    uid, gid = os.getuid(), os.getgid()
    if libc("unshare", _CLONE_NEWPID | _CLONE_NEWNS) == 0:
        _slave(libc)
        return "pid"  # privileged: no user namespace, the processes keep their capabilities
    flags = _CLONE_NEWUSER | _CLONE_NEWPID | _CLONE_NEWNS
    if libc("unshare", flags) != 0:
        raise libc.failure("unshare", flags)
    for name, text in (
        ("setgroups", "deny"),
        ("uid_map", f"{uid} {uid} 1"),
        ("gid_map", f"{gid} {gid} 1"),
    ):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    _slave(libc)
    return "user"


def _slave(libc: _Libc) -> None:
    args = (None, b"/", None, _MS_REC | _MS_SLAVE, None)
    if libc("mount", *args) != 0:
        raise libc.failure("mount", *args)


def launcher(nsenter: str, init: int, kind: str) -> tuple[str, ...]:
    """The command (``nsenter`` and its flags) that runs what follows it inside the namespace
    whose init is ``init`` (its pid here; ``kind``: ``user`` or ``pid``)."""
    joins = [f"--user=/proc/{init}/ns/user"] if kind == "user" else []
    joins += [f"--pid=/proc/{init}/ns/pid", f"--mount=/proc/{init}/ns/mnt"]
    # --wd=.: joining a mount namespace moves to its root; stay where dsh's spawn put us.
    return (nsenter, *joins, "--wd=.", "--preserve-credentials", "--")


def _joins(command: tuple[str, ...]) -> str:
    """``""`` when ``command true`` runs, else why not: an old ``nsenter`` without these
    flags, or one a security module stops (then no namespace: marks)."""
    null = os.open(os.devnull, os.O_RDWR)
    err, write_err = os.pipe()
    try:
        pid = os.posix_spawn(
            command[0],
            [*command, "true"],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, null, 0),
                (os.POSIX_SPAWN_DUP2, null, 1),
                (os.POSIX_SPAWN_DUP2, write_err, 2),
            ],
        )
    except OSError as exc:
        return f"nsenter could not join it ({exc.strerror or exc})"
    finally:
        os.close(null)
        os.close(write_err)
    status = _exit_status(pid, _JOIN_BOUND)
    said = b""
    if status != 0 and select.select([err], [], [], 0)[0]:
        said = os.read(err, 300)
    os.close(err)
    if status == 0:
        return ""
    how = "it did not end" if status is None else f"exit status {os.waitstatus_to_exitcode(status)}"
    first = said.decode(errors="replace").strip().splitlines()[:1]
    return f"nsenter could not join it ({': '.join([how, *first])})"


def _exit_status(pid: int, bound: float) -> int | None:
    """``pid``'s wait status once it has exited, or ``None`` (killed) after ``bound`` seconds."""
    end = time.monotonic() + bound
    pause = 0.0005
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > end:
            os.kill(pid, _signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.01)


def make_namespace(life: int, nsenter: str) -> int | None:
    """Make dsh's namespace and its init, check that ``nsenter`` joins it, and say which on
    stdout (see the module). Returns init's pid (``0``: none made; ``None``: not known)."""
    try:
        libc = _Libc()
        libc("prctl", _PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # init is this watchdog's child
    except (ImportError, OSError, AttributeError) as exc:
        _say(1, f"marks {exc}")
        return 0
    heard, speak = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(heard)
        _namespace_child(life, libc, speak)
    os.close(life)
    os.close(speak)
    os.waitpid(child, 0)
    line = ""
    try:
        line = os.read(heard, 300).decode(errors="replace").strip()
    except OSError:
        pass
    os.close(heard)
    words = line.split()
    made = len(words) == 3 and words[0] == "ns" and words[1].isdigit()
    why = _joins(launcher(nsenter, int(words[1]), words[2])) if made and nsenter else ""
    _say(1, f"marks {why}" if why else line or "marks the namespace's maker died")
    if made:
        return int(words[1])
    return 0 if words[:1] == ["marks"] else None  # a refusal made no init; silence: unknown


def _namespace_child(life: int, libc: _Libc, speak: int) -> None:
    """The watchdog's child that unshares and forks init; it says on ``speak`` what it made."""
    try:
        kind = _unshare(libc)
        told, tell = os.pipe()
        init = os.fork()
    except OSError as exc:
        _say(speak, f"marks {exc.strerror or exc} ({exc.filename or 'unshare'})")
        os._exit(0)
    if init == 0:
        os.close(told)
        os.close(speak)
        _init(life, libc, tell)
    os.close(tell)
    said = ""
    try:
        said = os.read(told, 200).decode(errors="replace")
    except OSError:
        pass
    _say(speak, f"ns {init} {kind}" if said == "ok" else f"marks {said or 'its init died'}")
    os._exit(0)


def _say(fd: int, line: str) -> None:
    try:
        os.write(fd, line.encode() + b"\n")
    except OSError:
        pass
