"""The Claude Code profile: what a host mounts for Claude Code (``dsh.host.Profile``'s shape).

``ClaudeCodeProfile(...).load(project)`` reads the project's hook catalog
(``load_catalog``) and hands back the bridge (``claude_hooks_plugin``, when
the catalog admitted a hook), the ``CLAUDE.md`` loader
(``dsh.instructions.claude_instructions_plugin``) and the catalog's
diagnostics as lines. It imports nothing of ``dsh.host``: the host's
``Profile`` is structural, and everything here is the bridge's own types or
plain values.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, final

from dsh._frozen import frozen
from dsh.hooks.claude._machinery import EFFORT_LEVEL

if TYPE_CHECKING:
    from dsh.hooks.claude import Catalog, ClaudeHooksPlugin, PermissionMode, PluginRoot
    from dsh.instructions import ClaudeInstructionsPlugin

__all__ = ["CLAUDE_PROFILE_NAME", "ClaudeCodeMount", "ClaudeCodeProfile"]

logger = logging.getLogger("dsh.hooks.claude")

CLAUDE_PROFILE_NAME = "claude"
"""The profile's name: its scopes are ``claude-hooks`` and ``claude-instructions``."""


@final
@frozen
class ClaudeCodeMount:
    """What the profile found for one project: the catalog, and the plugins to mount."""

    catalog: Catalog
    hooks: ClaudeHooksPlugin | None
    instructions: ClaudeInstructionsPlugin | None
    diagnostics: tuple[str, ...]


@final
@frozen(kw_only=True)
class ClaudeCodeProfile:
    """Claude Code's hooks and instructions files, as ``dsh run`` loads them.

    ``settings_files`` are ``--settings`` arguments (a path or inline JSON) and
    ``plugin_roots`` plugin directories loaded as enabled (hooks, commands, skills); ``home``,
    ``managed_path``, ``env`` and ``discover_installed_plugins`` are
    ``load_catalog``'s (default: the real ones). ``catalog``, when given, is used
    as it is, nothing discovered. ``permission_mode`` is what hooks are sent
    (``default`` fires PermissionRequest); ``transcript_dir`` is where the
    transcripts hooks read are written (default: dsh's data dir). ``effort``
    is the hooks' ``effort.level`` / ``CLAUDE_EFFORT``; ``attended`` says a
    person is at the terminal (``CLAUDE_CODE_SESSION_ATTENDED=1``; headless: 0).
    ``instructions`` loads ``CLAUDE.md`` and its family into each root
    session's context, from ``instructions_config_dir`` and
    ``instructions_managed_dir`` (default: Claude Code's own).
    """

    settings_files: Sequence[str | Path] = ()
    plugin_roots: Sequence[Path | str | PluginRoot] = ()
    home: Path | None = None
    managed_path: Path | None = None
    env: Mapping[str, str] | None = None
    discover_installed_plugins: bool = True
    catalog: Catalog | None = None
    permission_mode: PermissionMode = "default"
    transcript_dir: Path | None = None
    effort: str | None = EFFORT_LEVEL
    attended: bool = False
    instructions: bool = True
    instructions_config_dir: Path | None = None
    instructions_managed_dir: Path | None = None

    @property
    def name(self) -> str:
        return CLAUDE_PROFILE_NAME

    def load(self, project: Path, /) -> ClaudeCodeMount:
        """The project's catalog and what to mount for it; bad settings are diagnostics."""
        # By their public names, once the package is loaded (it imports this module).
        from dsh.hooks.claude import claude_hooks_plugin, load_catalog, load_commands

        catalog = self.catalog
        if catalog is None:
            catalog = load_catalog(
                project,
                settings_files=self.settings_files,
                plugin_roots=self.plugin_roots,
                home=self.home,
                managed_path=self.managed_path,
                env=self.env,
                discover_installed_plugins=self.discover_installed_plugins,
            )
        env = self.env if self.env is not None else os.environ
        configured = env.get("CLAUDE_CONFIG_DIR")
        commands = load_commands(
            project,
            home=self.home,
            plugin_roots=_plugin_dirs(self.plugin_roots, catalog),
            config_dir=Path(configured).expanduser() if configured else None,
        )
        hooks = (
            claude_hooks_plugin(
                catalog,
                permission_mode=self.permission_mode,
                transcript_dir=self.transcript_dir,
                effort=self.effort,
                attended=self.attended,
                commands=commands,
            )
            if catalog.all_hooks() or commands.commands
            else None
        )
        instructions = None
        if self.instructions:
            from dsh.instructions import claude_instructions_plugin

            instructions = claude_instructions_plugin(
                config_dir=self.instructions_config_dir,
                managed_dir=self.instructions_managed_dir,
            )
        # Only what skips a suite is shown on a run: what dsh merely notes (a field it
        # ignores, an event it lacks) goes to the log and to `dsh hooks check`.
        diagnostics = tuple(d.describe() for d in catalog.diagnostics if d.severity == "error")
        for note in (d.describe() for d in catalog.diagnostics if d.severity != "error"):
            logger.info("claude hooks: %s (dsh hooks check lists it)", note)
        for line in commands.diagnostics:
            logger.info("claude commands: %s", line)
        return ClaudeCodeMount(catalog, hooks, instructions, diagnostics)


def _plugin_dirs(given: Sequence[Path | str | PluginRoot], catalog: Catalog) -> list[Path]:
    """The plugin folders commands and skills come from: those given, then the catalog's."""
    dirs = [Path(p) if isinstance(p, Path | str) else p.root for p in given]
    for entry in catalog.sources:
        root = entry.source.plugin_root
        if root is not None and entry.status == "loaded" and root not in dirs:
            dirs.append(root)
    return dirs
