"""A ``--plugin MODULE:FUNCTION``'s refusals signed with its name.

A native plugin's pre-execute listener that denies a call without saying who
it is (``PreToolDeny(reason)``, no ``info``) would be shown as ``[DENIED] by the
pre-execute policy``. ``signed`` hands the plugin its scope with ``on`` wrapped:
its pre-execute listeners' own denials carry ``{"plugin": SPEC}``, which the
transcript and the session log show (``_attribution.decided_by``). A denial the
listener passed on from ``next()`` is left as it came.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from dsh.tools import PRE_EXECUTE, PreToolDeny

__all__ = ["signed"]


def _signed_listener(listener: Any, name: str) -> Any:
    @functools.wraps(listener)
    async def signing(call: Any, next_: Callable[[], Awaitable[Any]], *rest: Any) -> Any:
        passed: list[Any] = []

        async def forward() -> Any:
            decision = await next_()
            passed.append(decision)
            return decision

        decision = await listener(call, forward, *rest)
        if (
            type(decision) is PreToolDeny
            and decision.info is None
            and not _passed_on(decision, passed)
        ):
            return PreToolDeny(
                decision.reason,
                info={"plugin": name},
                additional_context=decision.additional_context,
            )
        return decision

    return signing


def _passed_on(decision: object, passed: list[Any]) -> bool:
    return any(decision is p for p in passed)


class _SignedScope:
    """The plugin's ``Context``, but for ``on(PRE_EXECUTE, ...)``, which signs."""

    __slots__ = ("_ctx", "_name")

    def __init__(self, ctx: Any, name: str) -> None:
        self._ctx = ctx
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._ctx, attr)

    def on(self, channel: Any, listener: Any = None, *, prepend: bool = False) -> Any:
        if listener is None:

            def decorator(fn: Any) -> Any:
                self.on(channel, fn, prepend=prepend)
                return fn

            return decorator
        if channel is PRE_EXECUTE:
            listener = _signed_listener(listener, self._name)
        return self._ctx.on(channel, listener, prepend=prepend)


def signed(ctx: Any, name: str) -> Any:
    """``ctx`` as the plugin named ``name`` mounts on it."""
    return _SignedScope(ctx, name)
