"""A Claude Code mount: what ``ClaudeCodeProfile.load`` hands a host for one project.

``ClaudeCodeMount`` is the value (the catalog, the plugins to mount, the diagnostics, the
settings' ``env``, the MCP servers, the Stop-block cap); the functions below are the plain
steps ``_profile`` takes on a catalog to assemble one (the plugins it loaded, the folders
commands come from, the hooks ``--no-claude-hooks`` keeps, the lines a run shows).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from dsh._frozen import frozen
from dsh.hooks.claude._compact_prompt import SUMMARY_ASK

if TYPE_CHECKING:
    from dsh.agent import AgentOptions
    from dsh.base._sandbox import SandboxPolicy
    from dsh.hooks.claude.permissions._plugin import ClaudePermissionsPlugin
    from dsh.hooks.claude.runtime._bridge import ClaudeHooksPlugin
    from dsh.hooks.claude.runtime._left_out_log import LeftOutLog
    from dsh.hooks.claude.settings._agents import AgentSet
    from dsh.hooks.claude.settings._catalog import PluginRoot
    from dsh.hooks.claude.settings._commands import CommandSet
    from dsh.hooks.claude.settings._types import Catalog
    from dsh.hooks.claude.trust._mount import GatedMount
    from dsh.instructions import ClaudeInstructionsPlugin
    from dsh.mcp import McpServer

__all__ = [
    "ClaudeCodeMount",
    "given_hooks_only",
    "loaded_plugins",
    "logged_diagnostics",
    "plugin_dirs",
    "skipped_log",
]

logger = logging.getLogger("dsh.hooks.claude")


@final
@frozen
class ClaudeCodeMount:
    """What the profile found for one project: the catalog, and the plugins to mount.

    ``permissions`` is the permission policy (mounted after ``hooks`` by the host,
    so PreToolUse hooks run before the permission check).
    """

    catalog: Catalog
    hooks: ClaudeHooksPlugin | None
    instructions: ClaudeInstructionsPlugin | None
    diagnostics: tuple[str, ...]
    permissions: ClaudePermissionsPlugin | None = None
    environment: Mapping[str, Any] | None = None
    """The settings' ``env`` as the environment policy's ``set`` (``dsh.host`` layers it)."""
    mcp_servers: tuple[McpServer, ...] = ()
    """The MCP servers Claude Code's configuration declares (a project's only once trusted)."""
    skipped_log: LeftOutLog | None = None
    """When ``hooks`` is ``None`` though hooks were declared (every one left out): what logs
    each as a ``hook/skipped`` at the session's start (``dsh log ID --hooks --why``)."""
    stop_block_cap: int | None = None
    """``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`` as 2.1.332 reads it (``None``: unset, the default)."""

    def agent_options(self, options: AgentOptions) -> AgentOptions:
        """An agent's ``options`` as Claude Code's environment has them (``dsh.host`` applies it
        to every agent): ``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`` as the continuation cap, 0 or below
        none but the step limit (``dsh.hooks.claude._block_cap``); a compaction's summary asked
        for as 2.1.332 asks (``dsh.hooks.claude._compact_prompt``)."""
        options = replace(options, summary_ask=SUMMARY_ASK)
        cap = self.stop_block_cap
        if cap is None:
            return options
        return replace(options, continuation_cap=cap if cap > 0 else options.max_steps)

    @property
    def sandbox(self) -> SandboxPolicy | None:
        """The settings' ``sandbox`` (enabled): ``dsh.host`` runs the model's commands in it
        when dsh's own configuration names none."""
        return self.catalog.sandbox


def skipped_log(gated: GatedMount) -> LeftOutLog | None:
    """What logs the hooks a run left out when it loads none (``None``: none declared)."""
    if not (gated.declared.all_hooks() or gated.declared.diagnostics):
        return None  # the plain path (no hooks declared) imports nothing more
    from dsh.hooks.claude.runtime._left_out_log import LeftOutLog
    from dsh.hooks.claude.trust._left_out import left_out_selections

    left_out = left_out_selections(gated.declared, gated.review)
    return LeftOutLog(left_out) if left_out else None


def loaded_plugins(catalog: Catalog) -> dict[str, Path]:
    """Each plugin whose files the catalog loaded, by id, and its root."""
    return {
        e.source.plugin: e.source.plugin_root
        for e in catalog.sources
        if e.source.plugin is not None and e.source.plugin_root is not None and e.status == "loaded"
    }


def plugin_dirs(given: Sequence[Path | str | PluginRoot], catalog: Catalog) -> list[Path]:
    """The plugin folders commands and skills come from: those given, then the catalog's."""
    dirs = [Path(p) if isinstance(p, Path | str) else p.root for p in given]
    for entry in catalog.sources:
        root = entry.source.plugin_root
        if root is not None and entry.status == "loaded" and root not in dirs:
            dirs.append(root)
    return dirs


def given_hooks_only(catalog: Catalog) -> Catalog:
    """``catalog`` with only the hooks of ``--settings`` files and ``--plugin-dir`` roots."""
    import dataclasses

    from dsh.base import FrozenDict

    kept = {
        event: tuple(h for h in hooks if h.source.kind in ("cli", "plugin"))
        for event, hooks in catalog.hooks.items()
    }
    return dataclasses.replace(catalog, hooks=FrozenDict({e: h for e, h in kept.items() if h}))


def logged_diagnostics(catalog: Catalog, agents: AgentSet, commands: CommandSet) -> tuple[str, ...]:
    """The lines a run shows: only what skips a suite (an error). What dsh merely notes (a
    field it ignores, an event it lacks) goes to the log and to ``dsh hooks check``."""
    diagnostics = tuple(d.describe() for d in catalog.diagnostics if d.severity == "error")
    for note in (d.describe() for d in catalog.diagnostics if d.severity != "error"):
        logger.info("claude hooks: %s (dsh hooks check lists it)", note)
    for line in commands.diagnostics:
        logger.info("claude commands: %s", line)
    return diagnostics + tuple(d.describe() for d in agents.diagnostics if d.severity == "error")
