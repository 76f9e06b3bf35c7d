"""The executor: spawns hook commands, feeds their payload, captures their output, ends them.

Every hook runs in its own process group (and, where dsh has a terminal, its
own session: ``dsh.base.own_session``), so a timeout or a cancellation can end
everything the hook started, not just its first process; ``dsh.base``'s
containment also ends what left the group (``setsid``, a double fork: it
carries the hook's containment mark), what a hook left running when it exits
normally (unless ``dsh.base.set_hook_helpers("session")`` keeps such helpers
until the session ends; ``HookRun.left_behind`` counts them), and all of it
when dsh itself dies. Output is read through a
bare ``SubprocessProtocol`` rather than
stream readers: each chunk is kept up to the cap and the rest dropped as it
arrives, so memory stays bounded whatever a hook prints, and the child's exit
is seen at once even while a grandchild keeps the pipes open (Python 3.11's
``Process.wait()`` waits for pipe EOF too).
"""

from __future__ import annotations

import asyncio
import functools
import signal as _signal
import subprocess
import time
from collections.abc import Callable, Hashable, Sequence
from typing import final

from dsh.base._child_watcher import use_pidfd_child_watcher
from dsh.base._containment import (
    contain_process,
    contained_spawn,
    end_left_behind,
    end_process_tree,
    hook_helpers,
    mark_environment,
    release_process,
    signal_group,
)
from dsh.base._hooks_started import hooks_started
from dsh.base._process_group import own_session
from dsh.base._warden import HookHelpers
from dsh.hook_protocol._capture import Capture
from dsh.hook_protocol._declarations import HookCommand
from dsh.hook_protocol._environment import hook_variables, spawn_environment
from dsh.hook_protocol._run import CancelSignal, HookRun
from dsh.hook_protocol._slots import hook_slot

__all__ = [
    "DEFAULT_CAPTURE_CAP",
    "DEFAULT_EOF_GRACE",
    "DEFAULT_KILL_GRACE",
    "run_hook",
    "run_hooks",
    "unique_hooks",
]

DEFAULT_CAPTURE_CAP = 1 << 20
"""Bytes of stdout, and of stderr, kept per run (1 MiB); the rest is drained and dropped."""

DEFAULT_KILL_GRACE = 0.5
"""Seconds between SIGTERM to the hook's process group and SIGKILL."""

DEFAULT_EOF_GRACE = 0.2
"""Seconds to keep reading after the hook's own process exits, before its pipes count as held."""

_REAP_BOUND = 5.0
# After SIGKILL a process is gone within milliseconds unless it sits in an
# uninterruptible sleep; the bound only keeps such a process from hanging the
# loop (the child watcher still reaps it whenever it dies).


async def _wait_for(fut: asyncio.Future[None], timeout: float) -> None:
    if not fut.done():
        await asyncio.wait((fut,), timeout=max(timeout, 0.0))


async def _terminate_group(
    pgid: int, capture: Capture, grace: float, eof_grace: float, *, marked: bool = True
) -> None:
    """SIGTERM the group, wait up to ``grace`` for exit and EOF, then SIGKILL the group
    (and, ``marked``, every process carrying the hook's mark)."""
    signal_group(pgid, _signal.SIGTERM)  # the command's, not the nsenter's in front of it
    if not (capture.exited.done() and capture.output_closed.done()):
        await asyncio.wait((capture.exited, capture.output_closed), timeout=grace)
    # Unconditional: a member that ignored SIGTERM, or detached its stdio, is
    # still the hook's and must not outlive the run; nor one that left the group.
    end_process_tree(pgid, marked=marked)
    await _wait_for(capture.exited, _REAP_BOUND)
    # Only a process that left the group (setsid) can still hold the pipes now.
    await _wait_for(capture.output_closed, eof_grace)


def _spawn_error_text(cmd: HookCommand, exc: Exception) -> str:
    if isinstance(exc, OSError):
        what = exc.strerror or str(exc)
        path = exc.filename if exc.filename is not None else cmd.argv[0]
        if cmd.cwd is not None and str(path) == str(cmd.cwd):
            return f"cannot enter the working directory {path}: {what}"
        return f"cannot run {path}: {what}"
    return f"cannot start {cmd.argv[0]}: {type(exc).__name__}: {exc}"


def _unstarted(cmd: HookCommand, started: float, *, error: str | None, cancelled: bool) -> HookRun:
    elapsed = time.perf_counter() - started
    return HookRun.without_output(cmd, elapsed, cancelled=cancelled, spawn_error=error)


def _finish(
    cmd: HookCommand,
    pid: int,
    capture: Capture,
    returncode: int | None,
    started: float,
    *,
    timed_out: bool,
    cancelled: bool,
    error: str | None = None,
    left_behind: int = 0,
) -> HookRun:
    return HookRun(
        command=cmd,
        pid=pid,
        exit_code=returncode if returncode is not None and returncode >= 0 else None,
        signal=-returncode if returncode is not None and returncode < 0 else None,
        stdout=capture.stdout.decode("utf-8", "replace"),
        stderr=capture.stderr.decode("utf-8", "replace"),
        stdout_truncated=capture.stdout_truncated,
        stderr_truncated=capture.stderr_truncated,
        duration=time.perf_counter() - started,
        timed_out=timed_out,
        cancelled=cancelled,
        spawn_error=error,
        left_behind=left_behind,
    )


async def _end_spawned(
    spawn: asyncio.Future[tuple[asyncio.SubprocessTransport, Capture]], mark: str
) -> None:
    """SIGKILL the group of a spawn whose caller was cancelled, and reap it."""
    try:
        transport, capture = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        # Cancelled again while waiting: the spawn may still land; finish the job from a callback.
        spawn.add_done_callback(lambda done: _kill_when_spawned(done, mark))
        return
    except Exception:
        return  # nothing started
    _end_unwatched(transport.get_pid(), mark)
    await _wait_for(capture.exited, _REAP_BOUND)
    transport.close()


def _end_unwatched(pid: int, mark: str) -> None:
    contain_process(pid, mark)  # so that what carries its mark is ended with it
    end_process_tree(pid)
    release_process(pid)


def _kill_when_spawned(
    spawn: asyncio.Future[tuple[asyncio.SubprocessTransport, Capture]], mark: str
) -> None:
    if spawn.cancelled() or spawn.exception() is not None:
        return
    transport, _capture = spawn.result()
    _end_unwatched(transport.get_pid(), mark)
    transport.close()


async def run_hook(
    cmd: HookCommand,
    stdin: bytes,
    *,
    stdout_cap: int = DEFAULT_CAPTURE_CAP,
    stderr_cap: int = DEFAULT_CAPTURE_CAP,
    kill_grace: float = DEFAULT_KILL_GRACE,
    eof_grace: float = DEFAULT_EOF_GRACE,
    signal: CancelSignal | None = None,
    helpers: HookHelpers | None = None,
    on_started: Callable[[], None] | None = None,
) -> HookRun:
    """Run one hook: ``stdin`` in, capped output out, ended within its timeout.

    - The payload is written while the output is read, so a hook that never
      reads stdin, or closes it early, neither deadlocks nor fails the run.
    - When ``cmd.timeout`` passes, or ``signal`` aborts, the process group gets
      SIGTERM, then SIGKILL after ``kill_grace`` seconds: ``timed_out`` or
      ``cancelled`` is set.
    - When the hook's own process exits but something it started keeps the
      pipes open for ``eof_grace`` seconds more, that group is ended the same
      way; the run does not wait for it.
    - After a normal exit, what the hook left running (its group, whatever
      carries its containment mark: a ``setsid``, ``nohup ... &`` or
      double-forked child) is ended and reaped, counted in ``left_behind``;
      with ``helpers`` (default ``dsh.base.hook_helpers()``) ``"session"`` it
      lives until the session ends instead.
    - Cancelling the calling task SIGKILLs the group, waits for the process to
      be reaped, and re-raises ``CancelledError``.

    - At most ``hook_concurrency()`` hook processes run at once (``_slots``): a hook
      that finds no slot free waits its turn, and its timeout counts from its start.

    - ``on_started`` is called once the hook has started: its process spawned and its
      payload written (a run with no process: as it begins).

    Otherwise it never raises (argument mistakes aside: ``stdin`` not bytes, a
    negative cap): a spawn failure (missing file, not executable, bad cwd) or
    an executor fault comes back as ``spawn_error``.
    """
    if not isinstance(stdin, bytes | bytearray | memoryview):
        raise TypeError(f"hook {cmd.origin.describe()}: stdin must be bytes, got {type(stdin)}")
    for name, value in (("stdout_cap", stdout_cap), ("stderr_cap", stderr_cap)):
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    if (cmd.call is not None or cmd.http is not None) and on_started is not None:
        on_started()
    if cmd.call is not None:  # no process: dsh answers it, within the same timeout
        from dsh.hook_protocol._in_process import run_in_process

        return await run_in_process(cmd, cmd.call, bytes(stdin), signal)
    if cmd.http is not None:  # no process: a request, bounded by the same cap and timeout
        from dsh.hook_protocol._http import run_http_hook

        return await run_http_hook(cmd, bytes(stdin), body_cap=stdout_cap, signal=signal)
    async with hook_slot():  # from before the spawn until the process is reaped
        return await _run_hook(
            cmd, stdin, stdout_cap, stderr_cap, kill_grace, eof_grace, signal, helpers, on_started
        )


async def _run_hook(
    cmd: HookCommand,
    stdin: bytes,
    stdout_cap: int,
    stderr_cap: int,
    kill_grace: float,
    eof_grace: float,
    signal: CancelSignal | None,
    helpers: HookHelpers | None,
    on_started: Callable[[], None] | None,
) -> HookRun:
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    if signal is not None and signal.aborted:
        return _unstarted(cmd, started, error=None, cancelled=True)
    added = hook_variables(cmd.env, cmd.origin)
    mark, env = mark_environment(spawn_environment(added, keep_telemetry=cmd.inherit_telemetry))
    # Its children in dsh's namespace, where there is one.
    argv, preexec = contained_spawn(cmd.argv, env, cmd.cwd)
    use_pidfd_child_watcher()
    spawn = asyncio.ensure_future(
        loop.subprocess_exec(
            lambda: Capture(loop, stdout_cap, stderr_cap),
            *argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=own_session(),
            process_group=None if own_session() else 0,
            env=env,
            cwd=cmd.cwd,
            preexec_fn=preexec,
        )
    )
    try:
        transport, capture = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        # Cancelled while asyncio was still connecting the pipes: left alone,
        # asyncio would kill only the direct child, and anything it had already
        # started would outlive us. Let the spawn finish, then end the group.
        await _end_spawned(spawn, mark)
        raise
    except Exception as exc:
        return _unstarted(cmd, started, error=_spawn_error_text(cmd, exc), cancelled=False)

    pid = transport.get_pid()
    contain_process(pid, mark)  # ended with dsh, however dsh ends
    stdin_pipe = transport.get_pipe_transport(0)
    abort: asyncio.Future[None] | None = None
    remove_abort: Callable[[], None] | None = None
    try:
        if stdin_pipe is not None:
            assert isinstance(stdin_pipe, asyncio.WriteTransport)
            if stdin and not stdin_pipe.is_closing():
                stdin_pipe.write(stdin)
            # Flushes what is buffered, then closes; EPIPE is dropped by the transport.
            stdin_pipe.close()
        if on_started is not None:
            on_started()

        if signal is not None:
            abort = loop.create_future()

            def on_abort(_reason: str, abort: asyncio.Future[None] = abort) -> None:
                if not abort.done():
                    abort.set_result(None)

            remove_abort = signal.on_abort(on_abort)

        remaining = started + cmd.timeout - time.perf_counter()
        if not capture.exited.done():
            if abort is None:
                await asyncio.wait((capture.exited,), timeout=max(remaining, 0.0))
            else:
                await asyncio.wait(
                    (capture.exited, abort),
                    timeout=max(remaining, 0.0),
                    return_when=asyncio.FIRST_COMPLETED,
                )
        timed_out = cancelled = False
        left_behind = 0
        if capture.exited.done():
            await _wait_for(capture.output_closed, eof_grace)
            if not capture.output_closed.done():
                await _terminate_group(pid, capture, kill_grace, eof_grace, marked=False)
            if (helpers or hook_helpers()) == "hook":
                left_behind = await end_left_behind(pid)
        else:
            cancelled = abort is not None and abort.done()
            timed_out = not cancelled
            await _terminate_group(pid, capture, kill_grace, eof_grace)
        return _finish(
            cmd,
            pid,
            capture,
            transport.get_returncode(),
            started,
            timed_out=timed_out,
            cancelled=cancelled,
            left_behind=left_behind,
        )
    except asyncio.CancelledError:
        end_process_tree(pid)
        await _wait_for(capture.exited, _REAP_BOUND)
        raise
    except Exception as exc:
        end_process_tree(pid)
        await _wait_for(capture.exited, _REAP_BOUND)
        return _finish(
            cmd,
            pid,
            capture,
            transport.get_returncode(),
            started,
            timed_out=False,
            cancelled=False,
            error=f"executor failed while running {cmd.argv[0]}: {type(exc).__name__}: {exc}",
        )
    finally:
        if remove_abort is not None:
            remove_abort()
        # A hook that never read (and is still holding stdin) leaves part of the
        # payload buffered: drop it. The buffer is emptied on abort and on a
        # write error, so this never closes the pipe twice.
        if isinstance(stdin_pipe, asyncio.WriteTransport) and stdin_pipe.get_write_buffer_size():
            stdin_pipe.abort()
        transport.close()
        release_process(pid)  # kept while something it started still runs (session end)


@final
class _Countdown:
    """Calls ``told`` once each of the runs numbered ``runs`` has started (or ended)."""

    __slots__ = ("_left", "_told")

    def __init__(self, runs: Sequence[int], told: Callable[[], None]) -> None:
        self._left = set(runs)
        self._told = told

    def started(self, i: int) -> None:
        if i in self._left:
            self._left.discard(i)
            if not self._left:
                self._told()


def unique_hooks(
    cmds: Sequence[HookCommand], payloads: Sequence[bytes] | None = None
) -> tuple[int, ...]:
    """The positions of the declarations that run under deduplication.

    A command runs unless an earlier one has the same ``key`` (and, when
    ``payloads`` are given per command, the same payload). A bridge that logs
    ``hook/invocation`` before running calls this, then runs the selected
    commands with ``run_hooks(..., dedup=False)``.
    """
    if payloads is not None and len(payloads) != len(cmds):
        raise ValueError(f"unique_hooks: {len(cmds)} commands but {len(payloads)} payloads")
    seen: set[Hashable] = set()
    selected: list[int] = []
    for i, cmd in enumerate(cmds):
        key = cmd.key if payloads is None else (cmd.key, payloads[i])
        if key not in seen:
            seen.add(key)
            selected.append(i)
    return tuple(selected)


async def run_hooks(
    cmds: Sequence[HookCommand],
    stdin: bytes | Sequence[bytes],
    *,
    dedup: bool,
    stdout_cap: int = DEFAULT_CAPTURE_CAP,
    stderr_cap: int = DEFAULT_CAPTURE_CAP,
    kill_grace: float = DEFAULT_KILL_GRACE,
    eof_grace: float = DEFAULT_EOF_GRACE,
    signal: CancelSignal | None = None,
) -> tuple[HookRun, ...]:
    """Run an event's hooks concurrently; runs come back in declaration order.

    Each holds a slot of the process's hook limit while it runs (see ``run_hook``);
    those that must wait start in declaration order.

    ``stdin`` is one payload for every hook, or one payload per hook.

    Without ``dedup`` the result has one run per command, ``result[i]`` for
    ``cmds[i]``, whatever order they finished in.

    With ``dedup``, a command whose ``key`` (with its payload, when payloads
    differ per hook) equals that of an earlier command is not spawned and gets
    no entry: the result has one run per distinct key, in the order of each
    key's first declaration, and ``run.command`` is that first declaration.
    So a shared result is merged and recorded exactly once, under the origin of
    the declaration that ran. ``unique_hooks`` gives the same selection
    beforehand.

    Cancelling the caller ends every running hook's group (see ``run_hook``).
    """
    if isinstance(stdin, bytes | bytearray | memoryview):
        payloads: list[bytes] = [bytes(stdin)] * len(cmds)
        shared = True
    else:
        payloads = list(stdin)
        shared = False
        if len(payloads) != len(cmds):
            raise ValueError(
                f"run_hooks: {len(cmds)} commands but {len(payloads)} payloads;"
                " pass one payload, or one per command"
            )
    selected = unique_hooks(cmds, None if shared else payloads) if dedup else range(len(cmds))

    # Whoever waits for this context's hooks to start (``dsh.base._hooks_started``) is told
    # once every selected hook has started or ended.
    told = hooks_started()
    countdown = _Countdown(selected, told) if told is not None else None

    async def run(i: int) -> HookRun:
        started = functools.partial(countdown.started, i) if countdown is not None else None
        try:
            return await run_hook(
                cmds[i],
                payloads[i],
                stdout_cap=stdout_cap,
                stderr_cap=stderr_cap,
                kill_grace=kill_grace,
                eof_grace=eof_grace,
                signal=signal,
                on_started=started,
            )
        finally:
            if started is not None:
                started()

    if len(selected) == 1:
        return (await run(selected[0]),)
    async with asyncio.TaskGroup() as tg:
        tasks = [tg.create_task(run(i)) for i in selected]
    return tuple(task.result() for task in tasks)
