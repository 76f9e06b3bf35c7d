"""Bounding a regular expression from a file dsh did not write, before compiling it.

A hook matcher is a pattern from someone else's settings; Python's ``re``
backtracks, so a pattern is refused when it is too long, nests its groups too
deep, repeats too often, or nests a repeat inside an unbounded repeat
(``(a+)+``, the shape that takes exponential time). A NUL or a lone
surrogate is refused anywhere. Shared by the Claude Code and Codex matchers.
"""

from __future__ import annotations

import functools
import importlib
import re
from typing import Any, Final

__all__ = [
    "MAX_GROUP_DEPTH",
    "MAX_PATTERN_LENGTH",
    "MAX_REPEAT_COUNT",
    "regex_problem",
    "unsafe_char_problem",
]

MAX_PATTERN_LENGTH: Final = 2000
"""The longest regex matcher accepted; hook matchers are tool names and short patterns."""
MAX_GROUP_DEPTH: Final = 40
MAX_REPEAT_COUNT: Final = 1000

# The parser behind `re.compile`, used to inspect a pattern's shape; it has no public name or stubs.
_SRE_PARSE: Any = importlib.import_module("re._parser")


@functools.cache
def _unsafe_char() -> re.Pattern[str]:
    return re.compile("[\x00\ud800-\udfff]")


def unsafe_char_problem(text: str) -> str | None:
    """Why ``text`` cannot be used (a NUL or a lone surrogate in it), or ``None``."""
    if text.isascii() and "\x00" not in text:
        return None  # the common case, without compiling the pattern (~0.2 ms a process)
    m = _unsafe_char().search(text)
    if m is None:
        return None
    what = "a NUL" if m.group() == "\x00" else f"a lone surrogate U+{ord(m.group()):04X}"
    return f"{what} at character {m.start()}"


def _open_depth(pattern: str) -> int:
    depth = deepest = 0
    escaped = in_class = False
    for ch in pattern:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth = max(0, depth - 1)
    return deepest


def _shape_problem(items: Any, in_unbounded: bool) -> str | None:
    # Iterative over sibling lists, recursive only as deep as the (bounded) group nesting.
    for op, arg in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = arg
            if max(low, 0 if high == _SRE_PARSE.MAXREPEAT else high) > MAX_REPEAT_COUNT:
                return f"a repeat count over {MAX_REPEAT_COUNT}"
            unbounded = high == _SRE_PARSE.MAXREPEAT or high > 1
            if in_unbounded and unbounded:
                return "a repeat nested in a repeat (it can take exponential time)"
            found = _shape_problem(body, in_unbounded or high == _SRE_PARSE.MAXREPEAT)
        elif name == "SUBPATTERN":
            found = _shape_problem(arg[-1], in_unbounded)
        elif name == "BRANCH":
            found = next(
                (p for b in arg[1] if (p := _shape_problem(b, in_unbounded)) is not None), None
            )
        elif name in ("ASSERT", "ASSERT_NOT"):
            found = _shape_problem(arg[1], in_unbounded)
        else:
            found = None
        if found is not None:
            return found
    return None


def regex_problem(pattern: str) -> str | None:
    """Why ``pattern`` is refused before compiling (too big, too deep, exponential), or ``None``."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"it is {len(pattern)} characters long (at most {MAX_PATTERN_LENGTH})"
    if _open_depth(pattern) > MAX_GROUP_DEPTH:
        return f"its groups nest deeper than {MAX_GROUP_DEPTH}"
    try:
        parsed = _SRE_PARSE.parse(pattern)
    except (re.error, OverflowError, RecursionError, ValueError) as exc:
        return f"it does not compile: {exc}"
    return _shape_problem(parsed, False)
