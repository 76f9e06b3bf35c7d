"""Hostile JSON: a loader that refuses what dsh cannot carry, and a value made safe to log.

A hook or a model may answer anything ``json.loads`` accepts and more: NaN and
infinities (``1e999``), nesting deep enough to exhaust the interpreter's
stack, integers past the interpreter's digit limit, lone surrogates, bytes
that are not UTF-8. ``load_json`` turns every such answer into one
``UnsafeJSONError`` (a ``ValueError``), so a decoder's ``except ValueError``
contains it. ``loggable_json`` is the other side: any value becomes plain JSON
that the session reader loads back (what cannot be carried is replaced by a
string saying what it was).
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, Final, Literal

from dsh.base._errors import DshError

__all__ = ["JSON_MAX_DEPTH", "UnsafeJSONError", "load_json", "loggable_json"]

JSON_MAX_DEPTH: Final = 200
"""How deep an object or array may nest: far below the interpreter's stack, far above any answer."""

_SURROGATE = re.compile("[\ud800-\udfff]")
# Python refuses to print (and parse) integers longer than this; stay below it.
_MAX_INT_BITS: Final = 4000 * 3


class UnsafeJSONError(DshError, ValueError):
    """Text that is not JSON dsh can carry; the message says why."""


def _refuse_constant(name: str) -> Any:
    raise UnsafeJSONError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise UnsafeJSONError(f"{text[:40]} is out of range for a JSON number")
    return value


def load_json(
    data: str | bytes,
    *,
    max_depth: int = JSON_MAX_DEPTH,
    lone_surrogates: Literal["replace", "refuse"] = "replace",
) -> Any:
    """The JSON value of ``data``; ``UnsafeJSONError`` for anything dsh cannot carry.

    Refused: invalid JSON or UTF-8, ``NaN``/``Infinity`` and numbers that
    overflow to one, integers past the interpreter's digit limit, nesting deeper
    than ``max_depth``. Lone surrogates in strings become U+FFFD (or, with
    ``lone_surrogates="refuse"``, are refused). Duplicate keys keep the last
    value, as JavaScript's ``JSON.parse`` does. A syntax error's
    ``json.JSONDecodeError`` is the ``__cause__``, for its line and column.
    """
    if isinstance(data, bytes | bytearray):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UnsafeJSONError(f"not UTF-8: {exc}") from None
    try:
        value = json.loads(data, parse_constant=_refuse_constant, parse_float=_finite_float)
    except UnsafeJSONError:
        raise
    except RecursionError:
        raise UnsafeJSONError(f"nested deeper than {max_depth}") from None
    except json.JSONDecodeError as exc:
        raise UnsafeJSONError(str(exc)) from exc
    except ValueError as exc:
        raise UnsafeJSONError(str(exc)) from None
    return _checked(value, max_depth, refuse_surrogates=lone_surrogates == "refuse")


def _checked(value: Any, max_depth: int, *, refuse_surrogates: bool = False) -> Any:
    # Iterative, so a deep value is measured without using the stack it would exhaust.
    fixed = False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > max_depth:
                raise UnsafeJSONError(f"nested deeper than {max_depth}")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
            if isinstance(item, dict):
                fixed = fixed or any(_SURROGATE.search(k) for k in item)
        elif isinstance(item, str) and _SURROGATE.search(item):
            fixed = True
        if fixed and refuse_surrogates:
            raise UnsafeJSONError("a string holds a lone surrogate (not valid Unicode)")
    return _without_surrogates(value) if fixed else value


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_SURROGATE.sub("\ufffd", k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    return value


def loggable_json(value: object, *, max_depth: int = JSON_MAX_DEPTH) -> Any:
    """``value`` as plain JSON that encodes to valid UTF-8 and loads back; never raises.

    A non-finite float becomes ``"NaN"``/``"Infinity"``/``"-Infinity"``, an
    integer too long to print a note of its size, nesting past ``max_depth`` a
    note, a lone surrogate U+FFFD, a non-string key its ``str``, anything else
    its ``repr``. A value with none of these comes back equal.
    """
    limit = min(max_depth, sys.getrecursionlimit() // 4)
    return _loggable(value, limit)


def _loggable(value: object, depth: int) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if value.bit_length() > _MAX_INT_BITS:
            return f"<integer of {value.bit_length()} bits>"
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", str.__str__(value))
    if isinstance(value, dict | list | tuple):
        if depth <= 0:
            return "<nested too deep to log>"
        if isinstance(value, dict):
            return {
                _loggable(k if isinstance(k, str) else str(k), 0): _loggable(v, depth - 1)
                for k, v in value.items()
            }
        return [_loggable(v, depth - 1) for v in value]
    return _SURROGATE.sub("\ufffd", repr(value))
