"""JSON values, and their deep-frozen form.

Sealed tool arguments, logged events and hook payloads are all JSON. A frozen
value is made of ``FrozenDict`` (a dict whose mutators raise), tuples and
scalars; it serializes with the plain ``json`` module, unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NoReturn, TypeAlias

__all__ = [
    "FrozenDict",
    "FrozenJSON",
    "JSONValue",
    "NotJSONError",
    "freeze_json",
    "thaw_json",
]

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
FrozenJSON: TypeAlias = "bool | int | float | str | tuple[FrozenJSON, ...] | FrozenDict | None"


class NotJSONError(TypeError):
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
    """
    return _freeze(value, path, set())


def _freeze(value: object, path: str, active: set[int]) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotJSONError(path, f"{value!r} is not a JSON number")
        return value
    if isinstance(value, Mapping):
        key = id(value)
        if key in active:
            raise NotJSONError(path, "contains a reference cycle")
        active.add(key)
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise NotJSONError(path, f"key {k!r} is not a string")
            out[k] = _freeze(v, f"{path}.{k}", active)
        active.discard(key)
        return FrozenDict(out)
    if isinstance(value, (list, tuple)):
        key = id(value)
        if key in active:
            raise NotJSONError(path, "contains a reference cycle")
        active.add(key)
        items = tuple(_freeze(v, f"{path}[{i}]", active) for i, v in enumerate(value))
        active.discard(key)
        return items
    raise NotJSONError(path, f"{type(value).__name__} is not JSON")


def thaw_json(value: object) -> Any:
    """A mutable deep copy of a (frozen or plain) JSON value: dicts and lists."""
    if isinstance(value, dict):
        return {k: thaw_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw_json(v) for v in value]
    return value
