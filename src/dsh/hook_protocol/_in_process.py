"""Hooks that run in dsh's process, not as a process of their own: an HTTP request, a model.

A ``HookCommand`` with a ``call`` (an ``InProcessHook``) is run here instead of being
spawned: ``call(payload)`` answers as a process would, with an ``Answered`` (an exit code,
stdout, stderr), and the ``HookRun`` it becomes is read by the bridge's decoder like any
other. The timeout and the abort signal end it as they end a process (``timed_out``,
``cancelled``); an exception from it is ``spawn_error`` naming it; cancelling the caller
cancels it. Such a hook holds no process slot (``_slots``): it spawns nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, final

from dsh._frozen import frozen
from dsh.hook_protocol._run import CancelSignal, HookRun

if TYPE_CHECKING:
    from dsh.hook_protocol._declarations import HookCommand

__all__ = ["Answered", "InProcessHook", "run_in_process"]


@final
@frozen(kw_only=True)
class Answered:
    """What an in-process hook said, in a process's terms."""

    exit_code: int
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False


class InProcessHook(Protocol):
    """A hook dsh runs itself: the payload in, its answer out (never a process)."""

    def __call__(self, payload: bytes, /) -> Awaitable[Answered]: ...

    def describe(self) -> str:
        """What it is, for a failure's reason (``HTTP hook request to URL``)."""
        ...


async def run_in_process(
    cmd: HookCommand, hook: InProcessHook, stdin: bytes, signal: CancelSignal | None
) -> HookRun:
    """Run ``hook`` with ``stdin`` within ``cmd.timeout`` and ``signal``; never raises but for
    cancellation."""
    started = time.perf_counter()
    if signal is not None and signal.aborted:
        return HookRun.without_output(cmd, 0.0, cancelled=True)
    work = asyncio.ensure_future(hook(stdin))
    abort: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    remove: Callable[[], None] | None = None
    if signal is not None:

        def on_abort(_reason: str) -> None:
            if not abort.done():
                abort.set_result(None)

        remove = signal.on_abort(on_abort)
    try:
        done, _ = await asyncio.wait(
            (work, abort), timeout=cmd.timeout, return_when=asyncio.FIRST_COMPLETED
        )
    except asyncio.CancelledError:
        work.cancel()
        await asyncio.gather(work, return_exceptions=True)
        raise
    finally:
        if remove is not None:
            remove()
    duration = time.perf_counter() - started
    if work not in done:
        work.cancel()
        await asyncio.gather(work, return_exceptions=True)
        cancelled = abort.done()
        return HookRun(
            command=cmd,
            pid=None,
            exit_code=None,
            signal=None,
            stdout="",
            stderr="",
            duration=duration,
            timed_out=not cancelled,
            cancelled=cancelled,
        )
    try:
        answer = work.result()
    except Exception as exc:
        reason = f"{hook.describe()} failed: {type(exc).__name__}: {exc}"
        return HookRun.without_output(cmd, duration, spawn_error=reason)
    return HookRun(
        command=cmd,
        pid=None,
        exit_code=answer.exit_code,
        signal=None,
        stdout=answer.stdout,
        stderr=answer.stderr,
        stdout_truncated=answer.stdout_truncated,
        duration=duration,
    )
