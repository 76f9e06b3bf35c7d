"""Claude Code's custom commands and skills: where they are found, and how their text expands.

A custom command is a Markdown file under a ``commands/`` folder (``~/.claude/commands``,
``<project>/.claude/commands``, a plugin's ``commands/``); ``sub/name.md`` is the command
``sub:name``. A skill is a folder holding ``SKILL.md`` under a ``skills/`` folder of the same
places, named by its frontmatter ``name`` (else the folder). Both expand the same way:
frontmatter dropped, ``$ARGUMENTS`` / ``$ARGUMENTS[N]`` / ``$N`` (0-based) filled in (with no
placeholder the arguments are appended as ``ARGUMENTS: …``), and each shell command (an
exclamation mark before a backticked command) run and replaced by its output
(``runtime._command_events``). A file that cannot be read, or whose name
is not a command name, is skipped with a diagnostic line, never a crash.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import FrozenDict, read_bounded
from dsh.hooks.claude.settings._types import HookDeclaration, HookSource

__all__ = [
    "MAX_COMMAND_BYTES",
    "MAX_DESCRIPTION_CHARS",
    "MAX_SHELL_COMMANDS",
    "CommandKind",
    "CommandSet",
    "CommandSource",
    "CustomCommand",
    "ShellSpan",
    "expand_arguments",
    "load_commands",
    "parse_invocation",
    "shell_spans",
]

CommandSource: TypeAlias = Literal["userSettings", "projectSettings", "plugin"]
"""Claude Code's ``command_source`` vocabulary for where a command file was found."""

CommandKind: TypeAlias = Literal["command", "skill"]

MAX_COMMAND_BYTES: Final = 256 * 1024
"""A command or skill file larger than this is skipped (it would flood the prompt)."""

MAX_SHELL_COMMANDS: Final = 32
"""The shell commands one expansion runs; any further one is left unrun, saying so."""

MAX_DESCRIPTION_CHARS: Final = 250
"""A description is cut to this in the skill list the model gets."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)
_INVOCATION = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?:\s+(.*))?\Z", re.DOTALL)
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)[ \t]*:[ \t]*(.*)$")
_SHELL = re.compile(r"!`([^`\n]+)`")
_INDEXED = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$(\d+)(?![0-9])")


@final
@frozen(kw_only=True)
class CustomCommand:
    """One command or skill: ``body`` is its text without frontmatter, ``description`` its
    frontmatter ``description`` (else its first line), ``base_dir`` a skill's folder."""

    name: str
    kind: CommandKind
    source: CommandSource
    path: Path
    body: str
    description: str
    base_dir: Path
    model_invocable: bool = True
    hooks: Mapping[str, tuple[HookDeclaration, ...]] = field(default_factory=FrozenDict)
    """A skill's frontmatter hooks by event (``_agents.frontmatter_hooks``)."""


@final
@frozen
class ShellSpan:
    """One shell command of a text (``!`` before a backticked command): where, and what."""

    start: int
    end: int
    command: str


@final
@frozen
class CommandSet:
    """The commands and skills a session can use, by name (first found wins), and the
    lines about files that were skipped."""

    commands: tuple[CustomCommand, ...] = ()
    diagnostics: tuple[str, ...] = ()

    def get(self, name: str) -> CustomCommand | None:
        return next((c for c in self.commands if c.name == name), None)

    def skill(self, name: str) -> CustomCommand | None:
        """What the Skill tool loads as ``name``: a skill, or a command (2.1.332 offers both)."""
        found = self.get(name.removeprefix("/"))
        return found if found is not None and found.model_invocable else None

    def without_project_hooks(self) -> CommandSet:
        """The same commands, the project's skills without their hooks (an untrusted project)."""
        commands = tuple(
            dataclasses.replace(c, hooks=FrozenDict()) if c.source == "projectSettings" else c
            for c in self.commands
        )
        return CommandSet(commands, self.diagnostics)

    def project_hooks(self) -> tuple[CustomCommand, ...]:
        """The project's skills that declare hooks."""
        return tuple(c for c in self.commands if c.source == "projectSettings" and c.hooks)

    @property
    def invocable(self) -> tuple[CustomCommand, ...]:
        return tuple(c for c in self.commands if c.model_invocable)

    def listing(self) -> str | None:
        """The skill list Claude Code gives the model (``- name: description`` lines)."""
        rows = [f"- {c.name}: {c.description}" for c in self.invocable]
        if not rows:
            return None
        head = "The following skills are available for use with the Skill tool:"
        return head + "\n\n" + "\n".join(rows)


def load_commands(
    project: Path,
    *,
    home: Path | None = None,
    plugin_roots: Iterable[Path] = (),
    config_dir: Path | None = None,
) -> CommandSet:
    """Every command and skill of ``project``, the user's config directory (``config_dir``,
    default ``<home>/.claude``, ``home`` defaulting to the user's) and the plugins: project
    first, then user, then plugins (Claude Code's precedence for a shared name)."""
    if config_dir is None:
        config_dir = (home if home is not None else Path.home()) / ".claude"
    places: list[tuple[Path, CommandSource]] = [
        (project / ".claude", "projectSettings"),
        (config_dir, "userSettings"),
    ]
    places.extend((Path(root), "plugin") for root in plugin_roots)
    found: list[CustomCommand] = []
    notes: list[str] = []
    for base, source in places:
        found.extend(_commands_in(base / "commands", source, notes))
        found.extend(_skills_in(base / "skills", source, notes))
    unique: dict[str, CustomCommand] = {}
    for command in found:
        unique.setdefault(command.name, command)
    return CommandSet(tuple(unique.values()), tuple(notes))


def _commands_in(folder: Path, source: CommandSource, notes: list[str]) -> list[CustomCommand]:
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.rglob("*.md")):
        name = ":".join(path.relative_to(folder).with_suffix("").parts)
        command = _read(path, name, "command", source, path.parent, notes)
        if command is not None:
            out.append(command)
    return out


def _skills_in(folder: Path, source: CommandSource, notes: list[str]) -> list[CustomCommand]:
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*/SKILL.md")):
        skill = _read(path, path.parent.name, "skill", source, path.parent, notes)
        if skill is not None:
            out.append(skill)
    return out


def _read(
    path: Path,
    name: str,
    kind: CommandKind,
    source: CommandSource,
    base_dir: Path,
    notes: list[str],
) -> CustomCommand | None:
    try:
        if path.stat().st_size > MAX_COMMAND_BYTES:
            notes.append(f"{path}: skipped: larger than {MAX_COMMAND_BYTES} bytes")
            return None
        raw = read_bounded(path, MAX_COMMAND_BYTES, "command file").decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        notes.append(f"{path}: skipped: cannot be read ({exc.__class__.__name__})")
        return None
    fields, body = _split(raw)
    name = fields.get("name", name) if kind == "skill" else name
    if not _NAME.match(name):
        notes.append(f"{path}: skipped: {name!r} is not a command name")
        return None
    first = next((line.strip() for line in body.splitlines() if line.strip()), name)
    hooks = _skill_hooks(raw, path, source, base_dir, notes) if kind == "skill" else FrozenDict()
    return CustomCommand(
        name=name,
        kind=kind,
        source=source,
        path=path,
        body=body,
        description=_cut(fields.get("description") or first),
        base_dir=base_dir,
        model_invocable=fields.get("disable-model-invocation", "").lower() != "true",
        hooks=hooks,
    )


_HOOK_SOURCE: Final[Mapping[CommandSource, Literal["project", "user", "plugin"]]] = {
    "projectSettings": "project",
    "userSettings": "user",
    "plugin": "plugin",
}


def _skill_hooks(
    raw: str, path: Path, source: CommandSource, base_dir: Path, notes: list[str]
) -> Mapping[str, tuple[HookDeclaration, ...]]:
    """A skill's frontmatter ``hooks:`` (YAML, read only when the key is there); each problem
    a diagnostic line naming the file and line. Their ``CLAUDE_PLUGIN_ROOT`` is the skill's
    folder, as 2.1.332 sets it."""
    match = _FRONTMATTER.match(raw)
    if match is None or not re.search(r"^hooks[ \t]*:", match.group(1), re.MULTILINE):
        return FrozenDict()
    from dsh.hooks.claude.settings._agents import frontmatter_hooks, hooks_line, read_frontmatter
    from dsh.hooks.claude.settings._validate import SuiteContext

    front = read_frontmatter(raw)
    if front.fields is None:
        notes.append(f"{path}: line {front.line}: hooks left out: frontmatter {front.problem}")
        return FrozenDict()
    hook_source = HookSource(kind=_HOOK_SOURCE[source], path=path)
    project = base_dir.parent.parent.parent if source == "projectSettings" else base_dir
    context = SuiteContext(project_dir=project, plugin_root=base_dir)
    hooks, problems = frontmatter_hooks(
        front.fields.get("hooks"), hook_source, context, line=hooks_line(raw)
    )
    notes.extend(d.describe() for d in problems)
    return hooks


def _cut(text: str) -> str:
    return text if len(text) <= MAX_DESCRIPTION_CHARS else text[: MAX_DESCRIPTION_CHARS - 1] + "…"


def _split(raw: str) -> tuple[dict[str, str], str]:
    """The frontmatter's ``key: value`` lines (values unquoted) and the text after it."""
    match = _FRONTMATTER.match(raw)
    if match is None:
        return {}, raw
    fields: dict[str, str] = {}
    for line in match.group(1).splitlines():
        key = _KEY.match(line)
        if key is not None:
            fields[key.group(1)] = key.group(2).strip().strip("\"'")
    return fields, raw[match.end() :]


def parse_invocation(prompt: str) -> tuple[str, str] | None:
    """``/name args`` as ``(name, args)``; ``None`` for a prompt that is not a slash command."""
    match = _INVOCATION.match(prompt)
    if match is None:
        return None
    return match.group(1), (match.group(2) or "").strip()


def expand_arguments(body: str, args: str) -> str:
    """``body`` with the arguments filled in as Claude Code fills them."""
    words: Sequence[str] = args.split()
    used = "$ARGUMENTS" in body or _INDEXED.search(body) is not None

    def indexed(match: re.Match[str]) -> str:
        n = int(match.group(1) or match.group(2))
        return words[n] if n < len(words) else ""

    text = _INDEXED.sub(indexed, body).replace("$ARGUMENTS", args)
    if not used and args:
        text = f"{text.rstrip()}\n\nARGUMENTS: {args}"
    return text


def shell_spans(text: str) -> tuple[ShellSpan, ...]:
    """Each shell command of ``text``, in order."""
    return tuple(ShellSpan(m.start(), m.end(), m.group(1).strip()) for m in _SHELL.finditer(text))
