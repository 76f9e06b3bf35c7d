"""The catalog report: what ``dsh hooks check`` prints.

Every source found, every declaration admitted or diagnosed, the settings'
``Permissions:`` section (``permission_lines``: the mode is their ``defaultMode``,
what ``dsh run`` uses without ``--permission-mode``; every rule with its behaviour
and the file it came from, in the order Claude Code applies them: deny, then ask,
then allow), the diagnostics and the support tag of each declared event.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from dsh.hooks.claude.events._support import HOOK_EVENT_HOST_SUPPORT

if TYPE_CHECKING:
    from dsh.hooks.claude.rules._values import PermissionSettings, RuleEntry
    from dsh.hooks.claude.settings._types import Catalog

__all__ = ["permission_lines", "render_report", "rule_lines"]


def _support_tag(event: str) -> str:
    row = HOOK_EVENT_HOST_SUPPORT.get(event)
    if row is None:
        return "unknown event"
    return row.status if row.status == "not-supported" else f"{row.status} on {row.seam}"


def render_report(catalog: Catalog) -> str:
    """Every source found; every declaration admitted or diagnosed; the tag per event."""
    lines = [f"Claude Code hooks for {catalog.project_dir}", "", "Sources:"]
    if not catalog.sources:
        lines.append("  (none found)")
    for entry in catalog.sources:
        src = entry.source
        plugin = f" [plugin {src.plugin}]" if src.plugin is not None else ""
        if entry.status == "loaded":
            state = f"loaded, {entry.admitted} hook(s) admitted"
        else:
            state = f"{entry.status}: {entry.note}"
        lines.append(f"  {src.kind:<8} {src.label}{plugin}: {state}")

    lines += ["", "Admitted hooks:"]
    if not catalog.hooks:
        lines.append("  (none)")
    for event, hooks in catalog.hooks.items():
        lines.append(f"  {event} ({_support_tag(event)}):")
        for h in hooks:
            extras = [f"matcher {h.matcher.describe()}", f"timeout {h.timeout:g}s"]
            if h.if_rule is not None:
                extras.append(f"if {h.if_rule.declared!r}")
            if h.run_async:
                extras.append("async")
            if h.on_failure == "block":
                extras.append("onFailure block")
            lines.append(f"    [{h.group_index}][{h.hook_index}] {h.source.label}")
            lines.append(f"        {' '.join(h.argv)!s}")
            lines.append(f"        {', '.join(extras)}")

    lines += permission_lines(catalog.permissions, catalog.project_dir)

    lines += ["", "Diagnostics:"]
    if not catalog.diagnostics:
        lines.append("  (none)")
    lines += [f"  {d.describe()}" for d in catalog.diagnostics]

    declared = sorted(
        {h.event for h in catalog.all_hooks()}
        | {d.event for d in catalog.diagnostics if d.event is not None}
    )
    lines += ["", "Event support:"]
    if not declared:
        lines.append("  (no events declared)")
    lines += [f"  {event}: {_support_tag(event)}" for event in declared]

    errors, warnings = len(catalog.errors), len(catalog.warnings)
    status = "ok" if catalog.ok else "not ok"
    lines += ["", f"{status}: {errors} error(s), {warnings} warning(s)"]
    return "\n".join(lines) + "\n"


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
    return lines + rule_lines(settings.rules)


def rule_lines(rules: Sequence[RuleEntry]) -> list[str]:
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
