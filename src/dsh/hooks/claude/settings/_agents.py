"""Claude Code's custom subagents (``agents/*.md``) and the hooks of agent and skill frontmatter.

An agent file is Markdown under an ``agents/`` folder (``<project>/.claude/agents``, the
user's ``<config>/agents``, a plugin's ``agents/``): YAML frontmatter with ``name`` and
``description`` (both required, as in Claude Code), optionally ``tools`` and
``disallowedTools`` (a comma-separated string or a list), ``model`` (an alias such as
``haiku``, a model name, or ``inherit``), ``permissionMode``, ``isolation`` and ``hooks``;
the body is the agent's system prompt. Project first, then user, then plugins: the first
of a name wins, as for commands.

``hooks:`` has the shape of a settings file's ``hooks`` and is validated the same way
(``_validate``), each diagnostic naming the file and the frontmatter's line. An agent's
hooks run only for that agent's own events, its ``Stop`` as ``SubagentStop`` (2.1.332);
a skill's run from the call after the skill was loaded, ``once: true`` honoured. Both are
project content when found in the project: they run only in a trusted project (the
profile drops them otherwise, ``without_project_hooks``).

Frontmatter is YAML (``yaml.safe_load``, imported only when a file has some), bounded like
every file from outside; a file that cannot be read or parsed is skipped with a diagnostic.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.agent import AgentType, AgentTypes
from dsh.base import FrozenDict, read_bounded
from dsh.hooks.claude.rules._modes import PermissionMode
from dsh.hooks.claude.rules._values import parse_mode
from dsh.hooks.claude.settings._types import Diagnostic, HookDeclaration, HookSource
from dsh.hooks.claude.settings._validate import SuiteContext, validate_hooks

__all__ = [
    "MAX_AGENT_BYTES",
    "PERMISSION_MODES",
    "AgentSet",
    "AgentSourceKind",
    "ClaudeAgent",
    "Frontmatter",
    "frontmatter_hooks",
    "load_agents",
    "read_frontmatter",
]

BUILT_IN_AGENT_NAMES: Final = ("claude", "Explore", "Plan", "statusline-setup")
"""2.1.332's built-in agent types beside ``general-purpose`` (recorded: its refusal of an
unknown type names them, ``tests/fixtures/claude_worktree.json``, ``unknown-subagent-type``):
dsh has no agents of its own for them, so the ``Agent`` tool runs the default agent under
those names, as it did before any type was known."""

AgentSourceKind: TypeAlias = Literal["project", "user", "plugin"]

MAX_AGENT_BYTES: Final = 256 * 1024
"""An agent file larger than this is skipped (its body would flood every request)."""

PERMISSION_MODES: Final = frozenset(
    {"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"}
)

_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
_HOOKS_KEY = re.compile(r"^hooks[ \t]*:", re.MULTILINE)


@final
@frozen(kw_only=True)
class Frontmatter:
    """A file's frontmatter as data (``fields``), the text after it, and the problems found
    (``None`` fields when it is not YAML or not a mapping)."""

    fields: Mapping[str, Any] | None
    body: str
    problem: str | None = None
    line: int | None = None


def read_frontmatter(raw: str) -> Frontmatter:
    """``raw``'s YAML frontmatter; a file without one has empty fields and all of it as body."""
    match = _FRONTMATTER.match(raw)
    if match is None:
        return Frontmatter(fields={}, body=raw)
    import yaml  # only for a file that has frontmatter

    body = raw[match.end() :]
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1  # the frontmatter starts on line 2
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return Frontmatter(fields=None, body=body, problem=f"not YAML: {problem}", line=line)
    if data is None:
        return Frontmatter(fields={}, body=body)
    if not isinstance(data, dict):
        what = type(data).__name__
        return Frontmatter(fields=None, body=body, problem=f"not a mapping ({what})", line=2)
    return Frontmatter(fields=data, body=body)


def hooks_line(raw: str) -> int:
    """The file line of the frontmatter's ``hooks:`` key (1 when it is not found)."""
    match = _HOOKS_KEY.search(raw)
    return raw.count("\n", 0, match.start()) + 1 if match is not None else 1


def frontmatter_hooks(
    hooks: object,
    source: HookSource,
    context: SuiteContext,
    *,
    line: int,
    stop_as: str | None = None,
) -> tuple[Mapping[str, tuple[HookDeclaration, ...]], tuple[Diagnostic, ...]]:
    """A frontmatter ``hooks:`` value's admitted hooks by event (``Stop`` as ``stop_as``
    when given) and its diagnostics, each at ``line`` of the file."""
    if not isinstance(hooks, dict):
        what = type(hooks).__name__
        bad = _problem(source, f"`hooks` must be a map of events, got {what}", line)
        return FrozenDict(), (bad,)
    result = validate_hooks(hooks, source, dataclasses.replace(context, frontmatter=True))
    diagnostics = tuple(dataclasses.replace(d, line=line, column=1) for d in result.diagnostics)
    if result.malformed:
        return FrozenDict(), diagnostics
    by_event: dict[str, list[HookDeclaration]] = {}
    for decl in result.declarations:
        event = stop_as if stop_as is not None and decl.event == "Stop" else decl.event
        if event != decl.event:
            decl = dataclasses.replace(decl, event=event)
        by_event.setdefault(event, []).append(decl)
    return FrozenDict({e: tuple(h) for e, h in by_event.items()}), diagnostics


def _problem(source: HookSource, reason: str, line: int | None) -> Diagnostic:
    return Diagnostic(
        file=source.label,
        plugin=source.plugin,
        event=None,
        group_index=None,
        hook_index=None,
        reason=reason,
        severity="error",
        code="bad-shape",
        line=line,
        column=1 if line is not None else None,
    )


@final
@frozen(kw_only=True)
class ClaudeAgent:
    """One custom agent: its type (what the ``Agent`` tool starts), its file, and its own
    hooks by event (``Stop`` already ``SubagentStop``)."""

    type: AgentType
    path: Path
    source: AgentSourceKind
    hooks: Mapping[str, tuple[HookDeclaration, ...]] = dataclasses.field(default_factory=FrozenDict)
    isolation: str | None = None


@final
@frozen
class AgentSet:
    """A session's custom agents, and the problems of the files that were not admitted."""

    agents: tuple[ClaudeAgent, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    def get(self, name: str | None) -> ClaudeAgent | None:
        return next((a for a in self.agents if a.type.name == name), None)

    def types(self) -> AgentTypes:
        return AgentTypes(tuple(a.type for a in self.agents), labels=BUILT_IN_AGENT_NAMES)

    def permission_modes(self) -> dict[str, PermissionMode]:
        """Each agent's ``permissionMode``, by name (those that declare one)."""
        return {
            a.type.name: mode
            for a in self.agents
            if (mode := parse_mode(a.type.permission_mode)) is not None
        }

    def hook_events(self) -> frozenset[str]:
        """The events some agent has hooks for."""
        return frozenset(e for a in self.agents for e, hooks in a.hooks.items() if hooks)

    def without_project_hooks(self) -> AgentSet:
        """The same agents, the project's without their hooks (an untrusted project)."""
        agents = tuple(
            dataclasses.replace(a, hooks=FrozenDict()) if a.source == "project" else a
            for a in self.agents
        )
        return AgentSet(agents, self.diagnostics)

    def project_hooks(self) -> tuple[ClaudeAgent, ...]:
        """The project's agents that declare hooks."""
        return tuple(a for a in self.agents if a.source == "project" and a.hooks)


def load_agents(
    project: Path,
    *,
    config_dir: Path | None = None,
    home: Path | None = None,
    plugin_roots: Iterable[Path] = (),
) -> AgentSet:
    """Every agent file of ``project``, the user's config directory (``config_dir``, default
    ``<home>/.claude``) and the plugins, in that precedence."""
    if config_dir is None:
        config_dir = (home if home is not None else Path.home()) / ".claude"
    places: list[tuple[Path, AgentSourceKind, Path | None]] = [
        (project / ".claude" / "agents", "project", None),
        (config_dir / "agents", "user", None),
    ]
    places.extend((Path(root) / "agents", "plugin", Path(root)) for root in plugin_roots)
    found: dict[str, ClaudeAgent] = {}
    diagnostics: list[Diagnostic] = []
    for folder, kind, plugin_root in places:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            agent = _read_agent(path, kind, project, plugin_root, diagnostics)
            if agent is not None:
                found.setdefault(agent.type.name, agent)
    return AgentSet(tuple(found.values()), tuple(diagnostics))


def _read_agent(
    path: Path,
    kind: AgentSourceKind,
    project: Path,
    plugin_root: Path | None,
    out: list[Diagnostic],
) -> ClaudeAgent | None:
    source = HookSource(
        kind=kind,
        path=path,
        plugin=plugin_root.name if plugin_root is not None else None,
        plugin_root=plugin_root,
    )
    try:
        raw = read_bounded(path, MAX_AGENT_BYTES, "agent file").decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        out.append(_problem(source, f"agent file skipped: cannot be read ({exc})", None))
        return None
    front = read_frontmatter(raw)
    fields = front.fields
    if fields is None:
        out.append(_problem(source, f"agent file skipped: frontmatter {front.problem}", front.line))
        return None
    name = fields.get("name")
    description = fields.get("description")
    if not isinstance(name, str) or not _NAME.match(name):
        why = "has no `name`" if name is None else f"`name` {name!r} is not an agent name"
        out.append(_problem(source, f"agent file skipped: its frontmatter {why}", 2))
        return None
    if not isinstance(description, str) or not description.strip():
        reason = "agent file skipped: its frontmatter has no `description`"
        out.append(_problem(source, reason, 2))
        return None
    tools = _tool_list(fields.get("tools"), "tools", source, out)
    disallowed = _tool_list(fields.get("disallowedTools"), "disallowedTools", source, out)
    mode = fields.get("permissionMode")
    if mode is not None and mode not in PERMISSION_MODES:
        reason = f"`permissionMode` {mode!r} is not a permission mode; the session's is used"
        out.append(dataclasses.replace(_problem(source, reason, 2), severity="warning"))
        mode = None
    model = fields.get("model")
    hooks: Mapping[str, tuple[HookDeclaration, ...]] = FrozenDict()
    if fields.get("hooks") is not None:
        context = SuiteContext(project_dir=project, plugin_root=plugin_root)
        hooks, problems = frontmatter_hooks(
            fields["hooks"], source, context, line=hooks_line(raw), stop_as="SubagentStop"
        )
        out.extend(problems)
    agent_type = AgentType(
        name=name,
        description=description.strip(),
        tools=tools,
        disallowed_tools=disallowed or (),
        model=str(model) if isinstance(model, str | int | float) else None,
        permission_mode=mode if isinstance(mode, str) else None,
        prompt=front.body.strip() or None,
        source=kind,
        path=path,
        isolation=isolation if isinstance(isolation := fields.get("isolation"), str) else None,
    )
    return ClaudeAgent(
        type=agent_type,
        path=path,
        source=kind,
        hooks=hooks,
        isolation=agent_type.isolation,
    )


def _tool_list(
    value: object, key: str, source: HookSource, out: list[Diagnostic]
) -> tuple[str, ...] | None:
    """``tools: Bash, Read`` or a YAML list, as names; ``None`` when absent."""
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(t.strip() for t in value.split(",") if t.strip())
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return tuple(t.strip() for t in value if t.strip())
    reason = f"`{key}` must be a comma-separated string or a list of tool names; it is ignored"
    out.append(dataclasses.replace(_problem(source, reason, 2), severity="warning"))
    return None
