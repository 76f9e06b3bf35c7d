"""Claude Code's permission rule grammar, parsed once into a typed rule, and its matcher.

A rule is ``Tool`` or ``Tool(specifier)``; ``parse_rule`` returns a
``PermissionRule`` or raises ``RuleError`` naming what is wrong. Specifiers:

- Bash (and PowerShell): ``npm run test:*`` (a prefix: the command, or the
  command followed by a space and more), a pattern with ``*`` wildcards
  (``git * main``; a trailing `` *`` also matches the bare command;
  ``\\*`` is a literal star), or an exact command. A compound command is
  split as ``rules._bash`` splits it; see ``PermissionRule.matches``.
- File tools: ``Read(...)`` covers the read tools (Read, Glob, Grep, LS,
  NotebookRead), ``Edit(...)`` / ``Write(...)`` the edit tools (Edit, Write,
  MultiEdit, NotebookEdit), with gitignore-style paths: ``//abs`` from the
  filesystem root, ``~/p`` from the home directory, ``/p`` from the settings
  file's root (the directory holding its ``.claude``), ``p`` or ``./p`` from the
  current directory; a pattern without a slash matches a name at any depth;
  ``**`` any number of directories, ``*`` and ``?`` within one.
- ``WebFetch(domain:example.com)`` (``*.example.com`` for subdomains).
- MCP: ``mcp__server`` or ``mcp__server__*`` (every tool of the server),
  ``mcp__server__tool``; no specifier.
- ``Agent(type)`` (and ``Task(type)``): the subagent type; ``Skill(name)``.
"""

from __future__ import annotations

import fnmatch
import os.path
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any, Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import DshError
from dsh.base._real_path import real_path_or_self
from dsh.hooks.claude.rules._bash import split_command

__all__ = [
    "EDIT_TOOLS",
    "READ_TOOLS",
    "PermissionRule",
    "RuleError",
    "RuleKind",
    "parse_rule",
    "rule_root",
    "tool_path",
]

RuleKind: TypeAlias = Literal["tool", "prefix", "wildcard", "exact", "path", "domain", "name"]

READ_TOOLS: Final = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
EDIT_TOOLS: Final = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_SHELLS: Final = frozenset({"Bash", "PowerShell"})
_NAMED: Final = {"Agent": "subagent_type", "Task": "subagent_type", "Skill": "skill"}
_TOOL_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")
MAX_RULE_LENGTH: Final = 4096
# `Bash(a) && Edit(b)` reads as one rule whose specifier is `a) && Edit(b`: refuse that shape.
_JOINED: Final = re.compile(r"\)\s*(?:&&|\|\||,|;)\s*[A-Za-z0-9_.*:\-]+\s*\(")


class RuleError(DshError, ValueError):
    """A permission rule that cannot be used; the message says why."""


@final
@frozen(kw_only=True)
class PermissionRule:
    """One parsed rule: ``tool`` and what its specifier says (``kind`` and ``value``).

    ``root`` is the directory a ``/path`` pattern is relative to (the settings
    file's root); ``declared`` the rule as written.
    """

    declared: str
    tool: str
    kind: RuleKind
    value: str | None = None
    root: Path | None = None

    @property
    def specifier(self) -> str | None:
        """The text between the parentheses (``None`` for a bare tool name)."""
        if "(" not in self.declared:
            return None
        return self.declared[self.declared.index("(") + 1 : self.declared.rindex(")")]

    def applies_to(self, tool_name: str) -> bool:
        """Whether the rule is about ``tool_name`` at all (its specifier aside)."""
        if self.tool.startswith("mcp__"):
            return _mcp_applies(self.tool, tool_name)
        if self.tool == "Read":
            return tool_name in READ_TOOLS
        if self.tool in ("Edit", "Write"):
            return tool_name in EDIT_TOOLS
        return tool_name == self.tool

    def matches(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        *,
        cwd: Path,
        home: Path | None = None,
        mode: Literal["any", "all"] = "any",
    ) -> bool:
        """Whether the call matches. For a compound Bash command, ``any``: some simple
        command matches (deny, ask, ``if``); ``all``: every one does (allow). An
        unparseable command matches nothing."""
        if not self.applies_to(tool_name):
            return False
        if self.kind in ("tool", "name") and self.value is None:
            return True
        if self.kind in ("prefix", "wildcard", "exact"):
            command = tool_input.get("command")
            if not isinstance(command, str):
                return False
            parts = split_command(command)
            if not parts:
                return parts is not None and self.command_matches(command.strip())
            found = [self.command_matches(p.text) for p in parts]
            return any(found) if mode == "any" else all(found)
        if self.kind == "path":
            path = tool_path(tool_name, tool_input, cwd)
            if path is None:
                return False
            # The path as written and where it really is (links followed): ``any`` (deny,
            # ask, ``if``) matches either, ``all`` (allow) needs both.
            raw = tool_path(tool_name, tool_input, cwd, normalize=False) or path
            real = real_path_or_self(raw)
            found = [self.path_matches(path, cwd=cwd, home=home)]
            if real != path:
                found.append(self.path_matches(real, cwd=cwd, home=home, real=True))
            return any(found) if mode == "any" else all(found)
        if self.kind == "domain":
            return _domain_matches(self.value or "", tool_input.get("url"))
        if self.kind == "name":
            field = _NAMED.get(self.tool)
            value = tool_input.get(field) if field is not None else None
            return isinstance(value, str) and fnmatch.fnmatchcase(value, self.value or "")
        return False

    def needs_words(self) -> bool:
        """A Bash specifier that says more than the command's name (``git push *``): such an
        ``if`` runs its hook anyway for a command with ``$()``, backticks or ``$VAR``."""
        return self.kind in ("prefix", "wildcard", "exact") and " " in (self.value or "").strip()

    def command_matches(self, command: str) -> bool:
        """One simple command (normalized text) against a Bash specifier."""
        value = self.value or ""
        if self.kind == "prefix":
            return command == value or command.startswith(value + " ")
        if self.kind == "exact":
            return command == value
        return _wildcard(value).fullmatch(command) is not None

    def path_matches(
        self, path: Path, *, cwd: Path, home: Path | None = None, real: bool = False
    ) -> bool:
        """An absolute ``path`` against a gitignore-style file pattern; ``real``: ``path`` has
        its links followed, and so may the pattern's base (a project under a linked directory)."""
        pattern = self.value or ""
        if pattern.startswith("//"):
            base, rest = Path("/"), pattern[2:]
        elif pattern == "~" or pattern.startswith("~/"):
            base, rest = (home or Path.home()), pattern[2:]
        elif pattern.startswith("/"):
            base, rest = (self.root or cwd), pattern[1:]
        else:
            base, rest = cwd, pattern.removeprefix("./")
        rest = rest.rstrip("/") or "**"
        if "/" not in rest and not pattern.startswith(("/", "~", "./")):
            rest = f"**/{rest}"  # gitignore: a name without a slash matches at any depth
        bases = {base, real_path_or_self(base)} if real else {base}
        for b in bases:
            try:
                relative = PurePosixPath(path.as_posix()).relative_to(b.as_posix())
            except ValueError:
                continue
            if _glob(rest).fullmatch(relative.as_posix()) is not None:
                return True
        return False


def rule_root(settings_file: Path | None, fallback: Path) -> Path:
    """What a ``/path`` rule written in ``settings_file`` is relative to: the directory
    holding the file's ``.claude`` (the project for project and local settings), else the
    file's own directory; ``fallback`` (the project) for inline JSON and plugin hooks."""
    if settings_file is None:
        return fallback
    parent = settings_file.parent
    return parent.parent if parent.name == ".claude" else parent


def parse_rule(text: object, *, root: Path | None = None) -> PermissionRule:
    """Parse one rule as written in settings or an ``if``; ``RuleError`` says what is wrong."""
    if not isinstance(text, str):
        raise RuleError(f"a permission rule is a string, not {type(text).__name__}")
    declared = text.strip()
    if not declared:
        raise RuleError("an empty permission rule")
    if len(declared) > MAX_RULE_LENGTH:
        raise RuleError(f"a permission rule over {MAX_RULE_LENGTH} characters")
    if "\x00" in declared:
        raise RuleError("a NUL in a permission rule")
    if "(" not in declared and ")" not in declared:
        return _bare(declared, root)
    open_at = declared.find("(")
    if open_at <= 0 or not declared.endswith(")"):
        raise RuleError(
            f"{declared!r} is not `Tool` or `Tool(specifier)` (the specifier closes with `)`)"
        )
    tool = declared[:open_at].strip()
    spec = declared[open_at + 1 : -1]
    if _JOINED.search(spec):
        raise RuleError(f"{declared!r} is more than one rule (no lists, `&&` or `||`)")
    _check_tool(tool, declared)
    if tool.startswith("mcp__"):
        raise RuleError(f"{declared!r}: an MCP rule takes no specifier (`mcp__server__tool`)")
    if not spec.strip():
        raise RuleError(f"{declared!r}: an empty specifier (write `{tool}` for every call)")
    if spec.strip() == "*" or (spec.strip() == "**" and tool not in _SHELLS):
        return PermissionRule(declared=declared, tool=tool, kind="tool", root=root)
    if tool in _SHELLS:
        return _shell(declared, tool, spec.strip(), root)
    if tool in ("Read", "Edit", "Write") or tool in READ_TOOLS | EDIT_TOOLS:
        return PermissionRule(declared=declared, tool=tool, kind="path", value=spec, root=root)
    if tool == "WebFetch":
        if not spec.startswith("domain:") or not spec[len("domain:") :].strip():
            raise RuleError(f"{declared!r}: WebFetch rules name a domain, `WebFetch(domain:host)`")
        domain = spec[len("domain:") :].strip().lower()
        return PermissionRule(declared=declared, tool=tool, kind="domain", value=domain)
    if tool in _NAMED:
        return PermissionRule(declared=declared, tool=tool, kind="name", value=spec.strip())
    raise RuleError(
        f"{declared!r}: dsh knows no specifier for {tool} (only Bash, PowerShell, the file"
        f" tools, WebFetch, Agent and Skill take one); write `{tool}` for every call"
    )


def _bare(declared: str, root: Path | None) -> PermissionRule:
    _check_tool(declared, declared)
    return PermissionRule(declared=declared, tool=declared, kind="tool", root=root)


def _check_tool(tool: str, declared: str) -> None:
    name = tool[:-3] if tool.startswith("mcp__") and tool.endswith("__*") else tool
    if not _TOOL_NAME.fullmatch(name):
        raise RuleError(f"{declared!r}: {tool!r} is not a tool name (letters, digits, `_` and `-`)")


def _shell(declared: str, tool: str, spec: str, root: Path | None) -> PermissionRule:
    if spec.endswith(":*"):
        prefix = spec[:-2].rstrip()
        if not prefix:
            raise RuleError(f"{declared!r}: `:*` needs a command before it (`npm run test:*`)")
        if ":*" in prefix:
            raise RuleError(f"{declared!r}: `:*` may only end the specifier")
        return PermissionRule(declared=declared, tool=tool, kind="prefix", value=prefix, root=root)
    if ":*" in spec:
        raise RuleError(f"{declared!r}: `:*` may only end the specifier (`npm run test:*`)")
    kind: RuleKind = "wildcard" if "*" in spec.replace("\\*", "") else "exact"
    value = spec if kind == "wildcard" else spec.replace("\\*", "*")
    return PermissionRule(declared=declared, tool=tool, kind=kind, value=value, root=root)


def _mcp_applies(rule_tool: str, tool_name: str) -> bool:
    if tool_name == rule_tool:
        return True
    rule_tool = rule_tool.removesuffix("__*")
    # `mcp__server` covers every tool of the server: `mcp__server__<tool>`.
    return rule_tool.count("__") == 1 and tool_name.startswith(rule_tool + "__")


def _domain_matches(domain: str, url: object) -> bool:
    if not isinstance(url, str):
        return False
    m = re.match(r"[A-Za-z][A-Za-z0-9+.\-]*://(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)", url)
    if m is None:
        return False
    host = m.group(1).lower().rstrip(".")
    if domain.startswith("*."):
        return host.endswith(domain[1:]) and host != domain[2:]
    return host == domain


def _wildcard(value: str) -> re.Pattern[str]:
    """A Bash wildcard pattern: ``*`` any text, ``\\*`` a star; a trailing `` *`` optional."""
    optional_tail = value.endswith(" *") and not value.endswith("\\ *")
    body = value[:-2] if optional_tail else value
    out: list[str] = []
    i = 0
    while i < len(body):
        if body.startswith("\\*", i):
            out.append(re.escape("*"))
            i += 2
            continue
        out.append(".*" if body[i] == "*" else re.escape(body[i]))
        i += 1
    tail = "(?: .*)?" if optional_tail else ""
    return re.compile("".join(out) + tail, re.S)


def _glob(pattern: str) -> re.Pattern[str]:
    """A gitignore glob over a relative POSIX path: ``**`` any directories."""
    out: list[str] = []
    parts = pattern.split("/")
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]*/)*")
            continue
        out.append(_segment(part))
        if not last:
            out.append("/")
    return re.compile("".join(out), re.S)


def _segment(part: str) -> str:
    out: list[str] = []
    for ch in part:
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def tool_path(
    tool_name: str, tool_input: Mapping[str, Any], cwd: Path, *, normalize: bool = True
) -> Path | None:
    """The absolute path a file tool's call touches (``file_path``, ``notebook_path``,
    ``path``), normalized unless ``normalize`` is false (``..`` after a link is the link's
    parent, as the kernel reads it); ``None`` when it names none."""
    for key in ("file_path", "notebook_path", "path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value and "\x00" not in value:
            return _absolute(value, cwd, normalize=normalize)
    if tool_name in ("Glob", "Grep", "LS"):
        return cwd
    return None


def _absolute(value: str, cwd: Path, *, normalize: bool = True) -> Path:
    path = Path(value).expanduser()
    if not path.is_absolute():
        path = cwd / path
    return Path(os.path.normpath(path)) if normalize else path
