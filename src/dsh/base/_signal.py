"""The cancellation signal (an AbortSignal, as in the seed) and the one race against it.

A signal is aborted once, with a reason; callbacks run at that moment (or at
once when added to an aborted signal). ``race(work, signal)`` is how every
layer (the tool pipeline, the agent loop) awaits work that an abort must cut
short: the work runs in its own task, cancelled and awaited the moment the
signal aborts, so nothing the race started outlives it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar, final

from dsh.base._errors import DshError

__all__ = ["AbortSignal", "AbortedError", "SignalAbortedError", "race"]

logger = logging.getLogger("dsh.base")

T = TypeVar("T")


class AbortedError(DshError):
    """Raised by ``signal.raise_if_aborted()``; carries the signal's reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@final
class SignalAbortedError(AbortedError):
    """Raised by ``race``: the signal aborted the awaited work (and only the signal did).

    A subclass, so a caller can tell the race's abort from an ``AbortedError``
    the work raised itself.
    """


@final
class AbortSignal:
    """Aborted at most once; ``reason`` says why."""

    __slots__ = ("_callbacks", "_event", "_reason")

    def __init__(self) -> None:
        self._reason: str | None = None
        self._callbacks: list[Callable[[str], None]] = []
        self._event: asyncio.Event | None = None

    @property
    def aborted(self) -> bool:
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        return self._reason

    def abort(self, reason: str = "aborted") -> None:
        """Abort with ``reason``; a second call changes nothing."""
        if self._reason is not None:
            return
        self._reason = reason
        if self._event is not None:
            self._event.set()
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            try:
                cb(reason)
            except Exception:
                logger.exception("abort callback %r failed", cb)

    def on_abort(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call ``callback(reason)`` on abort (now, if already aborted); returns a remover."""
        if self._reason is not None:
            callback(self._reason)
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    def raise_if_aborted(self) -> None:
        if self._reason is not None:
            raise AbortedError(self._reason)

    async def wait(self) -> str:
        """Return the reason once the signal is aborted."""
        if self._reason is not None:
            return self._reason
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()
        assert self._reason is not None
        return self._reason

    @classmethod
    def any(cls, signals: Iterable[AbortSignal | None]) -> AbortSignal:
        """A signal aborted as soon as any of ``signals`` is, with that one's reason."""
        combined = cls()
        for s in signals:
            if s is not None:
                s.on_abort(combined.abort)
        return combined

    @classmethod
    def timeout(cls, seconds: float, reason: str | None = None) -> AbortSignal:
        """A signal that aborts itself after ``seconds`` (needs a running event loop)."""
        signal = cls()
        handle = asyncio.get_running_loop().call_later(
            seconds, signal.abort, reason or f"timed out after {seconds:g}s"
        )
        signal.on_abort(lambda _: handle.cancel())
        return signal

    def __repr__(self) -> str:
        state = f"aborted: {self._reason!r}" if self._reason is not None else "live"
        return f"<AbortSignal {state}>"


async def race(work: Awaitable[T], signal: AbortSignal | None) -> T:
    """Await ``work``; ``SignalAbortedError`` when ``signal`` aborts first.

    ``work`` runs in its own task, cancelled the moment the signal aborts (at
    once when it already has) and awaited before this raises. Without a
    signal it is simply awaited. A cancellation of the caller itself
    propagates as ``CancelledError``; so does the work cancelling itself.
    Work that finishes despite the cancellation returns its value.
    """
    if signal is None:
        return await work
    task = asyncio.ensure_future(work)

    def cancel(_reason: str) -> None:
        task.cancel()

    remove = signal.on_abort(cancel)
    try:
        return await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if signal.aborted and (current is None or current.cancelling() == 0):
            raise SignalAbortedError(signal.reason or "aborted") from None
        raise
    finally:
        remove()
