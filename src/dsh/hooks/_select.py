"""Which hook bridges a session mounts, and how: the one place ``dsh run`` and ``dsh acp`` share.

``hooks`` picks the bridges (``claude``, ``codex``, ``both``); without it,
whatever the project has: ``.codex/`` alone means Codex's, ``.claude/`` and
``.codex/`` both, otherwise Claude Code's. With both, the Claude Code bridge is
mounted first, so on every seam its hooks run before Codex's; each suite keeps
its own rules, payloads and wording. The bridges are imported only when
mounted: a run without hooks never pays for importing them.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.context import Plugin

if TYPE_CHECKING:
    from dsh.hooks.claude import ClaudeCodeProfile, PermissionMode
    from dsh.hooks.codex import CodexProfile

__all__ = [
    "BRIDGE_CHOICES",
    "BridgeMounts",
    "HookSelection",
    "HooksChoice",
    "bridges_for",
    "mount_bridges",
]

HooksChoice: TypeAlias = Literal["claude", "codex", "both"]
BRIDGE_CHOICES: Final = ("claude", "codex", "both")


def bridges_for(
    project: Path, choice: HooksChoice | None, *, codex_profile: str | None = None
) -> frozenset[str]:
    """The bridges to mount: ``choice``'s, else the ones the project has folders for.

    Hooks in the user's ``$CODEX_HOME`` (``hooks.json``, a ``[hooks]`` table in
    ``config.toml``, or in the profile's ``NAME.config.toml`` when ``codex_profile``,
    else ``$DSH_CODEX_PROFILE``, names one) mount the Codex bridge too: they are the
    user's own, and Codex runs them in every project (once trusted, as Codex trusts
    them: ``dsh hooks trust``).
    """
    if choice == "both":
        return frozenset({"claude", "codex"})
    if choice is not None:
        return frozenset({choice})
    has_codex = (project / ".codex").is_dir()
    has_claude = (project / ".claude").is_dir()
    if has_codex and has_claude:
        return frozenset({"claude", "codex"})
    if has_codex:
        return frozenset({"codex"})
    if _user_codex_hooks(profile=codex_profile):
        return frozenset({"claude", "codex"})
    return frozenset({"claude"})


# Compiled when first asked (``--hooks`` not given, no ``.codex/`` in the project).
@functools.cache
def _hooks_table() -> re.Pattern[bytes]:
    return re.compile(rb"^[ \t]*(\[\[?[ \t]*hooks\b|hooks[ \t]*[.=])", re.MULTILINE)


def _user_codex_hooks(env: Mapping[str, str] | None = None, *, profile: str | None = None) -> bool:
    """Whether the user's Codex home (``$CODEX_HOME``, else ``~/.codex``) declares hooks, in
    its ``config.toml`` or in the chosen profile's file (a name Codex would refuse is read
    as none: the command line refuses it in words)."""
    environ = os.environ if env is None else env
    configured = environ.get("CODEX_HOME")
    home = Path(configured).expanduser() if configured else Path.home() / ".codex"
    if (home / "hooks.json").is_file():
        return True
    files = ["config.toml"]
    if name := profile or environ.get("DSH_CODEX_PROFILE", ""):
        import contextlib

        from dsh.models._codex_layers import check_profile_name  # only with a profile

        with contextlib.suppress(ValueError):  # refused in words by the command line
            files.append(f"{check_profile_name(name)}.config.toml")
    return any(_declares_hooks(home / file) for file in files)


def _declares_hooks(config: Path) -> bool:
    try:
        with open(config, "rb") as f:
            text = f.read(1 << 20)
    except OSError:
        return False
    return _hooks_table().search(text) is not None


@final
@frozen(kw_only=True)
class HookSelection:
    """What a session's command line (or an ACP server's) says about hooks and instructions.

    ``claude_hooks`` off leaves Claude Code's discovered hooks out (``--settings``
    files and ``plugin_dirs`` still load); ``permission_mode`` ``None`` means the
    settings' ``defaultMode``; ``attended`` says a person can answer (a PreToolUse
    ``ask`` then fires PermissionRequest); ``bypass_hook_trust`` runs untrusted
    Codex hooks, as Codex's ``--dangerously-bypass-hook-trust``; ``refuse_untrusted``
    makes an untrusted Claude Code project hook or plugin stop the session from
    opening (``UntrustedHooksError``) instead of being left out (a headless ``dsh run``:
    Codex's rule, skipping them, stands).
    """

    hooks: HooksChoice | None = None
    claude_hooks: bool = True
    settings_files: Sequence[str] = ()
    plugin_dirs: Sequence[Path] = ()
    permission_mode: PermissionMode | None = None
    add_dirs: Sequence[Path] = field(default_factory=tuple)
    claude_md: bool = True
    attended: bool = False
    bypass_hook_trust: bool = False
    refuse_untrusted: bool = False
    mcp_config: Sequence[str] = ()
    """``--mcp-config`` files or inline JSON (Claude Code's MCP servers, ``dsh.mcp``)."""
    strict_mcp_config: bool = False
    """``--strict-mcp-config``: the ``mcp_config`` servers alone."""
    codex_profile: str | None = None
    """Codex's ``--profile NAME``: its ``NAME.config.toml`` is one of the Codex bridge's layers."""


@final
@frozen
class BridgeMounts:
    """The profiles to mount (Claude Code's first), and plugins mounted without a bridge."""

    profiles: tuple[ClaudeCodeProfile | CodexProfile, ...]
    plugins: tuple[Plugin, ...]


def mount_bridges(project: Path, selection: HookSelection) -> BridgeMounts:
    """The bridges ``selection`` asks for in ``project``, as profiles a host mounts."""
    bridges = bridges_for(project, selection.hooks, codex_profile=selection.codex_profile)
    profiles: list[ClaudeCodeProfile | CodexProfile] = []
    plugins: list[Plugin] = []
    claude = selection.claude_hooks and "claude" in bridges
    if claude or selection.settings_files or selection.plugin_dirs or selection.mcp_config:
        from dsh.hooks.claude import ClaudeCodeProfile

        profiles.append(
            ClaudeCodeProfile(
                settings_files=tuple(selection.settings_files),
                plugin_roots=tuple(selection.plugin_dirs),
                permission_mode=selection.permission_mode,
                add_dirs=tuple(selection.add_dirs),
                instructions=selection.claude_md,
                attended=selection.attended,
                refuse_untrusted=selection.refuse_untrusted,
                discovered_hooks=claude,
                mcp_config=tuple(selection.mcp_config),
                strict_mcp_config=selection.strict_mcp_config,
            )
        )
    elif selection.claude_md and "claude" in bridges:
        # The profile lives in the bridge's package: a run with no hooks loads
        # CLAUDE.md without importing the bridge (~16 ms of start-up). A Codex-only run
        # (`--hooks codex`, a project with .codex/ alone) reads Codex's AGENTS.md files
        # instead, through its profile and the project's trust, as Codex does: never
        # CLAUDE.md, which Codex does not read.
        from dsh.instructions import claude_instructions_plugin

        plugins.append(claude_instructions_plugin())
    if "codex" in bridges:
        from dsh.hooks.codex import CodexProfile

        profiles.append(
            CodexProfile(
                bypass_trust=selection.bypass_hook_trust,
                config_profile=selection.codex_profile,
            )
        )
    return BridgeMounts(tuple(profiles), tuple(plugins))
