"""``CallState``: one tool call's own slot, from sealing to the ``tools/result`` observers.

A listener that carries something from one phase of a call to a later one
(a start time; a hook's answer got while the input was rewritten and applied
at pre-execute) keeps it in the call's ``CallState``, under a
``CallStateKey`` it creates, typed by what it holds::

    STARTED: CallStateKey[float] = CallStateKey("metrics.started")

    call.state[STARTED] = time.monotonic()  # in tools/pre-execute
    started = call.state.get(STARTED)       # float | None, in tools/result

The registry makes the slot when it starts sealing a call: the
``tools/rewrite-input`` listeners reach it as ``ProposedCall.state``, every
later phase as ``ToolCall.state`` (the same object; an execute wrapper's is
``execution.call.state``). Once the ``tools/result`` observers have seen the
call's final result, whatever the end (success, failure, denial, abort,
unknown tool, invalid arguments, the caller's own cancellation), the
registry drops what the slot holds: reads find nothing, and a write raises
``RuntimeError``. No listener needs a table of calls, and nothing kept for a
call outlives its result.

Keys compare by identity, as ``contextvars.ContextVar``s do: only who holds
a key reads or writes its value, and two keys of one name are two entries
(a plugin mounted twice makes a key per mount). Each call has its own slot:
parallel calls, and a subagent's calls, never share one.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, final, overload

__all__ = ["CallState", "CallStateKey", "drop"]

T = TypeVar("T")
D = TypeVar("D")

_NONE: Any = object()  # no default given


@final
class CallStateKey(Generic[T]):
    """A typed entry of every call's ``CallState``, created and held by its owner.

    ``name`` is for reprs and error messages only; the key itself is the identity.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<CallStateKey {self.name!r}>"


@final
class CallState:
    """One call's values by ``CallStateKey``; empty and closed once its result is final."""

    __slots__ = ("_dropped", "_values")

    def __init__(self) -> None:
        # Made on the first write: most calls never hold anything.
        self._values: dict[CallStateKey[Any], Any] | None = None
        self._dropped = False

    def __getitem__(self, key: CallStateKey[T]) -> T:
        values = self._values
        if values is None:
            raise KeyError(key)
        value: T = values[key]
        return value

    def __setitem__(self, key: CallStateKey[T], value: T) -> None:
        values = self._values
        if values is None:
            if self._dropped:
                raise RuntimeError(
                    f"the call's result is final: its state no longer holds {key.name!r}"
                )
            values = self._values = {}
        values[key] = value

    def __contains__(self, key: object) -> bool:
        values = self._values
        return values is not None and key in values

    def __len__(self) -> int:
        values = self._values
        return 0 if values is None else len(values)

    @overload
    def get(self, key: CallStateKey[T]) -> T | None: ...

    @overload
    def get(self, key: CallStateKey[T], default: D) -> T | D: ...

    def get(self, key: CallStateKey[Any], default: Any = None) -> Any:
        values = self._values
        return default if values is None else values.get(key, default)

    @overload
    def pop(self, key: CallStateKey[T]) -> T: ...

    @overload
    def pop(self, key: CallStateKey[T], default: D) -> T | D: ...

    def pop(self, key: CallStateKey[Any], default: Any = _NONE) -> Any:
        """Remove and return ``key``'s value; ``default`` (or ``KeyError``) when it has none."""
        values = self._values
        if values is not None and key in values:
            return values.pop(key)
        if default is _NONE:
            raise KeyError(key)
        return default

    # One slot per call, as one token: a copy of the call shares it.
    def __copy__(self) -> CallState:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> CallState:
        return self

    def __repr__(self) -> str:
        names = ", ".join(k.name for k in self._values or ())
        return "<CallState dropped>" if self._dropped else f"<CallState [{names}]>"


def drop(state: CallState) -> None:
    """The call's result is final: forget its values and take no more (the registry's)."""
    state._values = None
    state._dropped = True
