"""Typed channel constants: the four dispatch kinds a seam can have.

A channel is a constant owned by the package that fires it. It carries its
name, its kind and (through its type parameters) the exact signature its
listeners must have, so ``mypy --strict`` rejects a listener of the wrong shape.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import UnionType
from typing import ClassVar, Generic, Literal, Protocol, TypeVar, TypeVarTuple, Unpack

__all__ = [
    "Channel",
    "ChannelKind",
    "Next",
    "NotifyChannel",
    "SerialChannel",
    "SyncNotifyChannel",
    "WaterfallChannel",
]

Ts = TypeVarTuple("Ts")
L = TypeVar("L")
D = TypeVar("D")
D_co = TypeVar("D_co", covariant=True)
R = TypeVar("R")

ChannelKind = Literal["notify", "sync-notify", "serial", "waterfall", "custom"]


class Next(Protocol[D_co]):
    """The rest of a waterfall chain: ``await next()`` runs it and returns its decision."""

    def __call__(self) -> Awaitable[D_co]: ...


class Channel(Generic[L]):
    """A named seam whose listeners have type ``L``.

    Subclass it directly only for a seam with its own dispatch (the tool
    registry's around-dispatch chain); the four kinds below cover the rest.
    """

    __slots__ = ("name",)
    kind: ClassVar[ChannelKind] = "custom"

    def __init__(self, name: str) -> None:
        if not name or "/" not in name:
            raise ValueError(f"channel name {name!r} must look like 'package/seam'")
        self.name = name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class NotifyChannel(Channel[Callable[[Unpack[Ts]], Awaitable[None]]], Generic[*Ts]):
    """Listeners are awaited in order; each failure is contained and logged."""

    __slots__ = ()
    kind: ClassVar[ChannelKind] = "notify"


class SyncNotifyChannel(Channel[Callable[[Unpack[Ts]], None]], Generic[*Ts]):
    """Like notify, for synchronous listeners only (final observers)."""

    __slots__ = ()
    kind: ClassVar[ChannelKind] = "sync-notify"


class SerialChannel(Channel[Callable[[Unpack[Ts]], Awaitable[R | None]]], Generic[R, *Ts]):
    """Listeners are awaited in order; the first non-``None`` answer ends the dispatch."""

    __slots__ = ()
    kind: ClassVar[ChannelKind] = "serial"


class WaterfallChannel(Channel[Callable[[Unpack[Ts], Next[D]], Awaitable[D]]], Generic[D, *Ts]):
    """Each listener gets the arguments plus ``next``; the chain's end returns the default.

    ``default`` builds the decision the chain ends with from the dispatch's
    arguments (a constant for most seams; the incoming decision for seams that
    receive one). ``returns``, when given, is checked against every listener's
    answer so a listener that forgets to return fails loudly, named.
    """

    __slots__ = ("default", "returns")
    kind: ClassVar[ChannelKind] = "waterfall"

    def __init__(
        self,
        name: str,
        *,
        default: Callable[[Unpack[Ts]], D],
        returns: type | UnionType | tuple[type, ...] | None = None,
    ) -> None:
        super().__init__(name)
        self.default = default
        self.returns = returns
