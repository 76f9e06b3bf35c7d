"""Telling whoever waits that the hooks fired in this context have started.

A background subagent's ``Agent`` call returns once the child's SubagentStart hooks have
started, as 2.1.332's does (its hook processes are spawned before the call's result, so
before the call's PostToolUse hooks): the order of the two events' hooks is then the same
on every run, not a race between the child's task and the parent's step. The agent (which
knows no hook) sets a callback with ``telling_hooks_started`` around its SubagentStart
notification; the executor (which knows no agent) calls ``hooks_started`` once every hook
of a firing has started: its process spawned with its payload written, or its run (in
process, HTTP, refused) begun or over. A context with no callback set costs one lookup.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

__all__ = ["hooks_started", "telling_hooks_started"]

_TOLD: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "dsh_hooks_started", default=None
)


@contextlib.contextmanager
def telling_hooks_started(callback: Callable[[], None]) -> Iterator[None]:
    """Within the block (and the tasks it creates), ``hooks_started`` calls ``callback``."""
    token = _TOLD.set(callback)
    try:
        yield
    finally:
        _TOLD.reset(token)


def hooks_started() -> Callable[[], None] | None:
    """The callback to call once a firing's hooks have started (``None``: nobody waits)."""
    return _TOLD.get()
