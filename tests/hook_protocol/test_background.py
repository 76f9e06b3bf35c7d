"""``BackgroundFirings``: bounded background work, cancelled together, failures logged."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest

from dsh.hook_protocol import BackgroundFirings


async def test_at_most_limit_run_and_cancel_ends_the_rest() -> None:
    firings = BackgroundFirings(2)
    started: list[int] = []
    both = asyncio.Event()
    never = asyncio.Event()

    def work(n: int) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            started.append(n)
            if len(started) == 2:
                both.set()
            await never.wait()

        return run

    for n in range(3):
        firings.start(work(n), name=f"w{n}")
    await both.wait()
    for _ in range(5):
        await asyncio.sleep(0)  # the third has every chance to start: it may not
    assert started == [0, 1]
    assert len(firings) == 3
    await firings.cancel()
    assert len(firings) == 0
    assert started == [0, 1]


async def test_a_failing_firing_is_logged_not_lost(caplog: pytest.LogCaptureFixture) -> None:
    firings = BackgroundFirings()
    done = asyncio.Event()

    async def boom() -> None:
        done.set()
        raise RuntimeError("CASE-BOOM")

    with caplog.at_level(logging.ERROR, logger="dsh.hook_protocol"):
        firings.start(boom, name="boom")
        await done.wait()
        await firings.cancel()
    assert any("boom" in r.getMessage() for r in caplog.records)


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        BackgroundFirings(0)
