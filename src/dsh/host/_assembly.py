"""``Assembly``: the host's parts before a session, and how an agent is made from them.

The context, the tool registry with the built-in tools, the approval service,
the session store and the model, with the native plugins and the profiles
mounted on that context. ``open_host`` builds one per session; a test rig that
runs several agents on one context builds one with ``assemble``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from dsh.agent import Agent, AgentOptions, SessionStartSource, subagent_plugin
from dsh.approval import APPROVAL, ApprovalService
from dsh.base import EnvironmentPolicy
from dsh.context import Context, Plugin
from dsh.host._config import dsh_state
from dsh.host._options import HostOptions
from dsh.host._profile import Profile, ProfileDiagnostic
from dsh.host._system_prompt import SystemPrompt
from dsh.models import Model
from dsh.session import JsonlSessionStore, SessionEvent, SessionLog, SessionStore, default_data_dir
from dsh.tools import TOOLS, ToolDefinition, ToolRegistry, Workspace

if TYPE_CHECKING:
    from dsh.base._sandbox import SandboxPolicy
    from dsh.mcp._session import McpServers

__all__ = ["Assembly", "assemble"]


class Assembly:
    """The parts ``options`` describe, nothing mounted yet (``mount_configured`` does that).

    Its owner disposes it (``await assembly.dispose()``) once its agents are closed.
    """

    __slots__ = (
        "_absent",
        "_adjust",
        "_diagnostics",
        "_environments",
        "_left_out",
        "_mcp_servers",
        "_observed",
        "_sandbox",
        "approval",
        "ctx",
        "mcp",
        "model",
        "options",
        "registry",
        "store",
    )

    def __init__(self, options: HostOptions) -> None:
        self.options = options
        self.model: Model = options.model
        self.ctx = Context()
        self.registry = ToolRegistry(self.ctx)
        self.ctx.provide(TOOLS, self.registry)
        if options.builtin_tools:
            # Here, not at the top: a host without them (an embedder's, a test rig's) never
            # imports the built-in tools' modules.
            from dsh.tools.builtin import PAGE_READER, builtin_tools

            for tool in builtin_tools():
                self.registry.register(tool)
            self.ctx.provide(PAGE_READER, self._read_page)
            if options.subagents:
                self.ctx.plugin(subagent_plugin, name="subagents")
        self.approval: ApprovalService | None = options.approval
        if options.approval is not None:
            self.ctx.provide(APPROVAL, options.approval)
        self.store: SessionStore = (
            options.store
            if options.store is not None
            else JsonlSessionStore(options.session_dir or default_data_dir())
        )
        self._observed = False
        if os.environ.get("CLAUDE_CODE_ENABLE_TELEMETRY"):
            # OpenTelemetry export, as Claude Code's variables ask; never imported otherwise.
            from dsh.telemetry import observed_store, telemetry_settings

            settings = telemetry_settings(os.environ)
            if settings is not None:
                self.store = cast(SessionStore, observed_store(self.store, settings))
                self._observed = True
        self._diagnostics: list[ProfileDiagnostic] = []
        self._environments: list[Mapping[str, Any]] = []
        self._adjust: list[Callable[[AgentOptions], AgentOptions]] = []
        self._absent: list[frozenset[str]] = []
        self._left_out: dict[str, ToolDefinition] = {}
        self._mcp_servers: list[Any] = list(options.mcp_servers)
        self.mcp: McpServers | None = None
        """The session's MCP servers once started (``start_mcp_servers``), else ``None``."""
        self._sandbox: SandboxPolicy | None = None

    async def _read_page(self, text: str) -> str:
        """WebFetch's page-reading request, on the session's model (as 2.1.332 sends it)."""
        from dsh.messages import UserMessage
        from dsh.models import ModelRequest
        from dsh.tools.builtin._web_fetch import READER_SYSTEM

        request = ModelRequest(messages=(UserMessage(text),), system=READER_SYSTEM)
        return (await self.model.complete(request)).text

    @property
    def project(self) -> Path:
        return self.options.project

    @property
    def diagnostics(self) -> tuple[ProfileDiagnostic, ...]:
        """What the mounted profiles' catalogs did not admit, in mounting order."""
        return tuple(self._diagnostics)

    def mount(self, plugin: Plugin, *, name: str | None = None) -> Context:
        """Mount a native plugin in its own scope (``ctx.plugin``); returns the scope."""
        return self.ctx.plugin(plugin, name=name)

    def mount_profile(self, profile: Profile) -> tuple[ProfileDiagnostic, ...]:
        """Load ``profile``'s catalog for the project and mount what it admits.

        Its hooks plugin first (scope ``<name>-hooks``), then its instructions
        loader (``<name>-instructions``); returns its diagnostics, also kept in
        ``diagnostics``.
        """
        loaded = profile.load(self.project)
        found = tuple(ProfileDiagnostic(profile.name, text) for text in loaded.diagnostics)
        self._diagnostics.extend(found)
        if loaded.hooks is not None:
            self.ctx.plugin(loaded.hooks, name=f"{profile.name}-hooks")
        # Or, when it loads none, what logs the hooks left out (optional: not in ``ProfileMount``).
        skipped_log = None if loaded.hooks is not None else getattr(loaded, "skipped_log", None)
        if skipped_log is not None:
            self.ctx.plugin(skipped_log, name=f"{profile.name}-hooks")
        # A profile's permission policy, inner to its hooks (optional: not in ``ProfileMount``).
        policy = getattr(loaded, "permissions", None)
        if policy is not None:
            self.ctx.plugin(policy, name=f"{profile.name}-permissions")
        if loaded.instructions is not None:
            self.ctx.plugin(loaded.instructions, name=f"{profile.name}-instructions")
        self._leave_out_absent(frozenset(getattr(loaded, "absent_tools", ())))
        # What the protocol's configuration says of the model's processes' environment
        # (Codex's `[shell_environment_policy]`; optional: not in ``ProfileMount``).
        environment = getattr(loaded, "environment", None)
        if environment:
            self._environments.append(environment)
        # What the protocol's configuration changes in an agent's options (Codex's
        # `model_auto_compact_token_limit`; optional: not in ``ProfileMount``).
        adjust = getattr(loaded, "agent_options", None)
        if adjust is not None:
            self._adjust.append(adjust)
        # The MCP servers the protocol's configuration declares (optional: not in ``ProfileMount``).
        self._mcp_servers.extend(getattr(loaded, "mcp_servers", ()))
        self._adopt_sandbox(profile.name, loaded)
        self._adopt_telemetry(loaded)
        return found

    def _leave_out_absent(self, absent: frozenset[str]) -> None:
        """dsh's tools that no mounted protocol offers stay unregistered (Codex 0.171 has no
        SendMessage; with Claude Code's bridge mounted too it is offered: optional, not in
        ``ProfileMount``)."""
        self._absent.append(absent)
        everywhere = frozenset.intersection(*self._absent)
        for name in sorted(everywhere):
            found = self.registry.get(name)
            if found is not None:
                self._left_out[name] = found
                self.registry.unregister(name)
        for name in [n for n in self._left_out if n not in everywhere]:
            self.registry.register(self._left_out.pop(name))

    def start_mcp_servers(self) -> None:
        """Start the MCP servers ``options`` and the profiles declared (``dsh.mcp``, imported
        only when there is one), one per name, the first declaration winning."""
        if not self._mcp_servers:
            return
        from dsh.mcp._session import start_servers

        unique = {s.name: s for s in reversed(self._mcp_servers)}
        self.mcp = start_servers(
            self.ctx,
            list(reversed(unique.values())),
            registry=self.registry,
            env=self.environment_policy().environment(),
            cwd=str(self.project),
        )

    def _adopt_telemetry(self, loaded: object) -> None:
        """Export as a profile's configuration asks (Codex's ``[otel]``), when nothing else
        does (the environment's ``CLAUDE_CODE_ENABLE_TELEMETRY`` wins); OpenTelemetry is
        imported only then."""
        table = getattr(loaded, "otel", None)
        if not table or self._observed:
            return
        from dsh.telemetry import codex_telemetry, observed_store

        settings = codex_telemetry(table)
        if settings is not None:
            self.store = cast(SessionStore, observed_store(self.store, settings))
            self._observed = True

    def _adopt_sandbox(self, name: str, loaded: object) -> None:
        """The first profile's sandbox (Codex's ``sandbox_mode``, Claude Code's ``sandbox``
        settings), when dsh's own configuration names none, with its approval policy."""
        sandbox = getattr(loaded, "sandbox", None)
        if sandbox is None or self.options.sandbox is not None or self._sandbox is not None:
            return
        self._sandbox = dataclasses.replace(sandbox, protected=(*sandbox.protected, *dsh_state()))
        if sandbox.ask_domains:  # Claude Code's sandbox asks about an unlisted host
            from dsh.tools._sandbox_approval import SandboxNetworkApprovals

            self.ctx.plugin(SandboxNetworkApprovals(), name=f"{name}-sandbox-network")
        policy = getattr(loaded, "approval_policy", None)
        if policy in ("untrusted", "on-failure", "on-request"):
            from dsh.tools._sandbox_approval import SandboxApprovals

            self.ctx.plugin(SandboxApprovals(policy), name=f"{name}-sandbox-approvals")

    @property
    def sandbox(self) -> SandboxPolicy | None:
        """The sandbox the agents' workspaces get (``options.sandbox``, else a profile's)."""
        return self.options.sandbox if self.options.sandbox is not None else self._sandbox

    def environment_policy(self) -> EnvironmentPolicy:
        """dsh's defaults, then the profiles' tables, then ``options.environment``."""
        policy = EnvironmentPolicy()
        for table in self._environments:
            policy = policy.layered(table, strict=False)
        return policy.layered(self.options.environment)

    def mount_configured(self) -> None:
        """Mount ``options.plugins`` in order, then each of ``options.profiles``."""
        for plugin in self.options.plugins:
            self.mount(plugin)
        for profile in self.options.profiles:
            self.mount_profile(profile)

    def open_session(self) -> SessionLog:
        """The session ``options`` name: resumed, forked, or new."""
        if self.options.resume is not None:
            return self.store.open(self.options.resume)
        if self.options.fork is not None:
            return self.store.fork(self.options.fork)
        return self.store.create(project=str(self.project), session_id=self.options.session_id)

    def system_prompt(self, model: Model | None = None) -> str | None:
        """``options.system`` as an agent on ``model`` (default: the host's) is sent it."""
        system = self.options.system
        if isinstance(system, SystemPrompt):
            return system.render(self.project, (model or self.model).name)
        return system

    def agent(
        self,
        session: SessionLog,
        *,
        model: Model | None = None,
        options: AgentOptions | None = None,
        source: SessionStartSource | None = None,
        on_event: Callable[[SessionEvent], None] | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> Agent:
        """An agent on ``session`` in a fresh workspace at the project. ``model``, ``options``
        and the callbacks, when given, win over the host's (``options.model``,
        ``options.agent``, ``options.on_event``, ``options.on_text``); the system prompt is
        rendered for the agent's model."""
        host = self.options
        model = model or self.model
        options = options or host.agent
        for adjust in self._adjust:
            options = adjust(options)
        return Agent(
            self.ctx,
            model=model,
            session=session,
            options=options,
            registry=self.registry,
            workspace=Workspace(
                cwd=self.project,
                env=self.environment_policy().environment(),
                sandbox=self.sandbox,
            ),
            source=source,
            system=self.system_prompt(model),
            store=self.store,
            on_event=on_event or host.on_event,
            on_text=on_text or host.on_text,
        )

    async def dispose(self) -> None:
        """Remove every plugin, profile and service the assembly mounted, last first."""
        await self.ctx.dispose()


def assemble(options: HostOptions) -> Assembly:
    """An ``Assembly`` with ``options``'s plugins and profiles mounted.

    For rigs that run several agents on one context; a program uses ``open_host``.
    """
    assembly = Assembly(options)
    assembly.mount_configured()
    return assembly
