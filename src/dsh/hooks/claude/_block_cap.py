"""``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP``: how many Stop/SubagentStop blocks in a row 2.1.332 obeys.

2.1.332 reads the variable as an integer (its ``H.int()``: ``1e1`` and ``1,000`` count, else
JavaScript's ``parseInt``, so ``3abc`` is 3 and ``abc`` is unset), default 8; above 0 it is
the number of consecutive blocks that continue the turn (the next one ends it with the
notice of ``block_cap_reached``), 0 or below means no cap. dsh carries it as the agent's
``continuation_cap`` (``ClaudeCodeMount.agent_options``), so the loop's own cap follows it;
"no cap" is the step limit (``max_steps``), the loop's own bound.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

__all__ = ["BLOCK_CAP_VARIABLE", "stop_block_cap"]

BLOCK_CAP_VARIABLE: Final = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"

# 2.1.332's two whole-value forms (an exponent; thousands with one separator), each only
# up to 32 characters, then parseInt's leading integer.
_EXPONENT: Final = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)[eE][+-]?\d+\Z", re.ASCII)
_GROUPED: Final = re.compile(r"[+-]?\d{1,3}([_,\u00a0\u202f ])\d{3}(?:\1\d{3})*\Z", re.ASCII)
_SEPARATORS: Final = re.compile(r"[_,\u00a0\u202f ]")
_LEADING_INT: Final = re.compile(r"[+-]?\d+", re.ASCII)


def stop_block_cap(env: Mapping[str, str]) -> int | None:
    """The cap the environment sets (``None``: unset or unreadable, so 2.1.332's default 8;
    0 or below: no cap)."""
    raw = env.get(BLOCK_CAP_VARIABLE)
    return None if raw is None else _js_int(raw.strip())


def _js_int(text: str) -> int | None:
    """2.1.332's integer reading of ``text`` (``None`` where it gives NaN or infinity)."""
    if len(text) <= 32:
        if _EXPONENT.match(text):
            value = float(text)  # infinity, past a double's range: not an integer
            return int(value) if value.is_integer() else None
        if _GROUPED.match(text):
            return int(_SEPARATORS.sub("", text))
    leading = _LEADING_INT.match(text)
    if leading is None:
        return None
    value = int(leading.group())
    # parseInt of a very long digit string is a finite double until 1.8e308.
    return value if abs(value) < 10**308 else None
