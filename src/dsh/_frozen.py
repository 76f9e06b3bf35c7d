"""``frozen``: how every dsh value, event and decision type is declared.

``@frozen`` is ``@dataclass(frozen=True, slots=True)`` (``@frozen(kw_only=True)``
adds ``kw_only``) with the same equality, hash and repr ``dataclass``
generates, computed from the fields in the same way, but shared by every class
instead of compiled for each one. CPython 3.11 compiles each generated method
of each dataclass separately at import; for the ~90 value types on ``dsh
run``'s start-up path, ``__eq__``, ``__hash__`` and ``__repr__`` alone cost
about 16 ms of every run (measured with ``python -X importtime``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, TypeVar, cast, dataclass_transform, overload

__all__ = ["frozen"]

_C = TypeVar("_C", bound=type)


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names: tuple[str, ...] = self.__class__.__frozen_compare__
    # As dataclass: tuples, so an identical NaN compares equal.
    return tuple([getattr(self, n) for n in names]) == tuple([getattr(other, n) for n in names])


def _hash(self: Any) -> int:
    names: tuple[str, ...] = self.__class__.__frozen_hash__
    return hash(tuple([getattr(self, n) for n in names]))


def _repr(self: Any) -> str:
    names: tuple[str, ...] = self.__class__.__frozen_repr__
    inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
    return f"{self.__class__.__qualname__}({inner})"


def _finish(cls: _C, body: dict[str, Any]) -> _C:
    own = fields(cls)
    cls.__frozen_compare__ = tuple(f.name for f in own if f.compare)  # type: ignore[attr-defined]
    cls.__frozen_hash__ = tuple(  # type: ignore[attr-defined]
        f.name for f in own if (f.compare if f.hash is None else f.hash)
    )
    cls.__frozen_repr__ = tuple(f.name for f in own if f.repr)  # type: ignore[attr-defined]
    # What the class body defines wins, as with dataclass. A body `__eq__` alone
    # leaves `__hash__ = None` in the body; dataclass still adds a field hash then.
    if "__eq__" not in body:
        cls.__eq__ = _eq  # type: ignore[assignment]
    explicit_hash = body.get("__hash__", MISSING)
    if explicit_hash is MISSING or (explicit_hash is None and "__eq__" in body):
        cls.__hash__ = _hash  # type: ignore[assignment]
    if "__repr__" not in body:
        cls.__repr__ = _repr  # type: ignore[assignment]
    return cls


@overload
def frozen(cls: _C, /) -> _C: ...


@overload
def frozen(*, kw_only: bool = False) -> Callable[[_C], _C]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def frozen(cls: _C | None = None, /, *, kw_only: bool = False) -> _C | Callable[[_C], _C]:
    """Declare a frozen, slotted dataclass with field-wise ``==``, ``hash`` and ``repr``."""

    def wrap(c: _C) -> _C:
        body = dict(c.__dict__)
        made: type[Any] = dataclass(frozen=True, slots=True, kw_only=kw_only, eq=False, repr=False)(
            c
        )
        return _finish(cast(_C, made), body)

    return wrap if cls is None else wrap(cls)
