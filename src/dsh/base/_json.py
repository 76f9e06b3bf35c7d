"""JSON values and their deep-frozen form: the one freezer, thawing, ``NotJSONError``.

Sealed tool arguments, logged events and hook payloads are all JSON. A frozen
value is made of ``FrozenDict`` (a dict whose mutators raise), tuples and
plain scalars; it serializes with the plain ``json`` module, unchanged.

There is one freezer. ``freeze_json`` walks by exact class first (the common
case: a caller's dicts, lists and scalars, or what ``json.loads`` gave) and
turns a scalar subclass (an enum member) into its plain value; only when that
walk meets something else does the checked walk run, to accept a non-dict
``Mapping`` or to name the first offending place in a ``NotJSONError``.
``freeze_loaded`` is the same walk for values ``json.loads`` produced, which
need no checking.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NoReturn, TypeAlias

from dsh.base._errors import DshError

__all__ = [
    "FrozenDict",
    "FrozenJSON",
    "JSONValue",
    "NotJSONError",
    "freeze_json",
    "freeze_loaded",
    "json_kind",
    "thaw_json",
]

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
FrozenJSON: TypeAlias = "bool | int | float | str | tuple[FrozenJSON, ...] | FrozenDict | None"


class NotJSONError(DshError, TypeError):
    """A value is not plain JSON; ``path`` says where (``$.a[2].b``)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class FrozenDict(dict[str, Any]):
    """A dict that refuses mutation, so a listener cannot change sealed data."""

    __slots__ = ()

    def _refuse(self, *_: object, **__: object) -> NoReturn:
        raise TypeError("this mapping is frozen: sealed data cannot be changed")

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items(), key=lambda kv: kv[0])))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


def freeze_json(value: object, path: str = "$") -> Any:
    """Deep-copy ``value`` into its frozen form, checking that it is plain JSON.

    Raises ``NotJSONError`` naming the first offending place: a non-string key,
    NaN or infinity, bytes, a set, a cycle, or any other non-JSON object.
    ``RecursionError`` when it is nested deeper than the interpreter can walk.
    """
    try:
        return _freeze(value)
    except (_Refused, RecursionError):
        # A cycle ends the exact-class walk in RecursionError; the checked walk names it.
        return _freeze_checked(value, path, set())


def freeze_loaded(value: Any) -> Any:
    """The frozen form of a value ``json.loads`` produced (NaN, which it accepts, kept)."""
    try:
        return _freeze(value)
    except _Refused:
        return _freeze_checked(value, "$", set(), allow_nan=True)


class _Refused(Exception):
    """The exact-class walk met something it does not take: the checked walk decides."""


def _freeze(value: Any) -> Any:
    cls = value.__class__
    if cls is str or cls is int or cls is bool or value is None:
        return value
    if cls is dict or cls is FrozenDict:
        out = {}
        for k, v in value.items():
            if k.__class__ is not str:
                raise _Refused
            out[k] = _freeze(v)
        return FrozenDict(out)
    if cls is list or cls is tuple:
        return tuple([_freeze(v) for v in value])
    if cls is float:
        if value - value != 0.0:  # NaN or an infinity
            raise _Refused
        return value
    if isinstance(value, str | int | float):
        return _freeze(_plain(value))
    raise _Refused


def _plain(value: str | int | float) -> str | int | float:
    # A subclass (an enum member) freezes to its plain value.
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    return float(value)


def _freeze_checked(value: object, path: str, active: set[int], *, allow_nan: bool = False) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str | int | float):
        if isinstance(value, float) and not allow_nan and not math.isfinite(value):
            raise NotJSONError(path, f"{value!r} is not a JSON number")
        return _plain(value)
    if isinstance(value, Mapping):
        key = id(value)
        if key in active:
            raise NotJSONError(path, "contains a reference cycle")
        active.add(key)
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise NotJSONError(path, f"key {k!r} is not a string")
            out[str.__str__(k)] = _freeze_checked(v, f"{path}.{k}", active, allow_nan=allow_nan)
        active.discard(key)
        return FrozenDict(out)
    if isinstance(value, list | tuple):
        key = id(value)
        if key in active:
            raise NotJSONError(path, "contains a reference cycle")
        active.add(key)
        items = tuple(
            _freeze_checked(v, f"{path}[{i}]", active, allow_nan=allow_nan)
            for i, v in enumerate(value)
        )
        active.discard(key)
        return items
    raise NotJSONError(path, f"{type(value).__name__} is not JSON")


def thaw_json(value: object) -> Any:
    """A mutable deep copy of a (frozen or plain) JSON value: dicts and lists."""
    if isinstance(value, dict):
        return {k: thaw_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw_json(v) for v in value]
    return value


def json_kind(value: object) -> str:
    """What JSON calls ``value``'s type, with its article, for error messages ("an array")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
