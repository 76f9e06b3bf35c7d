"""``BackgroundFirings``: the hook firings a bridge does not wait for (a protocol's async hooks).

A firing started here runs as its own task, at most ``limit`` at once (the
others wait for a slot before their hooks start), and outlives the turn that
started it; only ``cancel`` (the session's end) stops what is still running or
waiting, and waits until each has closed its audit trail (``fire_hooks`` logs a
cancelled ``hook/result`` for every invocation). What a firing delivers, and
where, is the bridge's: the work it is given does that when the hooks are done.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import final

from dsh.hook_protocol._slots import in_background

__all__ = ["BackgroundFirings"]

_logger = logging.getLogger("dsh.hook_protocol")


@final
class BackgroundFirings:
    """The background firings of one session: started with ``start``, ended with ``cancel``."""

    __slots__ = ("_limit", "_slots", "_tasks")

    def __init__(self, limit: int | None = None) -> None:
        if limit is not None and limit < 1:
            raise ValueError(f"a background limit must be at least 1, not {limit}")
        self._limit = limit
        self._slots: asyncio.Semaphore | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        """How many firings are running or waiting for a slot."""
        return len(self._tasks)

    def start(self, work: Callable[[], Awaitable[None]], *, name: str) -> None:
        """Run ``work()`` in the background, once a slot is free (on the running loop)."""
        if self._limit is not None and self._slots is None:
            self._slots = asyncio.Semaphore(self._limit)
        slots = self._slots

        async def run() -> None:
            try:
                with in_background():  # its hooks take the background limit's slots
                    if slots is None:
                        await work()
                        return
                    async with slots:
                        await work()
            except Exception:
                # Nobody awaits a background firing: its failure is logged, never lost.
                _logger.exception("background hook firing %s failed", name)

        task = asyncio.get_running_loop().create_task(run(), name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def cancel(self) -> None:
        """Cancel every firing still running or waiting, and wait until each has ended."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
