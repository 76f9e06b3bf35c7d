"""The plugin host: ``Context`` scopes, listener registration, services and dispatch.

Every ``Context`` of one tree shares a hub holding the listeners of each
channel and the services. A scope remembers what it installed so that
``await scope.dispose()`` removes exactly that, last first, children included.
Listener lists are copy-on-write tuples: a dispatch iterates the tuple it read
at its start, so adding or removing a listener mid-dispatch never changes it.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Generic, Protocol, TypeVar, TypeVarTuple, cast, final, overload

from dsh.base import DshError
from dsh.context._chain import ListenerError, describe, run_waterfall
from dsh.context._channels import (
    Channel,
    NotifyChannel,
    SerialChannel,
    SyncNotifyChannel,
    WaterfallChannel,
)

__all__ = [
    "Context",
    "Disposer",
    "Plugin",
    "ScopeDisposedError",
    "ServiceKey",
    "ServiceNotFoundError",
]

logger = logging.getLogger("dsh.context")

Ts = TypeVarTuple("Ts")
L = TypeVar("L")
D = TypeVar("D")
R = TypeVar("R")
T = TypeVar("T")
C = TypeVar("C")
C_contra = TypeVar("C_contra", contravariant=True)


class ServiceNotFoundError(DshError, LookupError):
    """``ctx.require(KEY)`` found no provider for a service that must be there."""


class ScopeDisposedError(DshError, RuntimeError):
    """Something was installed on a scope after it was disposed."""


@final
class ServiceKey(Generic[T]):
    """A typed service key, owned by the package that provides the service.

    ``bind`` lets a service hand each scope its own view (so that, for example,
    a guard installed through ``ctx.require(TOOLS)`` is removed with that scope).
    """

    __slots__ = ("_bind", "name")

    def __init__(self, name: str, *, bind: Callable[[T, Context], T] | None = None) -> None:
        self.name = name
        self._bind = bind

    def __repr__(self) -> str:
        return f"<ServiceKey {self.name!r}>"


@final
class Disposer:
    """Undoes one installation; calling it twice is harmless."""

    __slots__ = ("_fn", "_owner")

    def __init__(self, fn: Callable[[], None], owner: Context | None = None) -> None:
        self._fn: Callable[[], None] | None = fn
        self._owner = owner

    @property
    def disposed(self) -> bool:
        return self._fn is None

    def __call__(self) -> None:
        fn, self._fn = self._fn, None
        if fn is not None:
            fn()
            if self._owner is not None:
                self._owner._forget(self)


class _HasApply(Protocol):
    def apply(self, ctx: Context, /) -> None: ...


class _HasApplyWithConfig(Protocol[C_contra]):
    def apply(self, ctx: Context, config: C_contra, /) -> None: ...


Plugin = Callable[["Context"], None] | _HasApply
"""A plugin: a callable taking the context, or an object with ``apply``."""

_AsyncCleanup = Callable[[], Awaitable[None]]
_Entry = Disposer | _AsyncCleanup


class _Registration:
    __slots__ = ("channel", "fn")

    def __init__(self, channel: Channel[Any], fn: Any) -> None:
        self.channel = channel
        self.fn = fn


class _Hub:
    """State shared by every scope of one context tree."""

    __slots__ = ("fns", "regs", "services")

    def __init__(self) -> None:
        self.regs: dict[Channel[Any], list[_Registration]] = {}
        # What dispatch reads: rebuilt on every change, never mutated in place.
        self.fns: dict[Channel[Any], tuple[Any, ...]] = {}
        self.services: dict[ServiceKey[Any], list[tuple[object, object]]] = {}

    def add(self, reg: _Registration, prepend: bool) -> None:
        regs = self.regs.setdefault(reg.channel, [])
        if prepend:
            regs.insert(0, reg)
        else:
            regs.append(reg)
        self.fns[reg.channel] = tuple(r.fn for r in regs)

    def remove(self, reg: _Registration) -> None:
        regs = self.regs.get(reg.channel)
        if regs is None:
            return
        for i, r in enumerate(regs):
            if r is reg:
                del regs[i]
                break
        if regs:
            self.fns[reg.channel] = tuple(r.fn for r in regs)
        else:
            del self.regs[reg.channel]
            del self.fns[reg.channel]


class Context:
    """A plugin scope. ``Context()`` makes a root; ``ctx.plugin(apply)`` a child."""

    __slots__ = ("_children", "_disposed", "_entries", "_hub", "_name", "_parent")

    def __init__(self, *, name: str = "root") -> None:
        self._hub = _Hub()
        self._parent: Context | None = None
        self._name = name
        self._entries: list[_Entry | Context] = []
        self._disposed = False

    # -- scopes ---------------------------------------------------------------

    @property
    def name(self) -> str:
        """The plugin's name (``root`` for the root scope)."""
        return self._name

    @property
    def parent(self) -> Context | None:
        return self._parent

    @property
    def disposed(self) -> bool:
        return self._disposed

    def _child(self, name: str) -> Context:
        self._check_live()
        child = Context.__new__(Context)
        child._hub = self._hub
        child._parent = self
        child._name = name
        child._entries = []
        child._disposed = False
        self._entries.append(child)
        return child

    @overload
    def plugin(self, apply: Plugin, config: None = None, *, name: str | None = None) -> Context: ...

    @overload
    def plugin(
        self,
        apply: Callable[[Context, C], None] | _HasApplyWithConfig[C],
        config: C,
        *,
        name: str | None = None,
    ) -> Context: ...

    def plugin(self, apply: Any, config: Any = None, *, name: str | None = None) -> Context:
        """Run a plugin in a new child scope and return that scope.

        The plugin receives its config only when one is given. If it raises,
        what it installed so far is removed before the error propagates, so a
        plugin is never half-mounted.
        """
        if isinstance(apply, type):
            raise TypeError(f"pass an instance of {apply.__qualname__}, not the class")
        fn = getattr(apply, "apply", None)
        target = fn if fn is not None and not inspect.isfunction(apply) else apply
        if not callable(target):
            raise TypeError(f"plugin {apply!r} is neither callable nor has an apply method")
        scope = self._child(name or _plugin_name(apply))
        try:
            if config is None:
                target(scope)
            else:
                target(scope, config)
        except BaseException:
            scope._abandon()
            raise
        return scope

    def _abandon(self) -> None:
        """Synchronously remove what a failed plugin installed.

        Async cleanups it registered cannot run here; they stay attached to
        the parent so its ``dispose()`` still runs them.
        """
        for entry in reversed(self._entries):
            if isinstance(entry, Disposer):
                entry._owner = None
                entry()
            elif isinstance(entry, Context):
                entry._abandon()
        self._entries = [e for e in self._entries if not isinstance(e, Disposer)]
        if not self._entries and self._parent is not None:
            self._parent._entries.remove(self)
            self._disposed = True

    async def dispose(self) -> None:
        """Remove everything this scope and its children installed, last first.

        Every cleanup runs even if an earlier one fails; the first failure is
        re-raised at the end, the others are logged.
        """
        if self._disposed:
            return
        self._disposed = True
        if self._parent is not None and self in self._parent._entries:
            self._parent._entries.remove(self)
        entries, self._entries = self._entries, []
        first_error: BaseException | None = None
        for entry in reversed(entries):
            try:
                if isinstance(entry, Disposer):
                    entry._owner = None
                    entry()
                elif isinstance(entry, Context):
                    await entry.dispose()
                else:
                    await entry()
            except Exception as exc:
                if first_error is None:
                    first_error = exc
                else:
                    logger.exception("cleanup %s of scope %r failed", describe(entry), self._name)
        if first_error is not None:
            raise first_error

    def add_disposer(self, cleanup: Callable[[], None] | _AsyncCleanup) -> Disposer:
        """Run ``cleanup`` (sync, or async) when this scope is disposed.

        Returns a disposer that runs a sync cleanup now, or cancels an async one.
        """
        self._check_live()
        if inspect.iscoroutinefunction(cleanup):
            async_cleanup = cast(_AsyncCleanup, cleanup)
            self._entries.append(async_cleanup)

            def cancel() -> None:
                if async_cleanup in self._entries:
                    self._entries.remove(async_cleanup)

            return Disposer(cancel)
        disposer = Disposer(cast(Callable[[], None], cleanup), self)
        self._entries.append(disposer)
        return disposer

    def _forget(self, disposer: Disposer) -> None:
        with contextlib.suppress(ValueError):
            self._entries.remove(disposer)

    def _check_live(self) -> None:
        if self._disposed:
            raise ScopeDisposedError(f"scope {self._name!r} is disposed")

    # -- listeners ------------------------------------------------------------

    @overload
    def on(self, channel: Channel[L], listener: L, *, prepend: bool = False) -> Disposer: ...

    @overload
    def on(self, channel: Channel[L], *, prepend: bool = False) -> Callable[[L], L]: ...

    def on(
        self, channel: Channel[L], listener: L | None = None, *, prepend: bool = False
    ) -> Disposer | Callable[[L], L]:
        """Subscribe ``listener`` to ``channel`` in this scope.

        With no listener, returns a decorator that subscribes the function and
        returns it unchanged (it is removed when the scope is disposed).
        ``prepend=True`` puts it before the listeners already there.
        """
        if listener is None:

            def decorator(fn: L) -> L:
                self.on(channel, fn, prepend=prepend)
                return fn

            return decorator
        self._check_live()
        if not callable(listener):
            raise TypeError(f"listener for {channel.name} is not callable: {listener!r}")
        if channel.kind == "sync-notify" and inspect.iscoroutinefunction(listener):
            raise TypeError(
                f"{channel.name} takes synchronous listeners only; "
                f"{describe(listener)} is a coroutine function"
            )
        reg = _Registration(channel, listener)
        hub = self._hub
        hub.add(reg, prepend)
        disposer = Disposer(lambda: hub.remove(reg), self)
        self._entries.append(disposer)
        return disposer

    def listeners(self, channel: Channel[L]) -> tuple[L, ...]:
        """The channel's listeners in dispatch order, as a snapshot."""
        # No ``cast``: it would build ``tuple[L, ...]`` on every dispatch.
        fns: tuple[L, ...] = self._hub.fns.get(channel, ())
        return fns

    # -- services -------------------------------------------------------------

    def provide(self, key: ServiceKey[T], impl: T) -> Disposer:
        """Provide ``impl`` for ``key`` while this scope lives (the newest provider wins)."""
        self._check_live()
        stack = self._hub.services.setdefault(key, [])
        token = object()
        stack.append((token, impl))

        def remove() -> None:
            for i, (t, _) in enumerate(stack):
                if t is token:
                    del stack[i]
                    break
            if not stack:
                self._hub.services.pop(key, None)

        disposer = Disposer(remove, self)
        self._entries.append(disposer)
        return disposer

    def get(self, key: ServiceKey[T]) -> T | None:
        """The service for ``key``, or ``None`` when nobody provides it."""
        stack = self._hub.services.get(key)
        if not stack:
            return None
        impl = cast(T, stack[-1][1])
        bind = key._bind
        return bind(impl, self) if bind is not None else impl

    def require(self, key: ServiceKey[T]) -> T:
        """The service for ``key``; raises ``ServiceNotFoundError`` when absent."""
        impl = self.get(key)
        if impl is None:
            raise ServiceNotFoundError(
                f"service {key.name!r} is required by scope {self._name!r} but nobody provides it"
            )
        return impl

    # -- dispatch -------------------------------------------------------------

    async def emit(self, channel: NotifyChannel[*Ts], *args: *Ts) -> None:
        """Await every listener in order; a failing listener is logged and skipped."""
        for fn in self._hub.fns.get(channel, ()):
            try:
                await fn(*args)
            except Exception:
                logger.exception("listener %s on channel %s failed", describe(fn), channel.name)

    def emit_sync(self, channel: SyncNotifyChannel[*Ts], *args: *Ts) -> None:
        """Call every synchronous listener in order; failures are logged and skipped."""
        for fn in self._hub.fns.get(channel, ()):
            try:
                fn(*args)
            except Exception:
                logger.exception("listener %s on channel %s failed", describe(fn), channel.name)

    async def serial(self, channel: SerialChannel[R, *Ts], *args: *Ts) -> R | None:
        """Await listeners in order until one answers (non-``None``); failures propagate."""
        for fn in self._hub.fns.get(channel, ()):
            answer = await fn(*args)
            if answer is not None:
                return cast(R, answer)
        return None

    async def waterfall(self, channel: WaterfallChannel[D, *Ts], *args: *Ts) -> D:
        """Run the chain: each listener decides, or delegates with ``await next()``.

        A listener's failure propagates as the listener raised it (the first one,
        even when an outer listener caught it); see ``run_waterfall``.
        """
        fns = self._hub.fns.get(channel)
        if not fns:
            return channel.default(*args)
        try:
            return await run_waterfall(
                channel.name, fns, args, lambda: channel.default(*args), channel.returns
            )
        except ListenerError as failure:
            # The listener's own error, as a caller of the seam expects it.
            raise failure.error from None


def _plugin_name(apply: object) -> str:
    if inspect.isfunction(apply) or inspect.ismethod(apply):
        return apply.__name__
    name = getattr(apply, "name", None)
    return name if isinstance(name, str) and name else type(apply).__name__
