"""The ``Permissions:`` section of ``dsh hooks check``: the effective mode, rules and directories.

Every rule is listed with its behaviour and the file it came from, in the order
Claude Code applies them (deny, then ask, then allow); the mode is the settings'
``defaultMode`` (what ``dsh run`` uses without ``--permission-mode``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dsh.hooks.claude._permissions import PermissionSettings

__all__ = ["permission_lines"]


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
    lines.append("  rules (deny, then ask, then allow, then the mode):")
    if not settings.rules:
        lines.append("    (none)")
    for behavior in ("deny", "ask", "allow"):
        lines += [
            f"    {e.behavior:<5} {e.rule.declared}  [{e.scope}: {e.source}]"
            for e in settings.of(behavior)
        ]
    return lines
