"""What one hook run did (``HookRun``), and the abort signal a run listens to (``CancelSignal``).

Apart from the executor, so that the HTTP hook client (``_http``) reports the same value
without importing the executor that calls it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from dsh._frozen import frozen
from dsh.hook_protocol._declarations import HookCommand

__all__ = ["CancelSignal", "HookRun"]


class CancelSignal(Protocol):
    """What the executor needs from an abort signal (``dsh.tools.AbortSignal`` has it)."""

    @property
    def aborted(self) -> bool: ...

    def on_abort(self, callback: Callable[[str], None]) -> Callable[[], None]: ...


@frozen(kw_only=True)
class HookRun:
    """What one hook process did.

    One of these describes how it ended: ``exit_code`` (it exited),
    ``signal`` (a signal ended it, ours after a timeout or someone else's), or
    ``spawn_error`` (it never started, or the executor failed around it: the
    text names the path). ``timed_out`` and ``cancelled`` say why the executor
    ended it. ``stdout``/``stderr`` hold at most the capture cap of bytes each,
    decoded as UTF-8 with replacement; ``*_truncated`` says more was written and
    dropped. ``duration`` is in seconds from spawn to the end of capture.
    ``left_behind`` counts the processes it left running when it exited
    normally that dsh ended then (its helpers; see ``dsh.base.set_hook_helpers``).
    """

    command: HookCommand
    pid: int | None
    exit_code: int | None
    signal: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    duration: float
    timed_out: bool = False
    cancelled: bool = False
    spawn_error: str | None = None
    left_behind: int = 0

    @classmethod
    def without_output(
        cls,
        command: HookCommand,
        duration: float,
        *,
        cancelled: bool = False,
        spawn_error: str | None = None,
    ) -> HookRun:
        """A run with nothing to read: it never started (``spawn_error``) or was cancelled."""
        return cls(
            command=command,
            pid=None,
            exit_code=None,
            signal=None,
            stdout="",
            stderr="",
            duration=duration,
            cancelled=cancelled,
            spawn_error=spawn_error,
        )
