"""The Claude Code profile: what a host mounts for Claude Code (``dsh.host.Profile``'s shape).

``ClaudeCodeProfile(...).load(project)`` reads the project's hook catalog
(``load_catalog``) and hands back a ``ClaudeCodeMount`` (``_mount``): the bridge
(``claude_hooks_plugin``, when the catalog admitted a hook), the ``CLAUDE.md`` loader
(``dsh.instructions.claude_instructions_plugin``) and the catalog's diagnostics as lines.
It imports nothing of ``dsh.host``: the host's ``Profile`` is structural, and everything
here is the bridge's own types or plain values.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from dsh._frozen import frozen
from dsh.hooks.claude._block_cap import stop_block_cap
from dsh.hooks.claude._mount import (
    ClaudeCodeMount,
    given_hooks_only,
    loaded_plugins,
    logged_diagnostics,
    plugin_dirs,
    skipped_log,
)
from dsh.hooks.claude.events._specs import EFFORT_LEVEL
from dsh.hooks.claude.permissions._auto import AutoClassifier
from dsh.hooks.claude.permissions._persist import SettingsTargets
from dsh.hooks.claude.permissions._plugin import ClaudePermissionsPlugin, PermissionState

if TYPE_CHECKING:
    from dsh.base._worktree import WorktreeRemoval
    from dsh.hooks.claude.rules._modes import PermissionMode
    from dsh.hooks.claude.runtime._bridge import ClaudeHooksPlugin
    from dsh.hooks.claude.settings._agents import AgentSet
    from dsh.hooks.claude.settings._catalog import PluginRoot
    from dsh.hooks.claude.settings._commands import CommandSet
    from dsh.hooks.claude.settings._types import Catalog
    from dsh.hooks.claude.trust._mount import GatedMount
    from dsh.hooks.claude.trust._review import TrustReview
    from dsh.instructions import ClaudeInstructionsPlugin, InstructionsGate, LoadedInstructions
    from dsh.mcp import McpServer

__all__ = ["CLAUDE_PROFILE_NAME", "ClaudeCodeProfile"]

CLAUDE_PROFILE_NAME = "claude"
"""The profile's name: its scopes are ``claude-hooks`` and ``claude-instructions``."""


@final
@frozen(kw_only=True)
class ClaudeCodeProfile:
    """Claude Code's hooks and instructions files, as ``dsh run`` loads them.

    ``settings_files`` are ``--settings`` arguments (a path or inline JSON) and
    ``plugin_roots`` plugin directories loaded as enabled (hooks, commands, skills); ``home``,
    ``managed_path``, ``env`` and ``discover_installed_plugins`` are
    ``load_catalog``'s (default: the real ones). ``catalog``, when given, is used
    as it is, nothing discovered. ``permission_mode`` is Claude Code's permission
    mode (``None``: the settings' ``defaultMode``, else ``default``), what hooks
    are sent and, with ``permissions`` (the default), what the permission policy
    enforces with the settings' rules over the project and ``add_dirs``
    (``--add-dir``) (docs/permissions.md); ``auto`` judges with ``classifier``
    (none: every call the mode would ask about is denied, as 2.1.332 without its check);
    ``transcript_dir`` is where the
    transcripts hooks read are written (default: dsh's data dir). ``effort``
    is the hooks' ``effort.level`` / ``CLAUDE_EFFORT``; ``attended`` says a
    person is at the terminal (``CLAUDE_CODE_SESSION_ATTENDED=1``; headless: 0).
    ``instructions`` loads ``CLAUDE.md`` and its family into each root
    session's context, from ``instructions_config_dir`` and
    ``instructions_managed_dir`` (default: Claude Code's own). ``require_trust``:
    what the project controls (its own hooks, the plugins only its settings enable,
    its instructions files) runs or loads only once trusted, as recorded under
    ``trust_dir`` (default: dsh's data directory, see ``dsh.hooks.claude.trust._review``).
    """

    settings_files: Sequence[str | Path] = ()
    plugin_roots: Sequence[Path | str | PluginRoot] = ()
    home: Path | None = None
    managed_path: Path | None = None
    env: Mapping[str, str] | None = None
    discover_installed_plugins: bool = True
    catalog: Catalog | None = None
    permission_mode: PermissionMode | None = None
    add_dirs: Sequence[Path] = ()
    permissions: bool = True
    classifier: AutoClassifier | None = None
    transcript_dir: Path | None = None
    effort: str | None = EFFORT_LEVEL
    attended: bool = False
    instructions: bool = True
    instructions_config_dir: Path | None = None
    instructions_managed_dir: Path | None = None
    require_trust: bool = True
    trust_dir: Path | None = None
    refuse_untrusted: bool = False
    """Fail closed: ``load`` raises ``UntrustedHooksError`` (naming them and the ways
    forward) instead of leaving out a project hook or project-enabled plugin that is not
    trusted; what a headless ``dsh run`` asks for."""
    mcp: bool = True
    """Read Claude Code's MCP servers (``dsh.mcp``): ``mcp_config`` (``--mcp-config`` files or
    inline JSON), alone with ``strict_mcp_config``."""
    mcp_config: Sequence[str] = ()
    strict_mcp_config: bool = False
    discovered_hooks: bool = True
    """Off (``--no-claude-hooks`` with ``--settings`` or ``--plugin-dir``): only the hooks of
    ``settings_files`` and ``plugin_roots`` run; the user's, project's, local, managed and
    installed plugins' hooks are left out (their permissions and instructions still load)."""

    @property
    def name(self) -> str:
        return CLAUDE_PROFILE_NAME

    def _discover(self, project: Path) -> Catalog:
        from dsh.hooks.claude.settings._catalog import load_catalog

        if self.catalog is not None:
            return self.catalog
        catalog = load_catalog(
            project,
            settings_files=self.settings_files,
            plugin_roots=self.plugin_roots,
            home=self.home,
            managed_path=self.managed_path,
            env=self.env,
            discover_installed_plugins=self.discover_installed_plugins and self.discovered_hooks,
        )
        return catalog if self.discovered_hooks else given_hooks_only(catalog)

    def _instructions_files(self, project: Path) -> list[LoadedInstructions]:
        """The project's own instructions files a run would load (none when not loading)."""
        if not self.instructions:
            return []
        from dsh.hooks.claude.trust._review import project_instructions
        from dsh.instructions._plugin import instructions_config_dir

        return project_instructions(
            project.absolute(),
            config_dir=instructions_config_dir(self.instructions_config_dir),
            managed_dir=self.instructions_managed_dir,
        )

    def review(self, project: Path, /) -> TrustReview:
        """What the project controls (hooks, plugins its settings enable, instructions files)
        and whether each is trusted."""
        from dsh.hooks.claude.trust._review import review_trust

        catalog = self._discover(project)
        servers = self._project_servers(self._mcp(project, catalog)[0])
        return review_trust(catalog, self.trust_dir, self._instructions_files(project), servers)

    def mcp_servers_of(self, project: Path, /) -> tuple[tuple[McpServer, ...], tuple[str, ...]]:
        """Every MCP server Claude Code's configuration declares here (trusted or not), and
        what was not admitted (``dsh mcp list``)."""
        return self._mcp(project, self._discover(project))

    def trust(self, project: Path, /) -> Sequence[str]:
        """Trust everything the project controls now (``dsh hooks trust``); one line per item."""
        from dsh.hooks.claude.trust._review import record_review

        catalog = self._discover(project)
        servers = self._project_servers(self._mcp(project, catalog)[0])
        review = record_review(catalog, self.trust_dir, self._instructions_files(project), servers)
        return tuple(review.recorded_lines())

    def untrusted(self, project: Path, /) -> Sequence[str]:
        """One line per item a run leaves out because it is not trusted, and why."""
        from dsh.hooks.claude.trust._gated import ignored_notices

        review = self.review(project)
        lines = review.lines()
        lines += ignored_notices(review.untrusted_permissions(), review.project)
        return (*lines, review.problem) if review.problem is not None and lines else tuple(lines)

    def load(self, project: Path, /) -> ClaudeCodeMount:
        """The project's catalog and what to mount for it; bad settings are diagnostics.

        Unless ``require_trust`` is off (or ``catalog`` was given), project hooks,
        project-enabled plugins and project instructions files run or load only when
        trusted (``dsh hooks trust``); the others are named in one diagnostic line
        and left out, or, with ``refuse_untrusted``, a hook or plugin not trusted
        raises ``UntrustedHooksError`` before anything is mounted.
        """
        gated, mcp_notes = self._gated(project)
        catalog = gated.catalog
        # A plugin left out (not trusted) brings no server either.
        live = {f"plugin:{p}:" for p in loaded_plugins(catalog)}
        servers = tuple(
            s
            for s in gated.servers
            if s.source != "plugin" or any(s.name.startswith(p) for p in live)
        )
        notes: list[str] = []
        state = self._permission_state(catalog, project, notes) if self.permissions else None
        agents, commands, ignored = self._custom_files(project, gated)
        if state is not None:
            state.agent_modes.update(agents.permission_modes())
        hooks = self._hooks_plugin(gated, state, agents, commands)
        diagnostics = logged_diagnostics(catalog, agents, commands)
        notice = () if gated.notice is None else (gated.notice,)
        diagnostics += (*notes, *notice, *ignored, *mcp_notes)
        return ClaudeCodeMount(
            catalog,
            hooks,
            self._instructions_plugin(gated.gate),
            diagnostics,
            ClaudePermissionsPlugin(state) if state is not None else None,
            environment={"set": catalog.env} if catalog.env else None,
            mcp_servers=servers,
            skipped_log=skipped_log(gated) if hooks is None else None,
            # 2.1.332 puts the settings' `env` in its own environment (settings/_env.py).
            stop_block_cap=stop_block_cap({**(self.env or os.environ), **catalog.env}),
        )

    def session_worktree(self, project: Path, name: str, /, *, session_id: str) -> Path:
        """The folder ``dsh run --worktree NAME`` runs session ``session_id`` in: made by the
        project's WorktreeCreate hooks (fired before the session, as 2.1.332 fires them; a
        project hook not trusted is left out), else by git as the settings' ``worktree``
        says (``WorktreeError`` when it cannot be)."""
        from dsh.base._worktree import create_worktree
        from dsh.hooks.claude.runtime._worktree_hook import worktree_by_hooks

        gated, _ = replace(self, refuse_untrusted=False)._gated(project)
        made = worktree_by_hooks(
            gated.catalog,
            gated.declared,
            project,
            name,
            session_id=session_id,
            transcript_dir=self.transcript_dir,
            attended=self.attended,
        )
        return made or create_worktree(project, name, gated.catalog.worktree).path

    def worktree_removed(self, project: Path, path: Path, /, *, session_id: str) -> WorktreeRemoval:
        """WorktreeRemove fired for the hook-made worktree ``path`` of session ``session_id``
        of ``project``, as 2.1.332 fires it when its exit question removes one."""
        from dsh.hooks.claude.runtime._worktree_remove import worktree_removal
        from dsh.hooks.claude.transcript._projection import default_transcript_dir, project_slug

        gated, _ = replace(self, refuse_untrusted=False)._gated(project)
        base = self.transcript_dir if self.transcript_dir is not None else default_transcript_dir()
        transcript = base / project_slug(project) / f"{session_id}.jsonl"
        return worktree_removal(
            gated.catalog,
            gated.declared,
            project,
            path,
            session_id=session_id,
            transcript_path=transcript,
            attended=self.attended,
        )

    def _gated(self, project: Path) -> tuple[GatedMount, tuple[str, ...]]:
        """What was discovered, as far as the project is trusted (all of it when trust is
        not required or the catalog was given), and what of MCP was not admitted."""
        from dsh.hooks.claude.trust._mount import GatedMount, gate_mount

        catalog = self._discover(project)
        servers, mcp_notes = self._mcp(project, catalog)
        if self.catalog is not None or not self.require_trust:
            return GatedMount(catalog, catalog, servers), mcp_notes
        gated = gate_mount(
            catalog,
            servers,
            trust_dir=self.trust_dir,
            instructions=self._instructions_files(project),
            trust_command=self._trust_command if self.refuse_untrusted else None,
        )
        return gated, mcp_notes

    def _custom_files(
        self, project: Path, gated: GatedMount
    ) -> tuple[AgentSet, CommandSet, tuple[str, ...]]:
        """The custom agents, commands and skills, without the project's frontmatter hooks
        while it is not trusted, and the lines that say so."""
        from dsh.hooks.claude.settings._agents import load_agents
        from dsh.hooks.claude.settings._commands import load_commands

        env = self.env if self.env is not None else os.environ
        configured = env.get("CLAUDE_CONFIG_DIR")
        config_dir = Path(configured).expanduser() if configured else None
        plugins = plugin_dirs(self.plugin_roots, gated.catalog)
        commands = load_commands(
            project, home=self.home, plugin_roots=plugins, config_dir=config_dir
        )
        agents = load_agents(project, home=self.home, plugin_roots=plugins, config_dir=config_dir)
        if gated.frontmatter_trusted:
            return agents, commands, gated.ignored
        from dsh.hooks.claude.trust._mount import untrusted_frontmatter

        left_out = untrusted_frontmatter(agents, commands, gated.catalog.project_dir)
        if left_out and self.refuse_untrusted:
            from dsh.hook_protocol import UntrustedHooksError

            how = self._trust_command(gated.catalog.project_dir)
            raise UntrustedHooksError(
                f"{left_out[0].removeprefix('warning: ')}, so this run does not start (no"
                f" one is there to ask)\nTrust the project, then run again: {how}"
                "\nOr trust it and run in one step: rerun with --trust-project"
                "\nOr run without them: rerun with --skip-untrusted-hooks"
            )
        agents, commands = agents.without_project_hooks(), commands.without_project_hooks()
        return agents, commands, gated.ignored + left_out

    def _hooks_plugin(
        self,
        gated: GatedMount,
        state: PermissionState | None,
        agents: AgentSet,
        commands: CommandSet,
    ) -> ClaudeHooksPlugin | None:
        """The bridge, when there is something to run (``None`` otherwise)."""
        catalog = gated.catalog
        if not (catalog.all_hooks() or commands.commands or agents.agents):
            return None
        # The runtime (dsh.hook_protocol under it) loads only when there is something to run.
        from dsh.base._containment import prepare_containment
        from dsh.hooks.claude.runtime._bridge import claude_hooks_plugin
        from dsh.hooks.claude.trust._left_out import left_out_selections

        prepare_containment()  # hooks will run: the namespace is made meanwhile

        return claude_hooks_plugin(
            catalog,
            permission_mode=state.mode if state is not None else self.permission_mode or "default",
            transcript_dir=self.transcript_dir,
            effort=self.effort,
            attended=self.attended,
            permissions=state,
            commands=commands,
            agents=agents,
            left_out=left_out_selections(gated.declared, gated.review),
        )

    def _instructions_plugin(
        self, gate: InstructionsGate | None
    ) -> ClaudeInstructionsPlugin | None:
        """The ``CLAUDE.md`` loader, behind the trust gate (``None`` when not loading)."""
        if not self.instructions:
            return None
        from dsh.instructions import claude_instructions_plugin

        return claude_instructions_plugin(
            config_dir=self.instructions_config_dir,
            managed_dir=self.instructions_managed_dir,
            gate=gate,
        )

    def _mcp(
        self, project: Path, catalog: Catalog
    ) -> tuple[tuple[McpServer, ...], tuple[str, ...]]:
        """The MCP servers Claude Code's files declare, and what was not admitted
        (``McpConfigError``, for a ``--mcp-config`` that cannot be used, goes up)."""
        if not self.mcp:
            return (), ()
        from dsh.mcp import claude_mcp_servers

        plugins = loaded_plugins(catalog)
        config = claude_mcp_servers(
            project,
            home=self.home,
            env=self.env,
            mcp_config=self.mcp_config,
            strict=self.strict_mcp_config,
            plugin_roots=plugins,
        )
        return config.servers, config.diagnostics

    @staticmethod
    def _project_servers(servers: Sequence[McpServer]) -> tuple[McpServer, ...]:
        return tuple(s for s in servers if s.source == "project")

    def _trust_command(self, project: Path) -> str:
        """The ``dsh hooks trust`` command line that trusts what this profile reviews."""
        import shlex

        words = ["dsh", "hooks", "trust", "--project", str(project)]
        for given in self.settings_files:
            words += ["--settings", str(given)]
        for root in self.plugin_roots:
            words += ["--plugin-dir", str(root if isinstance(root, Path | str) else root.root)]
        return shlex.join(words)

    def _permission_state(
        self, catalog: Catalog, project: Path, notes: list[str]
    ) -> PermissionState:
        """The session's permission state; a mode the settings disable falls back to
        ``default`` with a diagnostic."""
        from dsh.hooks.claude.permissions._plugin import PermissionModeError, permission_state

        home = self.home
        targets = self._settings_targets(catalog.project_dir)
        try:
            return permission_state(
                catalog.permissions,
                catalog.project_dir,
                mode=self.permission_mode,
                add_dirs=self.add_dirs,
                home=home,
                classifier=self.classifier,
                targets=targets,
            )
        except PermissionModeError as exc:
            where = (
                catalog.permissions.default_mode_source if self.permission_mode is None else None
            )
            notes.append(f"{where or 'permission mode'}: {exc}; running in default mode")
            state = permission_state(
                catalog.permissions,
                catalog.project_dir,
                mode="default",
                add_dirs=self.add_dirs,
                home=home,
                targets=targets,
            )
            state.mode_source = f"{where or 'the mode asked for'} refused: {exc}"
            return state

    def _settings_targets(self, project: Path) -> SettingsTargets:
        """The files ``updatedPermissions`` destinations are written to: where discovery
        reads them (``_catalog``)."""
        from dsh.hooks.claude.settings._catalog import _config_dir, _git_root

        env = self.env if self.env is not None else os.environ
        home = self.home or Path.home()
        config_dir = _config_dir(home, env)
        trust_dir = self.trust_dir
        file = project / ".claude" / "settings.json"

        def written(entry: Mapping[str, Any]) -> None:
            # What a trusted hook or the user saved is theirs: it stays trusted.
            from dsh.hooks.claude.trust._gated import written_entries
            from dsh.hooks.claude.trust._records import trust_permission_entries

            trust_permission_entries(
                project, written_entries(entry, file, project, home), trust_dir
            )

        return SettingsTargets(
            project=project,
            local_root=_git_root(project),
            config_dir=config_dir,
            written=written if self.require_trust and self.catalog is None else None,
        )
