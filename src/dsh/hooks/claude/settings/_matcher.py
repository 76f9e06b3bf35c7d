"""Claude Code's matcher and ``if`` rule syntax, parsed once at load time.

A matcher is ``*``, empty or absent (everything); a plain-name list such as
``Edit|Write`` or ``Edit, Write`` (exact names); or else an unanchored regular
expression tested anywhere in the value (reference §1.4). Claude Code compiles
JavaScript regexes; Python's ``re`` agrees on the patterns matchers use, and
JavaScript's named groups (``(?<n>…)``, ``\\k<n>``) are translated.

A matcher comes from files dsh did not write, so a regex is bounded before it
is compiled: its length, its group nesting and its repeat counts, and a
repeat nested in an unbounded repeat (``(a+)+``, the shape that backtracks
exponentially) is refused; a NUL or a lone surrogate is refused anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import DshError
from dsh.hook_protocol import regex_problem
from dsh.hook_protocol._regex import (
    MAX_GROUP_DEPTH,
    MAX_PATTERN_LENGTH,
    MAX_REPEAT_COUNT,
    unsafe_char_problem,
)
from dsh.hooks.claude.rules._bash import has_expansion, split_command
from dsh.hooks.claude.rules._grammar import PermissionRule, RuleError, parse_rule

__all__ = [
    "MAX_GROUP_DEPTH",
    "MAX_PATTERN_LENGTH",
    "MAX_REPEAT_COUNT",
    "IfRule",
    "Matcher",
    "MatcherError",
    "MatcherKind",
    "unsafe_char_problem",
]

MatcherKind: TypeAlias = Literal["all", "exact", "regex"]

_EXACT: Final = re.compile(r"[A-Za-z0-9_\- ,|]*")
_EXACT_NARROW: Final = re.compile(r"[A-Za-z0-9_|]*")
_SEPARATORS: Final = re.compile(r"[|,]")
_JS_NAMED_GROUP: Final = re.compile(r"\(\?<(?=[A-Za-z_$])")
_JS_BACKREF: Final = re.compile(r"\\k<([A-Za-z_$][\w$]*)>")
_UNSAFE_CHAR: Final = re.compile("[\x00\ud800-\udfff]")


class MatcherError(DshError, ValueError):
    """A matcher or ``if`` rule that cannot be used; the message says why."""


def _js_to_python(pattern: str) -> str:
    pattern = _JS_NAMED_GROUP.sub("(?P<", pattern)
    return _JS_BACKREF.sub(r"(?P=\1)", pattern)


@final
@frozen(kw_only=True)
class Matcher:
    """A parsed matcher: ``kind`` says how ``matches`` tests a value.

    ``declared`` is the text as written (``None`` when absent); ``names`` holds
    the exact names of an ``exact`` matcher; ``pattern`` the compiled regex of a
    ``regex`` one.
    """

    declared: str | None
    kind: MatcherKind
    names: frozenset[str] = frozenset()
    pattern: re.Pattern[str] | None = None

    @classmethod
    def parse(cls, declared: str | None, *, narrow: bool = False) -> Matcher:
        """Classify and compile ``declared``; raises ``MatcherError`` for a bad regex.

        ``narrow`` is the exact-name alphabet of ``FileChanged`` and ``StopFailure``
        (letters, digits, ``_`` and ``|``; only ``|`` separates).
        """
        if declared is None or declared in ("", "*"):
            return cls(declared=declared, kind="all")
        bad = unsafe_char_problem(declared)
        if bad is not None:
            raise MatcherError(f"matcher {_shown(declared)} has {bad}")
        exact = _EXACT_NARROW if narrow else _EXACT
        if exact.fullmatch(declared):
            parts = declared.split("|") if narrow else _SEPARATORS.split(declared)
            names = frozenset(p.strip() for p in parts if p.strip())
            return cls(declared=declared, kind="exact", names=names)
        python = _js_to_python(declared)
        problem = regex_problem(python)
        if problem is not None:
            raise MatcherError(
                f"matcher {_shown(declared)} is not a plain-name list, so it is a regular"
                f" expression, and it is refused: {problem}"
            )
        try:
            pattern = re.compile(python)
        except (re.error, OverflowError, RecursionError, ValueError) as exc:
            raise MatcherError(
                f"matcher {_shown(declared)} is not a plain-name list, so it is a regular"
                f" expression, and it does not compile: {exc}"
            ) from None
        return cls(declared=declared, kind="regex", pattern=pattern)

    @classmethod
    def everything(cls, declared: str | None = None) -> Matcher:
        """The matcher of an event without matcher support (the declared one is ignored)."""
        return cls(declared=declared, kind="all")

    def matches(self, value: str | None) -> bool:
        """Whether a hook of this group runs for ``value`` (the event's matcher field)."""
        if self.kind == "all":
            return True
        if value is None:
            return False
        if self.kind == "exact":
            return value in self.names
        assert self.pattern is not None
        return self.pattern.search(value) is not None

    def describe(self) -> str:
        """``"Edit|Write" (exact)`` for reports."""
        if self.kind == "all":
            return "all" if self.declared is None else f"{self.declared!r} (all)"
        return f"{self.declared!r} ({self.kind})"


def _shown(text: str, limit: int = 80) -> str:
    """``text`` quoted for a diagnostic, cut to ``limit`` characters (a matcher may be huge)."""
    cut = text if len(text) <= limit else text[:limit] + "…"
    return _UNSAFE_CHAR.sub(lambda m: f"\\u{ord(m.group()):04x}", repr(cut))


@final
@frozen(kw_only=True)
class IfRule:
    """A hook's ``if`` filter: one permission rule, ``Tool`` or ``Tool(pattern)``.

    Claude Code evaluates it only on tool events, with permission-rule semantics
    (``rules._grammar``: Bash subcommands, path globs); ``pattern`` is ``None`` for a bare
    tool name, ``rule`` the parsed rule.
    """

    declared: str
    tool: str
    pattern: str | None
    rule: PermissionRule | None = None

    @classmethod
    def parse(cls, declared: str, *, root: Path | None = None) -> IfRule:
        """Parse one rule; raises ``MatcherError`` for anything else (lists, ``&&``, ``||``).
        ``root`` is what a ``/path`` pattern is relative to (the settings file's root)."""
        try:
            rule = parse_rule(declared, root=root)
        except RuleError as exc:
            raise MatcherError(
                f"`if` must be one permission rule such as `Bash(git *)` or `Edit(*.ts)`: {exc}"
            ) from exc
        return cls(declared=declared, tool=rule.tool, pattern=rule.specifier, rule=rule)

    def admits(
        self, tool_name: str, tool_input: Mapping[str, Any], *, cwd: Path, home: Path | None = None
    ) -> bool:
        """Whether the hook runs for this call. A Bash command that cannot be parsed, or whose
        words a shell would compute (``$()``, backticks, ``$VAR``) against a pattern that names
        more than the command, runs the hook (Claude Code fails open here)."""
        rule = self.rule
        if rule is None:
            return True
        if not rule.applies_to(tool_name):
            return False
        command = tool_input.get("command")
        if rule.kind in ("prefix", "wildcard", "exact") and isinstance(command, str):
            if split_command(command) is None:
                return True
            if rule.needs_words() and has_expansion(command):
                return True
        return rule.matches(tool_name, tool_input, cwd=cwd, home=home)
