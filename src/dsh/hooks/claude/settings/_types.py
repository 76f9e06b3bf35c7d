"""The catalog's values: hook sources, admitted declarations, diagnostics, the catalog itself."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import FrozenDict
from dsh.hook_protocol import HookCommand, HookOrigin, hook_environment
from dsh.hooks.claude.rules._values import PermissionSettings
from dsh.hooks.claude.settings._matcher import IfRule, Matcher

if TYPE_CHECKING:
    from dsh.base._sandbox import SandboxPolicy
    from dsh.base._worktree import WorktreeSettings
    from dsh.hook_protocol import HttpTarget, InProcessHook  # annotations: loaded when used

__all__ = [
    "Catalog",
    "Diagnostic",
    "DiagnosticCode",
    "HandlerKind",
    "HookDeclaration",
    "HookSource",
    "McpToolTarget",
    "OnFailureMode",
    "Severity",
    "SourceEntry",
    "SourceKind",
    "SourceStatus",
]

SourceKind: TypeAlias = Literal["user", "project", "local", "cli", "managed", "plugin"]
"""Where a hook file comes from: ``cli`` is ``--settings FILE``."""

SourceStatus: TypeAlias = Literal["loaded", "skipped", "disabled"]
"""``skipped``: its suite is malformed; ``disabled``: a setting or policy turned it off."""

Severity: TypeAlias = Literal["error", "warning", "info"]
"""``error``: malformed, the whole suite is skipped. ``warning``: something declared does not
run (or a field is ignored) here, the rest of the suite runs. ``info``: a note; nothing behaves
differently from Claude Code."""

DiagnosticCode: TypeAlias = Literal[
    "unreadable",
    "json-syntax",
    "bad-shape",
    "unknown-event",
    "unsupported-event",
    "bad-matcher",
    "ignored-matcher",
    "bad-if",
    "if-never-runs",
    "bad-rule",
    "missing-type",
    "unknown-type",
    "type-not-allowed",
    "unsupported-type",
    "missing-command",
    "bad-timeout",
    "bad-field",
    "unknown-field",
    "unsupported-field",
    "ignored-field",
    "suite-skipped",
    "source-disabled",
    "policy",
]

OnFailureMode: TypeAlias = Literal["continue", "block"]

HandlerKind: TypeAlias = Literal["command", "http", "prompt", "agent", "mcp_tool"]
"""The handler types this host runs."""


@final
@frozen(kw_only=True)
class McpToolTarget:
    """What an ``mcp_tool`` handler calls: ``server``'s ``tool`` with ``input`` (frozen JSON,
    its ``${path}`` filled from the hook input at each firing)."""

    server: str
    tool: str
    input: Mapping[str, object] = field(default_factory=FrozenDict)


@final
@frozen(kw_only=True)
class HookSource:
    """One file hooks were read from (or the inline JSON of ``--settings``).

    ``plugin`` is the plugin's id (``name@marketplace`` when installed from a
    marketplace, else its name) and ``plugin_root`` its directory, for plugin files.
    """

    kind: SourceKind
    path: Path | None
    plugin: str | None = None
    plugin_root: Path | None = None

    @property
    def label(self) -> str:
        """The file name used in diagnostics."""
        return str(self.path) if self.path is not None else "--settings (inline JSON)"

    @property
    def is_settings_file(self) -> bool:
        """Settings files share one dedup scope and raise the SessionEnd budget; plugins don't."""
        return self.kind != "plugin"


@final
@frozen(kw_only=True)
class SourceEntry:
    """A hook source found by discovery, what became of it, and how many hooks it gave."""

    source: HookSource
    status: SourceStatus
    admitted: int = 0
    note: str | None = None


@final
@frozen(kw_only=True)
class Diagnostic:
    """A declaration (or file) that is not admitted as written, and why.

    ``event``, ``group_index`` and ``hook_index`` locate it (``None`` for a
    problem with the file or the event as a whole); ``line`` and ``column`` are
    set for JSON syntax errors.
    """

    file: str
    event: str | None
    group_index: int | None
    hook_index: int | None
    reason: str
    severity: Severity
    code: DiagnosticCode
    plugin: str | None = None
    line: int | None = None
    column: int | None = None

    @property
    def location(self) -> str | None:
        """``PreToolUse[0][1]``, ``line 3, column 5``, or ``None`` for the file as a whole."""
        parts: list[str] = []
        if self.line is not None:
            parts.append(f"line {self.line}, column {self.column}")
        if self.event is not None:
            loc = self.event
            if self.group_index is not None:
                loc += f"[{self.group_index}]"
                if self.hook_index is not None:
                    loc += f"[{self.hook_index}]"
            parts.append(loc)
        return ": ".join(parts) if parts else None

    @property
    def where(self) -> str:
        """``/p/.claude/settings.json: PreToolUse[0][1]`` (the file, then ``location``)."""
        file = self.file if self.plugin is None else f"{self.file} (plugin {self.plugin})"
        return file if self.location is None else f"{file}: {self.location}"

    def describe(self) -> str:
        """One line for reports: ``error: <where>: <reason>``."""
        return f"{self.severity}: {self.where}: {self.reason}"


@final
@frozen(kw_only=True)
class HookDeclaration:
    """One admitted command hook, ready for the runtime.

    In the exec form, ``command`` and ``args`` have the ``${CLAUDE_PROJECT_DIR}``,
    ``${CLAUDE_PLUGIN_ROOT}`` and ``${CLAUDE_PLUGIN_DATA}`` placeholders
    substituted; a shell ``command`` keeps them for the shell to expand from ``env``
    (nothing a project controls becomes command text); ``declared_command`` is as
    written, for messages that quote it;
    ``argv`` is what to spawn (``sh -c command``, ``bash -c command`` with
    ``shell: "bash"``, or the exec form ``command *args``); ``timeout`` is in
    seconds (the declared one, else the event's default; a SessionEnd hook's is
    capped at the shared budget); ``env`` holds the variables Claude Code exports
    for this hook's source (``CLAUDE_PROJECT_DIR``, and for a plugin
    ``CLAUDE_PLUGIN_ROOT`` and ``CLAUDE_PLUGIN_DATA``); ``dedup_key`` is equal
    for "the same handler" declared in several settings files (run once), and
    differs for each plugin's copy.

    ``kind`` says how it runs: a ``command`` spawns ``argv``; an ``http`` hook POSTs
    to ``http`` (then ``declared_command`` and ``command`` are its URL, where Claude
    Code's messages name it, and ``argv`` is just that URL); a ``prompt`` or
    ``agent`` hook asks a model to judge ``prompt`` (``model``: the one it names); an
    ``mcp_tool`` hook calls ``mcp_tool`` (``declared_command`` is ``server/tool``).
    """

    event: str
    source: HookSource
    group_index: int
    hook_index: int
    matcher: Matcher
    if_rule: IfRule | None
    declared_command: str
    command: str
    args: tuple[str, ...] | None
    argv: tuple[str, ...]
    timeout: float
    timeout_declared: bool
    run_async: bool
    on_failure: OnFailureMode
    status_message: str | None
    env: Mapping[str, str] = field(default_factory=FrozenDict)
    dedup_key: Hashable
    kind: HandlerKind = "command"
    http: HttpTarget | None = None
    prompt: str | None = None
    model: str | None = None
    continue_on_block: bool = False
    once: bool = False
    """``once: true`` in a skill's frontmatter: it runs the first time it matches only."""
    mcp_tool: McpToolTarget | None = None

    @property
    def plugin(self) -> str | None:
        return self.source.plugin

    @property
    def exec_form(self) -> bool:
        """Declared with ``args``: spawned directly, no shell."""
        return self.args is not None

    def matches(self, value: str | None) -> bool:
        """Whether this hook's matcher group runs for ``value`` (see ``EventSpec``)."""
        return self.matcher.matches(value)

    def describe(self) -> str:
        """``PreToolUse[0][1] in /p/.claude/settings.json (plugin x)``."""
        return self.origin().describe()

    def origin(self) -> HookOrigin:
        return HookOrigin(
            source=self.source.label,
            plugin=self.plugin,
            event=self.event,
            group=self.group_index,
            index=self.hook_index,
        )

    def to_command(
        self,
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
        call: InProcessHook | None = None,
    ) -> HookCommand:
        """The ``HookCommand`` the executor runs for one firing of this hook.

        ``cwd`` is the session's current directory; ``env`` adds the per-session
        variables (``CLAUDE_CODE_SESSION_ID``, ``CLAUDE_EFFORT``, ...) to this
        hook's own (``CLAUDE_PROJECT_DIR``, ``CLAUDE_PLUGIN_ROOT``, ...);
        ``timeout`` overrides the declared one (e.g. what is left of the
        SessionEnd budget); ``call`` runs it in dsh's process (a ``prompt`` hook's model
        request). ``onFailure: "continue"`` becomes ``ignore``.
        """
        merged = hook_environment(self.env, env)
        return HookCommand(
            argv=self.argv,
            timeout=self.timeout if timeout is None else timeout,
            origin=self.origin(),
            env=merged,
            cwd=cwd,
            on_failure="block" if self.on_failure == "block" else "ignore",
            dedup_key=self.dedup_key,
            http=self.http,
            call=call,
        )


@final
@frozen(kw_only=True)
class Catalog:
    """Every Claude Code hook source of a project, what was admitted and what was not.

    ``hooks`` maps each event with admitted hooks to them, in declaration order
    (sources in discovery order: user, project, local, ``--settings`` files,
    managed, plugins). ``session_end_budget`` is the shared SessionEnd budget in
    seconds; ``permissions`` the settings' ``permissions`` blocks, merged;
    ``project_plugins`` the plugins whose running is the project's choice. ``ok`` is
    false when an error or a warning was diagnosed.
    """

    project_dir: Path
    sources: tuple[SourceEntry, ...]
    hooks: Mapping[str, tuple[HookDeclaration, ...]]
    diagnostics: tuple[Diagnostic, ...]
    session_end_budget: float
    permissions: PermissionSettings = field(default_factory=PermissionSettings)
    project_plugins: Mapping[str, str] = field(default_factory=FrozenDict)
    """Installed plugins enabled only by the project's settings: plugin id to that file."""
    sandbox: SandboxPolicy | None = None
    """The settings' ``sandbox`` (``settings._sandbox``; ``None``: not enabled)."""
    env_layers: tuple[tuple[HookSource, Mapping[str, str]], ...] = ()
    """Each settings file's ``env`` (``settings._env``), lowest precedence first."""
    bash_edit_diff: bool | None = None
    """``bashEditDiffEnabled`` as 2.1.332 reads it (``None``: the permission mode decides)."""
    worktree: WorktreeSettings | None = None
    """The settings' ``worktree`` (``settings._worktree``; ``None``: no file sets it)."""
    project_env_trusted: bool = True
    """Whether the project's own ``env`` (project and local settings) applies: false while
    the project is not trusted (``trust._mount``), also for a change made mid-session."""

    @property
    def env(self) -> dict[str, str]:
        """The settings' ``env``, merged: what 2.1.332 sets for hooks and Bash."""
        out: dict[str, str] = {}
        for _source, values in self.env_layers:
            out.update(values)
        return out

    @property
    def ok(self) -> bool:
        return not any(d.severity in ("error", "warning") for d in self.diagnostics)

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "warning")

    def for_event(self, event: str) -> tuple[HookDeclaration, ...]:
        """The admitted hooks of ``event`` (empty for an event nobody declared)."""
        return self.hooks.get(event, ())

    def matching(self, event: str, value: str | None) -> tuple[HookDeclaration, ...]:
        """The hooks of ``event`` whose matcher accepts ``value``, in declaration order."""
        return tuple(h for h in self.for_event(event) if h.matches(value))

    def all_hooks(self) -> tuple[HookDeclaration, ...]:
        return tuple(h for hooks in self.hooks.values() for h in hooks)

    def render_report(self) -> str:
        """A plain-text report for ``dsh hooks check``."""
        from dsh.hooks.claude.settings._report import render_report  # not on a run's path

        return render_report(self)
