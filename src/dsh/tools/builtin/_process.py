"""Running a child process in its own process group, raced against a timeout and a signal.

The group is killed (SIGKILL, every member, and whatever left it carrying the
child's containment mark: ``dsh.base.mark_environment``) on timeout, on abort
and when the awaiting task is cancelled, and the child is reaped on every path.
What it leaves running after a normal exit ends with the session.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, final

from dsh._frozen import frozen
from dsh.base import AbortSignal
from dsh.base._child_watcher import use_pidfd_child_watcher
from dsh.base._containment import (
    contain_process,
    contained_spawn,
    end_process_tree,
    mark_environment,
    release_process,
)
from dsh.base._process_group import own_session

if TYPE_CHECKING:
    from dsh.base._sandbox import SandboxSpawn

__all__ = ["ProcessOutcome", "kill_group", "run_in_group"]


@final
@frozen
class ProcessOutcome:
    """How a child ended: its exit status, or why it was killed."""

    returncode: int
    stdout: bytes | None = None
    stderr: bytes | None = None
    timed_out: bool = False
    aborted: str | None = None

    @property
    def interrupted(self) -> bool:
        return self.timed_out or self.aborted is not None


def kill_group(pid: int) -> None:
    """SIGKILL every process in the group led by ``pid``, and what left it (gone is fine)."""
    end_process_tree(pid)


async def run_in_group(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdout: IO[Any] | int,
    stderr: IO[Any] | int,
    signal: AbortSignal | None,
    timeout: float | None,
    sandbox: SandboxSpawn | None = None,
) -> ProcessOutcome:
    """Run ``argv`` in a new session; return when it exits, times out or is aborted.

    With ``sandbox`` (``dsh.base._sandbox.sandbox_spawn`` of ``argv``), its argv and set-up
    are run instead: the child joins dsh's namespace itself, then restricts itself."""
    use_pidfd_child_watcher()
    mark, marked = mark_environment(env)
    # Its children in dsh's namespace, where there is one.
    if sandbox is None:
        command, preexec = contained_spawn(argv, marked, cwd)
    else:
        command, preexec = sandbox.argv, sandbox.preexec
        if sandbox.env:
            marked = {**(os.environ if marked is None else marked), **sandbox.env}
    proxy = None
    try:
        proc = await asyncio.create_subprocess_exec(
            *command,
            cwd=cwd,
            env=marked,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=own_session(),
            process_group=None if own_session() else 0,
            preexec_fn=preexec,
        )
    finally:
        if sandbox is not None:
            sandbox.close()
            from dsh.tools._sandbox import network_asker

            proxy = sandbox.serve(network_asker())  # the domain filter, for this command's life
    contain_process(proc.pid, mark)
    work = asyncio.ensure_future(proc.communicate())
    aborted = asyncio.ensure_future(signal.wait()) if signal is not None else None
    try:
        waiting: set[asyncio.Future[Any]] = {work}
        if aborted is not None:
            waiting.add(aborted)
        done, _ = await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if work in done:
            out, err = work.result()
            assert proc.returncode is not None
            return ProcessOutcome(proc.returncode, out, err)
        kill_group(proc.pid)
        # The pipes close once every member is dead, so this returns promptly.
        out, err = await work
        assert proc.returncode is not None
        if aborted is not None and aborted in done:
            return ProcessOutcome(proc.returncode, out, err, aborted=aborted.result())
        return ProcessOutcome(proc.returncode, out, err, timed_out=True)
    finally:
        if aborted is not None:
            aborted.cancel()
        if proc.returncode is None:
            kill_group(proc.pid)
            work.cancel()
            # Shielded so a second cancellation still leaves the reap running.
            await asyncio.shield(proc.wait())
        release_process(proc.pid)
        if proxy is not None:
            proxy.close()
