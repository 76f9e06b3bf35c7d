"""The ``Permissions:`` section of ``dsh hooks check`` and of ``/hooks``: mode, rules, directories.

Every rule is listed with its behaviour and the file it came from, in the order
Claude Code applies them (deny, then ask, then allow). ``dsh hooks check``
shows the settings' (``permission_lines``: the mode is their ``defaultMode``,
what ``dsh run`` uses without ``--permission-mode``); ``/hooks`` shows the
running session's (``session_lines``: the mode in force and who set it, every
working directory and rule with where it came from, the updates a
PermissionRequest answer made included).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dsh.hooks.claude.permissions._plugin import PermissionState
    from dsh.hooks.claude.settings._permissions import PermissionSettings, RuleEntry

__all__ = ["permission_lines", "session_lines"]


def permission_lines(settings: PermissionSettings, project: Path) -> list[str]:
    """The report's lines for ``settings`` (a project's merged ``permissions``)."""
    if settings.default_mode is not None:
        mode = f"{settings.default_mode} (defaultMode in {settings.default_mode_source})"
    else:
        mode = "default (no defaultMode set; dsh run --permission-mode overrides)"
    lines = ["", "Permissions:", f"  mode: {mode}"]
    if settings.bypass_disabled_by is not None:
        lines.append(
            f"  bypassPermissions disabled by disableBypassPermissionsMode in"
            f" {settings.bypass_disabled_by}"
        )
    if settings.managed_rules_only:
        lines.append("  only managed rules apply (allowManagedPermissionRulesOnly)")
    lines.append("  working directories:")
    lines.append(f"    {project} (project)")
    lines += [f"    {d.path} (additionalDirectories in {d.source})" for d in settings.directories]
    return lines + _rule_lines(settings.rules)


def session_lines(state: PermissionState) -> list[str]:
    """The running session's permissions: what ``/hooks`` shows."""
    lines = ["Permissions (this session):", f"  mode: {state.mode} ({state.mode_source})"]
    lines.append("  working directories:")
    lines += [f"    {d.path} ({_directory_source(d.source)})" for d in state.directories]
    return lines + _rule_lines(state.rules)


def _rule_lines(rules: Sequence[RuleEntry]) -> list[str]:
    lines = ["  rules (deny, then ask, then allow, then the mode):"]
    if not rules:
        lines.append("    (none)")
    for behavior in ("deny", "ask", "allow"):
        lines += [
            f"    {e.behavior:<5} {e.rule.declared}  [{e.scope}: {e.source}]"
            for e in rules
            if e.behavior == behavior
        ]
    return lines


def _directory_source(source: str) -> str:
    if source in ("project", "--add-dir", "session"):
        return source
    if source in ("slash_command", "register_repo_root"):
        return f"added: {source}"
    return f"additionalDirectories in {source}"
