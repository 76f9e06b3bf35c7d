"""2.1.332's words for a tool input that fails its schema: ``InputValidationError``.

Claude Code 2.1.332 answers a call whose input its schema refuses with
``<tool_use_error>InputValidationError: Bash failed due to the following issue:`` and one line
per issue: a required parameter missing, an unexpected parameter (where the schema allows no
others), a parameter of the wrong type (named as JavaScript names them); missing ones first,
then unexpected, then mistyped, at most 20 (``tests/fixtures/claude_tool_texts.json``, made by
``benchmarks/record_claude_tool_texts.py``). Its other issues (a bound, a pattern, an enum) it
words from its own schemas' messages, so for input with any of those dsh keeps its own wording.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["input_validation_text"]

_MAX_LISTED = 20
"""2.1.332 lists at most 20 issues (21 when there are exactly 21), then how many more."""

_EXPECTED = {"integer": "number"}
"""JSON schema type names where 2.1.332's (zod's) differ."""


def input_validation_text(name: str, schema: Any, arguments: Mapping[str, Any]) -> str | None:
    """The model-visible text 2.1.332 gives for ``arguments`` to tool ``name``, or ``None``
    when the schema is not a plain object schema, the arguments have an issue this module
    does not word as 2.1.332 does, or none of the three kinds."""
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        return None
    properties = schema.get("properties") or {}
    if not isinstance(properties, Mapping):
        return None
    required = [k for k in schema.get("required") or () if isinstance(k, str)]
    missing = [k for k in properties if k in required and k not in arguments]
    missing += [k for k in required if k not in properties and k not in arguments]
    unexpected = (
        []
        if schema.get("additionalProperties", True) is not False
        else [k for k in arguments if k not in properties]
    )
    mistyped: list[tuple[str, str, str]] = []
    for key, sub in properties.items():
        if key not in arguments or not isinstance(sub, Mapping):
            continue
        expected = sub.get("type")
        if not isinstance(expected, str) or expected not in _JS_CHECKS:
            return None
        value = arguments[key]
        if expected == "integer" and _is_number(value) and not _is_integer(value):
            return None  # zod's own wording of a fraction, not a type
        if not _JS_CHECKS[expected](value):
            mistyped.append((key, _EXPECTED.get(expected, expected), _received(value)))
    total = len(missing) + len(unexpected) + len(mistyped)
    if total == 0:
        return None
    room = total if total == _MAX_LISTED + 1 else _MAX_LISTED
    shown_missing = missing[:room]
    shown_types = mistyped[: room - len(shown_missing)]
    shown_unexpected = unexpected[: room - len(shown_missing) - len(shown_types)]
    lines = [f"The required parameter `{k}` is missing" for k in shown_missing]
    lines += [f"An unexpected parameter `{k}` was provided" for k in shown_unexpected]
    lines += [
        f"The parameter `{k}` type is expected as `{e}` but provided as `{r}`"
        for k, e, r in shown_types
    ]
    more = total - len(lines)
    if more > 0:
        lines.append(f"({more} more parameter{'s' if more != 1 else ''} not listed)")
    issues = "issues" if len(lines) > 1 else "issue"
    return (
        f"<tool_use_error>InputValidationError: {name} failed due to the following {issues}:\n"
        + "\n".join(lines)
        + "</tool_use_error>"
    )


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _is_integer(value: Any) -> bool:
    return type(value) is int or (type(value) is float and value.is_integer())


_JS_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": _is_number,
    "integer": _is_integer,
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, Mapping),
    "array": lambda v: isinstance(v, (list, tuple)),
}


def _received(value: Any) -> str:
    """The type 2.1.332 says it was given (zod's names)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"
