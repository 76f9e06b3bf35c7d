"""Codex's matcher rules (``events/common.rs``): exact name lists, else an unanchored regex.

A missing matcher, ``""`` or ``"*"`` matches everything. A matcher made only of
``[A-Za-z0-9_|]`` is an exact match against a ``|``-separated list (``Bash``
does not match ``BashOutput``). Anything else is a regular expression tested
anywhere in the value (Codex compiles Rust ``regex``; Python's ``re`` agrees on
the patterns matchers use). A regex is bounded before it is compiled
(``dsh.hook_protocol.regex_problem``): it comes from a file dsh did not write.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import DshError
from dsh.hook_protocol import regex_problem
from dsh.hook_protocol._regex import unsafe_char_problem

__all__ = ["CodexMatcher", "CodexMatcherError", "CodexMatcherKind"]

CodexMatcherKind: TypeAlias = Literal["all", "exact", "regex"]


# Compiled at the first matcher that is not "" or "*" (UserPromptSubmit's, Stop's never need it).
@functools.cache
def _exact() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z0-9_|]+")


class CodexMatcherError(DshError, ValueError):
    """A matcher Codex would skip its group for (``invalid matcher …``); the message says why."""


@final
@frozen(kw_only=True)
class CodexMatcher:
    """A parsed matcher; ``declared`` is the text as written (``None``: absent)."""

    declared: str | None
    kind: CodexMatcherKind
    names: frozenset[str] = frozenset()
    pattern: re.Pattern[str] | None = None

    @classmethod
    def parse(cls, declared: str | None) -> CodexMatcher:
        """Classify and compile ``declared``; raises ``CodexMatcherError`` for a bad regex."""
        if declared is None or declared in ("", "*"):
            return cls(declared=declared, kind="all")
        bad = unsafe_char_problem(declared)
        if bad is not None:
            raise CodexMatcherError(f"invalid matcher {_shown(declared)}: {bad}")
        if _exact().fullmatch(declared):
            names = frozenset(p for p in declared.split("|") if p)
            return cls(declared=declared, kind="exact", names=names)
        problem = regex_problem(declared)
        if problem is not None:
            raise CodexMatcherError(f"invalid matcher {_shown(declared)}: {problem}")
        try:
            pattern = re.compile(declared)
        except (re.error, OverflowError, RecursionError, ValueError) as exc:
            raise CodexMatcherError(f"invalid matcher {_shown(declared)}: {exc}") from None
        return cls(declared=declared, kind="regex", pattern=pattern)

    @classmethod
    def everything(cls, declared: str | None = None) -> CodexMatcher:
        """The matcher of an event that ignores matchers (UserPromptSubmit, Stop, Interrupt)."""
        return cls(declared=declared, kind="all")

    def matches(self, values: Iterable[str]) -> bool:
        """Whether the group runs for a value known by any of ``values`` (a name, aliases)."""
        if self.kind == "all":
            return True
        for value in values:
            if self.kind == "exact" and value in self.names:
                return True
            if self.pattern is not None and self.pattern.search(value) is not None:
                return True
        return False


def _shown(text: str, limit: int = 80) -> str:
    cut = text if len(text) <= limit else text[:limit] + "…"
    return ascii(cut)
