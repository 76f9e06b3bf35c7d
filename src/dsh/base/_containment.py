"""No process dsh starts outlives its owner: process trees contained, on Linux.

Every hook and Bash process is a group leader (and a session leader where dsh
has a terminal: ``own_session``), spawned with an environment that carries a
containment mark (``mark_environment``: ``DSH_CONTAINMENT``, a word
``TOKEN.N`` with ``TOKEN`` random for this dsh process and ``N`` for this one
spawn, after any outer dsh's words), which everything it starts inherits. The
executor and the Bash tool ``contain_process`` it right after the spawn and
``end_process_tree`` it on a timeout, an abort or a cancellation: that SIGKILLs
its group, every process still under it (found through ``/proc``, read before
the kill), their groups and every process carrying its mark, so a ``setsid``,
``setpgid`` or double-forked child dies with the rest.

- **A hook's normal end.** ``end_left_behind`` ends what a hook left running
  once it exited (its group, what carries its mark, their trees) and reaps it,
  unless ``set_hook_helpers("session")`` keeps such helpers until the session
  ends.
- **dsh's own death.** The first ``contain_process`` starts a watchdog (``_watchdog.py``,
  in its own session) fed the contained pids on a pipe. When dsh exits in any
  way, kill -9 included, the pipe closes and the watchdog ends every group
  still contained, the trees under them and every process carrying one of this
  dsh's marks (a double fork made just before dsh died, now init's child). A child this
  process forks lets go of the pipe at once (``Warden.let_go``, in ``_warden``): a fork that
  never execs must not keep the watchdog waiting; the watchdog watches dsh's process too.
- **dsh's namespace.** With ``set_process_containment("namespace")`` (the default), the
  watchdog also makes pid and mount namespaces (``_namespace``; its own ``/proc``) whose
  init exits with dsh, and every spawn runs in it behind ``nsenter`` (``contained_spawn``):
  a hook or Bash process and all it starts, a child that scrubbed its mark included, share
  one pid numbering and die with dsh by the kernel's hand. Where the kernel refuses one or
  ``nsenter`` is missing, marks alone (``containment_in_use`` says which and why).
- **Session end.** ``sweep_processes`` ends every group that outlived its run,
  every process carrying the mark of a run that is over and, once
  ``become_subreaper`` made dsh a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``;
  ``dsh run`` does), every process re-parented to dsh or to the namespace's init.

Limits: the sweep is per process, not per session; a process that both scrubs
its environment (``env -i``, an exec with its own) and leaves its tree is found
only as an orphan at session end (and, without the namespace, survives dsh's
kill -9 if it double-forked in that window). Elsewhere than Linux, process groups only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from dsh.base._namespace import ContainmentName, Entry, Namespace
from dsh.base._warden import HookHelpers, Warden
from dsh.base._watchdog import (
    CONTAINMENT_ENV,
    carriers,
    descendants,
    group_members,
    kill_tree,
    parent_map,
    running,
)

__all__ = [
    "CONTAINMENT_ENV",
    "after_sweep",
    "anything_contained_running",
    "become_subreaper",
    "contain_process",
    "contained_spawn",
    "containment_in_use",
    "end_left_behind",
    "end_process_tree",
    "hook_helpers",
    "mark_environment",
    "release_process",
    "sandbox_namespace",
    "set_hook_helpers",
    "set_process_containment",
    "signal_group",
    "sweep_processes",
    "tell_watchdog",
]

_PR_SET_CHILD_SUBREAPER: Final = 36
_LINUX: Final = sys.platform.startswith("linux")
_MAX_OUTER_MARKS: Final = 16  # nested dsh processes; an environment value stays bounded
_ROUNDS: Final = 5  # a search finds what forked while the last one killed


_WARDEN = Warden()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WARDEN.let_go)


def set_hook_helpers(helpers: HookHelpers) -> None:
    """Whether what hooks leave running after a normal exit ends with the hook (``"hook"``,
    the default) or lives until the session ends (``"session"``), for this process."""
    if helpers not in ("hook", "session"):
        raise ValueError(f"hook helpers are 'hook' or 'session', not {helpers!r}")
    _WARDEN.helpers = helpers


def hook_helpers() -> HookHelpers:
    """The lifetime ``set_hook_helpers`` chose (``"hook"`` unless told otherwise)."""
    return _WARDEN.helpers


def set_process_containment(name: ContainmentName) -> None:
    """How this process contains what it starts from now on: ``"namespace"`` (the default:
    in dsh's namespace where the kernel allows one, marks as well) or ``"marks"`` alone."""
    if name not in ("namespace", "marks"):
        raise ValueError(f"process containment is 'namespace' or 'marks', not {name!r}")
    with _WARDEN.lock:
        _WARDEN.wanted = name


def prepare_containment() -> None:
    """Start making dsh's namespace now, in the background, when processes will be started
    soon (hooks or MCP servers are configured): the first spawn then finds it made instead of
    waiting for the watchdog to start. The watchdog's hello is read and the namespace opened
    on a daemon thread (waiting, mostly: the GIL is free meanwhile), so the caller goes on at
    once; a spawn meanwhile waits for it (``Warden.settle``), setting the warden up does not.
    Nothing when ``"marks"`` is wanted, or it is already started."""
    if not _LINUX:
        return
    with _WARDEN.lock:
        if _WARDEN.wanted != "namespace" or _WARDEN.tried:
            return
        _WARDEN.tried = True
        _WARDEN.start_watchdog()
        if _WARDEN.pending is None:
            return
    threading.Thread(target=_settle, name="dsh-namespace", daemon=True).start()


def _settle() -> None:
    _WARDEN.settle()  # not under _WARDEN.lock: see Warden.hello


def contained_spawn(
    argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: object = None
) -> Entry:
    """The argv (and ``preexec_fn``: none) for a contained spawn of ``argv`` (with ``env`` in
    ``cwd``): run inside dsh's namespace, made at the first call, behind ``nsenter``; ``argv``
    unchanged with ``"marks"``, off Linux, without ``nsenter`` or where the kernel refused."""
    if not _LINUX:
        return list(argv), None
    with _WARDEN.lock:
        space = _WARDEN.entry()
    return (list(argv), None) if space is None else space.spawn(argv, env, cwd)


def sandbox_namespace() -> Namespace | None:
    """dsh's namespace (made at the first call) for a sandboxed spawn to join itself, if any."""
    if not _LINUX:
        return None
    with _WARDEN.lock:
        return _WARDEN.entry()


def tell_watchdog(line: str) -> None:
    """Give the watchdog (started now if it is not yet) one line: a sandbox placeholder's
    ``>HEX``/``<HEX`` (``_sandbox_placeholders``)."""
    if _LINUX:
        with _WARDEN.lock:
            _WARDEN.tell(line)


def anything_contained_running() -> bool:
    """Whether a process dsh started may still run: one in its namespace (under its init),
    or one carrying one of its marks."""
    if not _LINUX:
        return False
    with _WARDEN.lock:
        space = _WARDEN.namespace
    if space is not None and space.alive() and any(map(running, descendants({space.init}))):
        return True
    return any(map(running, carriers(_WARDEN.mine)))


def containment_in_use() -> tuple[ContainmentName, str]:
    """The containment this process's spawns get, and why or how (making the namespace if it
    is wanted and not made yet)."""
    if not _LINUX:
        return "marks", "process groups only, off Linux"
    with _WARDEN.lock:
        space = _WARDEN.entry()
    if _WARDEN.wanted == "marks":
        return "marks", 'process_containment = "marks"'
    if space is None:
        return "marks", f"no namespace: {_WARDEN.why or 'the kernel refused one'}"
    kind = "user, pid and mount namespaces" if space.kind == "user" else "pid and mount namespaces"
    return "namespace", f"{kind}, joined through nsenter: what dsh starts ends with it"


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux): orphans of what it started come back to it."""
    if not _LINUX or _WARDEN.subreaper:
        return _WARDEN.subreaper
    try:
        # ctypes' own C module: ctypes costs ~1.5 ms of CPU, in every dsh run; prctl is called
        # as ctypes.CDLL(None).prctl would call it.
        import _ctypes

        prctl = _ctypes.dlsym(_ctypes.dlopen(None), "prctl")  # type: ignore[arg-type]
        done = _ctypes.call_function(prctl, (_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
        _WARDEN.subreaper = done == 0
    except (ImportError, OSError, AttributeError):
        _WARDEN.subreaper = False
    return _WARDEN.subreaper


def mark_environment(env: Mapping[str, str] | None) -> tuple[str, dict[str, str] | None]:
    """A new containment mark and ``env`` (default ``os.environ``) carrying it.

    The mark goes after the words of any outer dsh (so an outer watchdog still
    finds what this dsh starts) and replaces this dsh's own earlier words (a
    Bash command's exported environment handed to the next one). Off Linux:
    no mark (``""``) and ``env`` as given.
    """
    if not _LINUX:
        return "", None if env is None else dict(env)
    with _WARDEN.lock:
        _WARDEN.count += 1
        mark = f"{_WARDEN.token}.{_WARDEN.count}"
    marked = dict(os.environ if env is None else env)
    outer = [w for w in marked.get(CONTAINMENT_ENV, "").split() if not _WARDEN.mine(w.encode())]
    marked[CONTAINMENT_ENV] = " ".join([*outer[-_MAX_OUTER_MARKS:], mark])
    return mark, marked


def contain_process(pid: int, mark: str = "") -> None:
    """``pid`` leads a group dsh started (spawned with ``mark``): it ends with dsh, whatever
    way dsh ends."""
    if not _LINUX:
        return
    with _WARDEN.lock:
        _WARDEN.contained.add(pid)
        _WARDEN.spawned.add(pid)
        if mark:
            _WARDEN.marks[pid] = mark.encode()
        _WARDEN.tell(f"+{pid}")


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def release_process(pid: int) -> None:
    """``pid``'s group is over; forget it unless something of it still runs (then the
    session's end, or the watchdog, ends it)."""
    if not _LINUX:
        return
    with _WARDEN.lock:
        if _group_alive(pid):
            _WARDEN.lingering.add(pid)
            return
        _WARDEN.lingering.discard(pid)
        _WARDEN.contained.discard(pid)
        _WARDEN.spawned.discard(pid)
        _WARDEN.marks.pop(pid, None)
        _WARDEN.tell(f"-{pid}")


def _since(pid: int) -> list[str] | None:
    """The pids that can descend from ``pid``: those allocated after it (pids grow until
    they wrap at ``pid_max``), or ``None`` (all) when they have wrapped since."""
    try:
        with open("/proc/sys/kernel/ns_last_pid", "rb") as f:
            last = int(f.read())
        names = os.listdir("/proc")
    except (OSError, ValueError):
        return None
    if last < pid:
        return None
    return [n for n in names if n.isdigit() and pid < int(n) <= last]


def signal_group(pgid: int, sig: int) -> None:
    """Send ``sig`` to the group ``pgid`` leads, sparing the ``nsenter`` in front of a command
    in dsh's namespace: it would die of ``sig`` without passing it on, while the command
    (which may catch or ignore it) ran on; when the command dies of it, ``nsenter`` says so."""
    space = _WARDEN.namespace
    members: set[int] = set()
    if _LINUX and space is not None and _leads_through(pgid, space.launcher):
        members = group_members(pgid) - {pgid}
    try:
        if not members:
            os.killpg(pgid, sig)
        for pid in members:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already empty, or a member changed its credentials


def _leads_through(pid: int, launcher: tuple[str, ...]) -> bool:
    """Whether ``pid`` is an ``nsenter`` dsh started with ``launcher``."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read(4096).split(b"\0")
    except OSError:
        return False
    return words[: len(launcher)] == [os.fsencode(word) for word in launcher]


def _kill_everything_of(pid: int, *, leader_alive: bool) -> set[int]:
    """SIGKILL ``pid``'s group, what is under it and what carries its mark; the pids killed
    (the leader left out)."""
    mark = _WARDEN.marks.get(pid, b"")
    killed: set[int] = set()
    roots = {pid} if leader_alive else set()
    for _ in range(_ROUNDS):
        # Found before the kill: a killed process turns into a zombie, then is gone.
        group = _group_alive(pid)
        if group:
            roots |= group_members(pid)
        if mark:
            roots |= carriers(lambda word: word == mark, _since(pid))
        roots -= killed
        if not roots and not group:
            break
        killed |= roots | kill_tree(roots)
        if group:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        if not roots:
            break
        roots = set()
    killed.discard(pid)
    return killed


def end_process_tree(pid: int, *, marked: bool = True) -> None:
    """SIGKILL ``pid``'s group, everything under it, their groups and (``marked``) everything
    carrying its mark, however it left the group (the group only, off Linux)."""
    if _LINUX:
        if marked:
            _kill_everything_of(pid, leader_alive=True)
        else:
            kill_tree({pid})
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def end_left_behind(pid: int) -> int:
    """End and reap what the finished run ``pid`` leads left running; how many processes.

    For a hook's normal end (its process exited, its output closed or given up
    on): its group's members, every process carrying its mark (a ``setsid``,
    ``nohup ... &`` or double-forked child) and the trees under them.
    """
    if not _LINUX:
        end_process_tree(pid)
        return 0
    killed = _kill_everything_of(pid, leader_alive=False)
    if killed:
        await _reap_async(killed)
    return len(killed)


def _reaped(pids: set[int]) -> set[int]:
    """Those of ``pids`` no longer to wait for: reaped now, or another's child that is dead."""
    done: set[int] = set()
    for pid in pids:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                done.add(pid)
        except ChildProcessError:
            if not running(pid):
                done.add(pid)
    return done


async def _reap_async(pids: set[int]) -> None:
    left = set(pids)
    for _ in range(200):  # SIGKILLed processes go in milliseconds; 2 s bounds a stuck one
        left -= _reaped(left)
        if not left:
            return
        await asyncio.sleep(0.01)


def _reap(orphans: set[int]) -> None:
    """Wait for the killed orphans: re-parented to dsh, nobody else waits for them."""
    left = set(orphans)
    for _ in range(200):  # SIGKILLed processes go in milliseconds; 2 s bounds a stuck one
        left -= _reaped(left)
        if not left:
            return
        time.sleep(0.01)


def sweep_processes() -> int:
    """End what is left at a session's end; returns how many processes were killed."""
    if not _LINUX:
        return 0
    with _WARDEN.lock:
        # Only what outlived its run: a hook or command still running belongs to its owner.
        leaders = {pid for pid in _WARDEN.lingering if _group_alive(pid)}
        watchdog = _WARDEN.watchdog.pid if _WARDEN.watchdog is not None else None
        spawned = set(_WARDEN.spawned)
        active = {m for pid, m in _WARDEN.marks.items() if pid not in _WARDEN.lingering}
        issued = _WARDEN.count
    orphans: set[int] = set()
    if _WARDEN.subreaper:
        # Re-parented to dsh, or (inside dsh's namespace) to the namespace's init.
        adopters = {os.getpid()}
        adopters |= {_WARDEN.namespace.init} if _WARDEN.namespace is not None else set()
        orphans = _children(adopters) - spawned
        orphans.discard(watchdog or -1)
    # What carries the mark of a run that is over, wherever it went (init's child included);
    # no mark given out, none to look for (the token is this process's own).
    marked = carriers(lambda w: _WARDEN.mine(w) and w not in active) if issued else set()
    if not leaders and not orphans and not marked:
        _after_sweep()
        return 0
    killed = kill_tree(leaders | orphans | marked)
    _reap(orphans | marked | killed)
    for pid in leaders:
        release_process(pid)
    _after_sweep()
    return len(killed | orphans | marked) + len(leaders)


def _children(parents: set[int]) -> set[int]:
    """The children of ``parents`` (the orphans re-parented to them too), from each of their
    threads' ``/proc/PID/task/TID/children``: a few reads, where a walk of ``/proc`` reads a
    file of every process of the system (~1.2 ms for 80 of them). The walk where the kernel
    has no such file (built without ``CONFIG_PROC_CHILDREN``)."""
    if not _children_files():
        return {pid for pid, ppid in parent_map().items() if ppid in parents}
    found: set[int] = set()
    for pid in parents:
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # gone
        for tid in threads:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    found.update(int(child) for child in f.read().split())
            except (OSError, ValueError):
                continue  # the thread ended meanwhile
    return found


def _children_files() -> bool:
    me = os.getpid()
    return os.path.exists(f"/proc/{me}/task/{me}/children")


_SWEPT: list[Callable[[], None]] = []


def after_sweep(hook: Callable[[], None]) -> None:
    """Run ``hook`` after each ``sweep_processes`` (the sandbox's placeholders: removed once
    nothing dsh started runs any more)."""
    if hook not in _SWEPT:
        _SWEPT.append(hook)


def _after_sweep() -> None:
    for hook in list(_SWEPT):
        with contextlib.suppress(OSError):
            hook()
