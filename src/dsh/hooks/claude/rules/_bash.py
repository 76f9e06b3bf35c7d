"""Bash commands as Claude Code's permission rules see them: split into simple commands.

A compound command is split at ``&&``, ``||``, ``;``, ``|``, ``|&``, ``&`` and
newlines outside quotes; the commands inside ``$(...)`` and backticks are
checked as commands of their own. Each part loses its leading ``VAR=value``
assignments and its redirections (kept apart: an output redirection writes a
file). ``split_command`` returns ``None`` for a command it cannot parse
(unbalanced quotes or parentheses): the callers then fail closed for
permissions (ask) and open for ``if`` (the hook runs), as Claude Code does.
"""

from __future__ import annotations

import re
import shlex
from typing import Final, final

from dsh._frozen import frozen

__all__ = ["SimpleCommand", "has_expansion", "split_command"]

MAX_COMMAND_LENGTH: Final = 100_000
"""A longer command is not analysed (unparseable: ask / run the hook)."""

_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# A redirection operator with its optional descriptor (`2>`, `&>`, `>>`, `2>&`).
_REDIRECT_OP: Final = re.compile(r"(?P<fd>[0-9]+|&)?(?P<op>>>|>\||>&|>|<<<|<<|<&|<>|<)")
_MARK: Final = "\ue000"
_EXPANSION: Final = re.compile(r"\$\(|`|\$[A-Za-z_{]")
_NULL_TARGETS: Final = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})


@final
@frozen
class SimpleCommand:
    """One simple command of a compound: its words (assignments and redirections removed),
    the files its output redirections write, and its normalized text (the words joined)."""

    words: tuple[str, ...]
    writes: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return " ".join(self.words)

    @property
    def name(self) -> str:
        return self.words[0] if self.words else ""


def has_expansion(command: str) -> bool:
    """Whether ``command`` holds ``$(...)``, backticks or a ``$VAR``: its words are not known."""
    return _EXPANSION.search(command) is not None


def split_command(command: str) -> tuple[SimpleCommand, ...] | None:
    """The simple commands of ``command``, substitutions' commands after their own; ``None``
    when it cannot be parsed."""
    if len(command) > MAX_COMMAND_LENGTH:
        return None
    parts = _split(command, 0)
    if parts is None:
        return None
    out: list[SimpleCommand] = []
    for part in parts:
        simple = _simple(part)
        if simple is None:
            return None
        if simple.words or simple.writes:
            out.append(simple)
    return tuple(out)


def _split(command: str, depth: int) -> list[str] | None:
    """``command`` cut at its top-level operators, nested substitutions appended after."""
    if depth > 20:
        return None
    parts: list[str] = []
    nested: list[str] = []
    current: list[str] = []
    i, n = 0, len(command)
    quote: str | None = None
    while i < n:
        ch = command[i]
        if quote == "'":
            current.append(ch)
            if ch == "'":
                quote = None
            i += 1
            continue
        if ch == "\\" and i + 1 < n:
            current.append(command[i : i + 2])
            i += 2
            continue
        substitution = _substitution(command, i)
        if substitution is not None:
            body_start, end = substitution
            if end < 0:
                return None
            inner = _split(command[body_start:end], depth + 1)
            if inner is None:
                return None
            nested.extend(inner)
            current.append(command[i : end + 1])
            i = end + 1
            continue
        if quote == '"':
            current.append(ch)
            if ch == '"':
                quote = None
            i += 1
            continue
        if ch in "'\"":
            quote = ch
            current.append(ch)
            i += 1
            continue
        op = _operator(command, i)
        if op:
            parts.append("".join(current))
            current = []
            i += op
            continue
        current.append(ch)
        i += 1
    if quote is not None:
        return None
    parts.append("".join(current))
    return [p for p in (*parts, *nested) if p.strip()]


def _substitution(command: str, i: int) -> tuple[int, int] | None:
    """A ``$(...)`` or backtick substitution opening at ``i``: where its body starts and the
    index of its closing character (-1: it never closes); ``None``: none opens here."""
    if command.startswith("$(", i) and not command.startswith("$((", i):
        end = _closing(command, i + 2)
        return i + 2, -1 if end is None else end
    if command[i] == "`":
        return i + 1, command.find("`", i + 1)
    return None


def _operator(command: str, i: int) -> int:
    """The length of the control operator at ``i`` (0: none)."""
    two = command[i : i + 2]
    if two in ("&&", "||", "|&", ";;"):
        return 2
    ch = command[i]
    if ch in ";\n|":
        return 1
    if ch == "&":
        before = command[i - 1] if i > 0 else ""
        after = command[i + 1] if i + 1 < len(command) else ""
        # `2>&1`, `&>file`, `>&2` are redirections, not the background operator.
        if before in "<>" or after == ">":
            return 0
        return 1
    return 0


def _closing(command: str, start: int) -> int | None:
    """The index of the ``)`` closing a ``$(`` whose body starts at ``start``."""
    depth = 1
    quote: str | None = None
    i = start
    while i < len(command):
        ch = command[i]
        if quote is not None:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch == "\\":
            i += 2
            continue
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _mark_redirections(part: str) -> str:
    """``part`` with each unquoted redirection operator set apart as one marked word."""
    out: list[str] = []
    quote: str | None = None
    i, n = 0, len(part)
    while i < n:
        ch = part[i]
        if quote is not None:
            out.append(ch)
            if ch == "\\" and quote == '"' and i + 1 < n:
                out.append(part[i + 1])
                i += 1
            elif ch == quote:
                quote = None
            i += 1
            continue
        if ch == "\\" and i + 1 < n:
            out.append(part[i : i + 2])
            i += 2
            continue
        if ch in "'\"":
            quote = ch
            out.append(ch)
            i += 1
            continue
        m = _REDIRECT_OP.match(part, i) if ch in "<>&0123456789" else None
        if m is not None and (i == 0 or part[i - 1] in " \t" or not m["fd"]):
            out.append(f" {_MARK}{m['op']} ")
            i = m.end()
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _simple(part: str) -> SimpleCommand | None:
    try:
        lexer = shlex.shlex(_mark_redirections(part), posix=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        tokens = list(lexer)
    except ValueError:
        return None
    words: list[str] = []
    writes: list[str] = []
    i = 0
    # Leading assignments (`FOO=1 cmd`) are stripped, as Claude Code strips them.
    while i < len(tokens) and _ASSIGNMENT.match(tokens[i]):
        i += 1
    while i < len(tokens):
        token = tokens[i]
        if not token.startswith(_MARK):
            words.append(token)
            i += 1
            continue
        op = token[len(_MARK) :]
        target = ""
        if not op.endswith("&") and i + 1 < len(tokens) and not tokens[i + 1].startswith(_MARK):
            i += 1
            target = tokens[i]
        elif op.endswith("&") and i + 1 < len(tokens) and tokens[i + 1] not in ("-",):
            # `>&2` duplicates a descriptor; `>& file` writes a file.
            i += 1
            target = "" if tokens[i].isdigit() else tokens[i]
        if ">" in op and target and target not in _NULL_TARGETS:
            writes.append(target)
        i += 1
    return SimpleCommand(tuple(words), tuple(writes))
