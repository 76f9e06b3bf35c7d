"""How many hook processes run at once: the process's limit, and the queue of the others.

Every hook process the executor starts (an event's hooks, an async hook's, a
subagent's, ``dsh hooks test``'s) holds a slot of its event loop's limit from
before it is spawned until it has been ended and reaped; a hook that finds
none free waits, and waiting hooks start in the order they asked, which for
one firing is declaration order (``run_hooks`` asks in that order). What each
hook answers, how a firing merges the answers (by declaration, never by
finishing order) and what the audit trail records do not change: only when
the processes run. A hook's timeout counts from its own start, not from when it
queued. Async hooks (run ``in_background``) hold slots too, of a second limit of
the same size: they are processes like the others, and a suite firing many in the
background would otherwise escape the limit; but a long-running background hook
must never hold up the hooks a tool call or a prompt waits for, so the two never
share slots (at most twice the limit run at once in all).

The limit is ``hook_concurrency`` in dsh's configuration (``DSH_HOOK_CONCURRENCY``),
else ``default_hook_concurrency()``: four per CPU dsh may run on, and never
fewer than 16, so that an event's hooks in any suite seen in practice (a
handful, rarely a dozen) all start at once as in Claude Code and Codex, while
1,000 matching hooks no longer start 1,000 processes (and their memory) at once.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import functools
import os
import weakref
from collections.abc import AsyncIterator, Iterator
from typing import Final

__all__ = [
    "default_hook_concurrency",
    "hook_concurrency",
    "hook_slot",
    "in_background",
    "set_hook_concurrency",
]

_PER_CPU: Final = 4
_AT_LEAST: Final = 16

_chosen: int | None = None
_BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "dsh_hooks_in_background", default=False
)


class _Slots:
    """One loop's slots: ``free`` of them, and the hooks waiting, first come first served.

    Not ``asyncio.Semaphore``, whose ``acquire`` scans every waiter (and removes its own
    from the middle of the queue): a firing of n hooks would cost O(n²) there. Here a
    freed slot is handed to the first waiter still waiting, and a cancelled waiter is
    skipped when its turn comes.
    """

    __slots__ = ("free", "limit", "waiting")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.free = limit
        self.waiting: collections.deque[asyncio.Future[None]] = collections.deque()

    async def acquire(self) -> None:
        if self.free > 0:
            self.free -= 1
            return
        turn = asyncio.get_running_loop().create_future()
        self.waiting.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # handed a slot, but cancelled before it could run: pass it on
            raise

    def release(self) -> None:
        while self.waiting:
            turn = self.waiting.popleft()
            if not turn.done():
                turn.set_result(None)  # the slot goes straight to the next in line
                return
        self.free += 1


_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[bool, _Slots]] = (
    weakref.WeakKeyDictionary()
)


@contextlib.contextmanager
def in_background() -> Iterator[None]:
    """The hooks run in the block (and in the tasks it starts) are background (async)
    hooks: they take the background limit's slots."""
    token = _BACKGROUND.set(True)
    try:
        yield
    finally:
        _BACKGROUND.reset(token)


@functools.cache
def default_hook_concurrency() -> int:
    """``max(16, 4 × the CPUs this process may run on)``."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(_AT_LEAST, _PER_CPU * cpus)


def set_hook_concurrency(limit: int | None) -> None:
    """How many hook processes may run at once in this process (``None``: the default)."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"a hook concurrency limit is a whole number >= 1, not {limit!r}")
    global _chosen
    _chosen = limit


def hook_concurrency() -> int:
    """The limit in force: ``set_hook_concurrency``'s, else the default."""
    return _chosen if _chosen is not None else default_hook_concurrency()


@contextlib.asynccontextmanager
async def hook_slot() -> AsyncIterator[None]:
    """Hold one of the running loop's slots for the block (waiting, first come first
    served, while none is free)."""
    loop = asyncio.get_running_loop()
    limit = hook_concurrency()
    pools = _by_loop.get(loop)
    if pools is None:
        pools = _by_loop[loop] = {}
    background = _BACKGROUND.get()
    slots = pools.get(background)
    if slots is None or slots.limit != limit:
        # A new loop, or a new limit (set before the hooks it governs run).
        slots = pools[background] = _Slots(limit)
    await slots.acquire()
    try:
        yield
    finally:
        slots.release()
