"""The one waterfall runner: every decision chain of dsh runs through ``run_waterfall``.

``Context.waterfall`` and the tool registry's decision phases (pre-execute,
approval/request, post-execute) are the same chain: each listener receives the
arguments plus ``next``, decides, or delegates with ``await next()``; the
chain's end is the default decision. One semantics for a broken listener:

- a listener that raises, returns a wrong type, or calls ``next`` twice is the
  chain's failure; the FIRST failure wins, even when an outer listener catches
  what its ``next`` raised and answers anyway (a failed policy is never hidden);
- the runner raises it as one ``ListenerError`` naming the listener and the
  channel, its ``error`` the listener's own exception (or the ``ChannelError``
  of a contract breach). ``Context.waterfall`` re-raises that ``error``; the
  registry turns it into a ``LISTENER_ERROR`` result.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from dsh.base import DshError

__all__ = ["ChannelError", "ListenerError", "NextCalledTwiceError", "describe", "run_waterfall"]

D = TypeVar("D")


class ChannelError(DshError, RuntimeError):
    """A listener broke its channel's contract (wrong answer, ``next`` misuse)."""


class NextCalledTwiceError(ChannelError):
    """A waterfall listener called ``next`` more than once."""


class ListenerError(ChannelError):
    """The first failure of a chain: which listener, on which channel, and its error."""

    def __init__(self, listener: object, channel: str, error: BaseException) -> None:
        text = str(error)
        what = f"{type(error).__name__}: {text}" if text else type(error).__name__
        super().__init__(f"listener {describe(listener)} on channel {channel} failed: {what}")
        self.listener = listener
        self.channel = channel
        self.error = error


def _expected(returns: object) -> str:
    """What a listener should have answered: the type, or the closed union its variants share."""
    if isinstance(returns, tuple) and returns:
        shared = [c for c in returns[0].__mro__[1:] if all(issubclass(r, c) for r in returns)]
        return shared[0].__name__ if shared and shared[0] is not object else "decision"
    return returns.__name__ if isinstance(returns, type) else "decision of that channel"


def describe(fn: object) -> str:
    """A listener's name for logs and errors: module-qualified when it has one."""
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module else str(name)


def run_waterfall(
    channel: str,
    fns: tuple[Callable[..., Awaitable[Any]], ...],
    args: tuple[Any, ...],
    default: Callable[[], D],
    returns: type | tuple[type, ...] | Any | None,
) -> Coroutine[Any, Any, D]:
    """The waterfall of ``fns`` over ``args``, to await; ``ListenerError`` for the first failure.

    ``default()`` builds the end of the chain's decision; ``returns`` (a type,
    a tuple or union of types, or ``None`` for no check) is what each
    listener must answer. The first listener's frame is the chain's own (no
    wrapper coroutine): it turns the recorded failure into the one error.
    """
    if not fns:
        return _ended(default)
    return _link(0, channel, fns, args, default, returns, [])


async def _link(
    index: int,
    channel: str,
    fns: tuple[Callable[..., Awaitable[Any]], ...],
    args: tuple[Any, ...],
    default: Callable[[], D],
    returns: type | tuple[type, ...] | Any | None,
    failed: list[ListenerError],
) -> D:
    """Listener ``index`` of the chain; ``failed`` holds the chain's first failure.

    A module-level function, not a closure of ``run_waterfall``: a nested
    function that calls itself is a reference cycle (its closure holds it),
    garbage that only the collector frees, made anew on every dispatch.
    """
    fn = fns[index]
    called = False

    async def next_() -> D:
        nonlocal called
        if called:
            raise NextCalledTwiceError(
                f"listener {describe(fn)} on channel {channel} called next() twice"
            )
        called = True
        if index == len(fns) - 1:
            return default()
        return await _link(index + 1, channel, fns, args, default, returns, failed)

    try:
        # ``fn`` takes ``...``: ``next_`` needs no cast, which would build
        # ``Next[D]`` on every call.
        decision: D = await fn(*args, next_)
    except Exception as exc:
        if not failed:
            failed.append(ListenerError(fn, channel, exc))
        if index == 0:
            raise failed[0] from failed[0].error
        raise
    if returns is not None and not isinstance(decision, returns):
        error = ChannelError(
            f"listener {describe(fn)} on channel {channel} returned "
            f"{type(decision).__name__}, not a {_expected(returns)}"
        )
        if not failed:
            failed.append(ListenerError(fn, channel, error))
        if index == 0:
            raise failed[0] from failed[0].error
        raise error
    if index == 0 and failed:
        # An outer listener answered over an inner one's failure: the failure stands.
        raise failed[0] from failed[0].error
    return decision


async def _ended(default: Callable[[], D]) -> D:
    return default()
