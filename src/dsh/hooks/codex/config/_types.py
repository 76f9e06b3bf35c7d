"""The Codex bridge's values: a hook as declared and admitted, a diagnostic, the catalog.

A ``CodexHook`` is one command handler of one matcher group, with where it
was declared (file, layer, event, group, index), its effective timeout, its
trust key and hash, and its place in Codex's display order (which numbers its
``hook_run_id``). A ``CodexDiagnostic`` names the file, the event, the group
and handler index where known, and the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import FrozenDict
from dsh.hook_protocol import (
    HookCommand,
    HookOrigin,
    hook_environment,
    shell_argv,
)
from dsh.hooks.codex.config._matcher import CodexMatcher
from dsh.hooks.codex.events._specs import MATCHER_FIELDS, TOOL_ALIASES

if TYPE_CHECKING:  # an mcp_tool handler's runner: dsh.hook_protocol loads it on first use
    from dsh.hook_protocol import InProcessHook

CodexPermissionMode: TypeAlias = Literal["default", "bypassPermissions"]
"""The two modes Codex ever sends (``bypassPermissions`` is approval ``never``, as in exec)."""

__all__ = [
    "SCRIPT_GATED",
    "CodexCatalog",
    "CodexDiagnostic",
    "CodexHook",
    "CodexLayer",
    "CodexMcpTool",
    "CodexPermissionMode",
    "Severity",
    "TrustStatus",
]

CodexLayer: TypeAlias = Literal["managed", "system", "user", "project", "plugin"]
"""Where a hook came from: ``requirements.toml``, ``/etc/codex``, ``$CODEX_HOME``, ``.codex/``,
an enabled plugin."""

Severity: TypeAlias = Literal["error", "warning"]
"""``error``: hooks do not run (a rejected file); ``warning``: something was ignored."""

TrustStatus: TypeAlias = Literal[
    "managed", "trusted", "bypassed", "untrusted", "changed", "disabled", "script changed"
]
"""Why a hook runs (managed, trusted, bypassed) or does not (untrusted, changed, disabled;
``script changed``: a file of the project its command runs changed since dsh recorded it)."""

SCRIPT_GATED: Final = "script changed"
"""The ``CodexHook.trust`` of a hook left out because a file it runs changed (``trust._scripts``
sets it; the profile's lines leave it to the layer review to say)."""


@final
@frozen(kw_only=True)
class CodexDiagnostic:
    """One thing a Codex hook source said that dsh (like Codex) did not load as written."""

    source: str
    reason: str
    severity: Severity = "warning"
    event: str | None = None
    group: int | None = None
    index: int | None = None

    def describe(self) -> str:
        """``/p/.codex/hooks.json: PreToolUse[0][1]: unknown variant `http` …``."""
        where = self.event or ""
        if self.event is not None and self.group is not None:
            where += f"[{self.group}]"
            if self.index is not None:
                where += f"[{self.index}]"
        return f"{self.source}: {where + ': ' if where else ''}{self.reason}"


@final
@frozen(kw_only=True)
class CodexMcpTool:
    """What an ``mcp_tool`` handler calls: ``server``'s ``tool`` with ``input`` (``${path}``
    filled from the hook input at each firing)."""

    server: str
    tool: str
    input: Mapping[str, Any] = field(default_factory=FrozenDict)


@final
@frozen(kw_only=True)
class CodexHook:
    """One admitted command handler: what to run, where it was declared, its trust.

    ``timeout`` is the effective number of seconds (the default, the minimum and
    the SessionEnd/Interrupt cap applied); ``display_order`` numbers it among
    all of the catalog's handlers as Codex numbers them; ``key`` and
    ``trusted_hash`` are its trust key and the hash Codex records for it.
    """

    event: str
    source: Path
    layer: CodexLayer
    group: int
    index: int
    matcher: CodexMatcher
    command: str
    timeout: int
    run_async: bool = False
    status_message: str | None = None
    additional_context_limit: int | None = None
    display_order: int = 0
    key: str
    trusted_hash: str
    trust: TrustStatus = "trusted"
    plugin: str | None = None
    env: Mapping[str, str] | None = None
    mcp_tool: CodexMcpTool | None = None
    """Set for an ``mcp_tool`` handler (``command`` then names it: ``server/tool``)."""

    @property
    def runs(self) -> bool:
        """Whether the hook runs (managed, trusted, or trust bypassed)."""
        return self.trust in ("managed", "trusted", "bypassed")

    def origin(self) -> HookOrigin:
        return HookOrigin(
            source=str(self.source),
            plugin=self.plugin,
            event=self.event,
            group=self.group,
            index=self.index,
        )

    def selects(self, value: str | None) -> bool:
        """Whether this hook runs for the matcher ``value`` (a tool name: its aliases too)."""
        if self.event not in MATCHER_FIELDS:
            return True
        if value is None:
            return self.matcher.kind == "all"
        names = (
            (value, *TOOL_ALIASES.get(value, ()))
            if MATCHER_FIELDS[self.event] == "tool_name"
            else (value,)
        )
        return self.matcher.matches(names)

    def to_command(
        self,
        *,
        shell: str,
        cwd: Path | None,
        env: Mapping[str, str] | None,
        call: InProcessHook | None = None,
    ) -> HookCommand:
        """The ``HookCommand`` for one firing: ``<shell> -c <command>`` in the session's cwd
        (a plugin's ``${PLUGIN_ROOT}``-style placeholders filled in, and set in its env); an
        ``mcp_tool`` handler's is ``call``, run in dsh's process."""
        if self.mcp_tool is not None and call is not None:
            return HookCommand(
                argv=(self.command,),
                timeout=self.timeout,
                origin=self.origin(),
                dedup_key=("codex", self.key),
                call=call,
            )
        command = self.command
        for name, value in (self.env or {}).items():
            command = command.replace(f"${{{name}}}", value)
        return HookCommand(
            argv=shell_argv(command, shell),
            timeout=self.timeout,
            origin=self.origin(),
            env=hook_environment(self.env, env),
            cwd=cwd,
            # Codex does not deduplicate identical commands: every handler runs.
            dedup_key=("codex", self.key),
            # Codex 0.171 hands its hooks its OTEL_* variables (hook_otel_env_codex.json).
            inherit_telemetry=True,
        )


@final
@frozen(kw_only=True)
class CodexCatalog:
    """Every Codex hook source found for a project: the hooks, in display order, and diagnostics.

    ``hooks`` holds every admitted handler, whether it runs or not (``trust``);
    ``sources`` the files read; ``project_trusted`` whether the project's
    ``.codex/`` was loaded; ``permission_mode`` the approval policy the config
    layers give a headless run, as ``codex exec`` settles it (``default``:
    ``approval_policy = "on-request"`` with ``approvals_reviewer = "auto_review"``;
    otherwise ``bypassPermissions``, approval ``never``).
    """

    hooks: tuple[CodexHook, ...] = ()
    diagnostics: tuple[CodexDiagnostic, ...] = ()
    sources: tuple[Path, ...] = ()
    project_trusted: bool = False
    codex_home: Path | None = None
    permission_mode: CodexPermissionMode = "bypassPermissions"
    shell_environment_policy: Mapping[str, Any] = field(default_factory=FrozenDict)
    """The layers' ``[shell_environment_policy]`` tables, merged (Codex's vocabulary: the
    environment of the processes the model drives, ``dsh.base.EnvironmentPolicy``)."""
    auto_compact_tokens: int | None = None
    """``model_auto_compact_token_limit`` (the highest layer that sets it wins): the reported
    usage at which a session compacts (``AgentOptions.compact_tokens``)."""
    notify: tuple[str, ...] = ()
    """``notify``: the program (and its arguments) Codex runs after each turn, with the
    turn's JSON appended (``runtime._notify``); empty when none is set."""
    mcp_servers: tuple[Any, ...] = ()
    """The layers' ``[mcp_servers.NAME]`` servers (``dsh.mcp.McpServer``), a higher layer's
    of a name winning: ``dsh.host`` starts them."""
    sandbox: Mapping[str, Any] = field(default_factory=FrozenDict)
    """What the layers set of the sandbox: ``sandbox_mode``, ``approval_policy`` and the
    ``[sandbox_workspace_write]`` table (only what is set: Codex's own defaults are not
    dsh's, docs/sandbox.md)."""
    otel: Mapping[str, Any] = field(default_factory=FrozenDict)
    """The layers' ``[otel]`` tables, merged key by key (``environment``, ``exporter``,
    ``trace_exporter``, ``metrics_exporter``, ``log_user_prompt``): ``dsh.host`` exports the
    session so (``dsh.telemetry.codex_telemetry``)."""

    def running(self) -> tuple[CodexHook, ...]:
        return tuple(h for h in self.hooks if h.runs)

    def declared(self, event: str) -> bool:
        return any(h.event == event and h.runs for h in self.hooks)

    def matching(self, event: str, value: str | None) -> list[CodexHook]:
        """The running hooks of ``event`` selected by ``value``, in display order."""
        return [h for h in self.hooks if h.event == event and h.runs and h.selects(value)]

    @property
    def errors(self) -> tuple[CodexDiagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")
