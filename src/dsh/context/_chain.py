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

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from dsh.context._channels import Next

__all__ = ["ChannelError", "ListenerError", "NextCalledTwiceError", "describe", "run_waterfall"]

D = TypeVar("D")


class ChannelError(RuntimeError):
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


def describe(fn: object) -> str:
    """A listener's name for logs and errors: module-qualified when it has one."""
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module else str(name)


async def run_waterfall(
    channel: str,
    fns: tuple[Callable[..., Awaitable[Any]], ...],
    args: tuple[Any, ...],
    default: Callable[[], D],
    returns: type | tuple[type, ...] | Any | None,
) -> D:
    """Run ``fns`` as a waterfall over ``args``; ``ListenerError`` for the first failure.

    ``default()`` builds the end of the chain's decision; ``returns`` (a type,
    a tuple or union of types, or ``None`` for no check) is what each
    listener must answer.
    """
    failed: list[ListenerError] = []
    last = len(fns) - 1

    async def run(index: int) -> D:
        fn = fns[index]
        called = False

        async def next_() -> D:
            nonlocal called
            if called:
                raise NextCalledTwiceError(
                    f"listener {describe(fn)} on channel {channel} called next() twice"
                )
            called = True
            return default() if index == last else await run(index + 1)

        try:
            decision = await fn(*args, cast(Next[D], next_))
        except Exception as exc:
            if not failed:
                failed.append(ListenerError(fn, channel, exc))
            raise
        if returns is not None and not isinstance(decision, returns):
            expected = returns.__name__ if isinstance(returns, type) else "decision of that channel"
            error = ChannelError(
                f"listener {describe(fn)} on channel {channel} returned "
                f"{type(decision).__name__}, not a {expected}"
            )
            if not failed:
                failed.append(ListenerError(fn, channel, error))
            raise error
        return cast(D, decision)

    try:
        decision = await run(0)
    except Exception:
        if not failed:
            raise
        raise failed[0] from failed[0].error
    if failed:
        raise failed[0] from failed[0].error
    return decision
