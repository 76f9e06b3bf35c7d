"""Claude Code's matcher and ``if`` rule syntax, parsed once at load time.

A matcher is ``*``, empty or absent (everything); a plain-name list such as
``Edit|Write`` or ``Edit, Write`` (exact names); or else an unanchored regular
expression tested anywhere in the value (reference §1.4). Claude Code compiles
JavaScript regexes; Python's ``re`` agrees on the patterns matchers use, and
JavaScript's named groups (``(?<n>…)``, ``\\k<n>``) are translated.
"""

from __future__ import annotations

import re
from typing import Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import DshError

__all__ = ["IfRule", "Matcher", "MatcherError", "MatcherKind"]

MatcherKind: TypeAlias = Literal["all", "exact", "regex"]

_EXACT: Final = re.compile(r"[A-Za-z0-9_\- ,|]*")
_EXACT_NARROW: Final = re.compile(r"[A-Za-z0-9_|]*")
_SEPARATORS: Final = re.compile(r"[|,]")
_JS_NAMED_GROUP: Final = re.compile(r"\(\?<(?=[A-Za-z_$])")
_JS_BACKREF: Final = re.compile(r"\\k<([A-Za-z_$][\w$]*)>")


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
        exact = _EXACT_NARROW if narrow else _EXACT
        if exact.fullmatch(declared):
            parts = declared.split("|") if narrow else _SEPARATORS.split(declared)
            names = frozenset(p.strip() for p in parts if p.strip())
            return cls(declared=declared, kind="exact", names=names)
        try:
            pattern = re.compile(_js_to_python(declared))
        except re.error as exc:
            raise MatcherError(
                f"matcher {declared!r} is not a plain-name list, so it is a regular expression,"
                f" and it does not compile: {exc}"
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


_RULE: Final = re.compile(r"\s*(?P<tool>[A-Za-z0-9_.*:\-]+)\s*(?:\((?P<pattern>.*)\))?\s*", re.S)
# `Bash(a) && Edit(b)` parses as one rule whose pattern is `a) && Edit(b`: refuse that shape.
_JOINED: Final = re.compile(r"\)\s*(?:&&|\|\||,|;)\s*[A-Za-z0-9_.*:\-]+\s*\(")


@final
@frozen(kw_only=True)
class IfRule:
    """A hook's ``if`` filter: one permission rule, ``Tool`` or ``Tool(pattern)``.

    Claude Code evaluates it only on tool events, with permission-rule semantics
    (Bash subcommands, path globs); ``pattern`` is ``None`` for a bare tool name.
    """

    declared: str
    tool: str
    pattern: str | None

    @classmethod
    def parse(cls, declared: str) -> IfRule:
        """Parse one rule; raises ``MatcherError`` for anything else (lists, ``&&``, ``||``)."""
        m = _RULE.fullmatch(declared)
        if m is None or (m["pattern"] is not None and _JOINED.search(m["pattern"])):
            raise MatcherError(
                f"`if` must be one permission rule such as `Bash(git *)` or `Edit(*.ts)`,"
                f" got {declared!r} (no lists, `&&` or `||`)"
            )
        return cls(declared=declared, tool=m["tool"], pattern=m["pattern"])
