"""``race``: the one way dsh awaits work that an abort must cut short."""

from __future__ import annotations

import asyncio

import pytest

from dsh.base import AbortedError, AbortSignal, race
from dsh.base._signal import SignalAbortedError


async def test_without_an_abort_the_work_gives_its_value() -> None:
    async def work() -> int:
        await asyncio.sleep(0)
        return 7

    assert await race(work(), AbortSignal()) == 7
    assert await race(work(), None) == 7


async def test_an_abort_cancels_the_work_and_waits_for_it_before_raising() -> None:
    signal = AbortSignal()
    started = asyncio.Event()
    trail: list[str] = []

    async def work() -> int:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await asyncio.sleep(0)  # its cleanup awaits: the race waits for it
            trail.append("cleaned up")
            raise
        return 0

    task = asyncio.create_task(race(work(), signal))
    await started.wait()
    signal.abort("user pressed ^C")
    with pytest.raises(SignalAbortedError) as caught:
        await task
    assert caught.value.reason == "user pressed ^C"
    assert isinstance(caught.value, AbortedError)
    assert trail == ["cleaned up"]


async def test_an_already_aborted_signal_never_lets_the_work_run() -> None:
    signal = AbortSignal()
    signal.abort("too late")
    ran: list[str] = []

    async def work() -> None:
        ran.append("ran")

    with pytest.raises(SignalAbortedError, match="too late"):
        await race(work(), signal)
    assert ran == []


async def test_the_works_own_aborted_error_is_not_the_races() -> None:
    async def work() -> None:
        raise AbortedError("the body gave up")

    with pytest.raises(AbortedError) as caught:
        await race(work(), AbortSignal())
    assert type(caught.value) is AbortedError


async def test_the_callers_own_cancellation_propagates() -> None:
    signal = AbortSignal()
    started = asyncio.Event()

    async def work() -> None:
        started.set()
        await asyncio.sleep(3600)

    task = asyncio.create_task(race(work(), signal))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not signal.aborted
