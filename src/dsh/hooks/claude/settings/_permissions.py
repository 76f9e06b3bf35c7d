"""Claude Code's ``permissions`` settings, read from every settings scope into one value.

``read_permissions`` takes the settings files discovery read (user, project,
local, ``--settings``, managed) and returns ``PermissionSettings``: every
``allow``, ``deny`` and ``ask`` rule with the file it came from (rules add up
across scopes; ``deny`` wins over ``ask`` over ``allow`` whatever the scope),
``defaultMode`` by settings precedence (managed, command line, local, project,
user; a project's or local file's ``bypassPermissions`` is never applied, as
Claude Code never applies it), ``additionalDirectories`` from every scope,
and the managed-only keys:
``allowManagedPermissionRulesOnly`` (only managed rules count) and
``disableBypassPermissionsMode: "disable"`` (honoured from any scope, as Claude
Code does). A malformed rule or value is a warning naming the file; the rest
of the block still applies.
"""

from __future__ import annotations

import os.path
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from dsh.hooks.claude.rules._grammar import RuleError, parse_rule, rule_root
from dsh.hooks.claude.rules._modes import PermissionMode
from dsh.hooks.claude.rules._values import (
    BEHAVIORS,
    PERMISSION_MODES,
    PermissionSettings,
    RuleEntry,
    WorkingDirectory,
    parse_mode,
)
from dsh.hooks.claude.settings._sources import SCALAR_PRECEDENCE, Diagnostics, ReadSettings
from dsh.hooks.claude.settings._types import HookSource

__all__ = ["directory_path", "read_permissions", "settings_root"]

MAX_RULES: Final = 10_000
_PROJECT_KINDS: Final = frozenset({"project", "local"})
_PROJECT_BYPASS: Final = (
    "`permissions.defaultMode` bypassPermissions is not applied from a project's settings"
    " (as Claude Code 2.1.332, trusted or not); set it in user settings or pass"
    " --permission-mode bypassPermissions"
)


def settings_root(source: HookSource, fallback: Path) -> Path:
    """What a ``/path`` rule is relative to: the directory holding the file's ``.claude``
    (the project for project and local settings), else the file's own directory."""
    return rule_root(source.path, fallback)


def read_permissions(
    settings: Sequence[ReadSettings], project: Path, home: Path, diags: Diagnostics
) -> PermissionSettings:
    """The effective permissions of ``settings`` (as discovery read them, in its order)."""
    readable = [
        (s.file.source, s.file.data) for s in settings if s.model is not None and s.file.data
    ]
    managed_only = any(
        _block(data).get("allowManagedPermissionRulesOnly") is True
        or data.get("allowManagedPermissionRulesOnly") is True
        for source, data in readable
        if source.kind == "managed"
    )
    rules: list[RuleEntry] = []
    directories: list[WorkingDirectory] = []
    mode: tuple[int, int, PermissionMode, str] | None = None
    bypass_disabled_by: str | None = None
    for index, (source, data) in enumerate(readable):
        raw = data.get("permissions")
        if raw is None:
            continue
        if not isinstance(raw, dict):
            diags.add(source, "warning", "bad-rule", "`permissions` must be an object; ignored")
            continue
        if not managed_only or source.kind == "managed":
            rules.extend(_rules(raw, source, project, diags))
        directories.extend(_directories(raw, source, project, home, diags))
        declared = raw.get("defaultMode")
        if declared is not None:
            parsed = parse_mode(declared)
            if parsed is None:
                diags.add(
                    source,
                    "warning",
                    "bad-rule",
                    f"`permissions.defaultMode` {declared!r} is not one of"
                    f" {', '.join(PERMISSION_MODES)}; ignored",
                )
            elif parsed == "bypassPermissions" and source.kind in _PROJECT_KINDS:
                diags.add(source, "info", "policy", _PROJECT_BYPASS)
            else:
                # Highest precedence first; among equals (--settings files) the later wins.
                rank = (SCALAR_PRECEDENCE[source.kind], -index, parsed, source.label)
                if mode is None or rank[:2] < mode[:2]:
                    mode = rank
        if raw.get("disableBypassPermissionsMode") == "disable":
            bypass_disabled_by = bypass_disabled_by or source.label
    if managed_only:
        for source, data in readable:
            if source.kind != "managed" and _block(data).get("allow", _block(data).get("deny")):
                diags.add(
                    source,
                    "info",
                    "policy",
                    "permission rules not applied: managed settings set"
                    " `allowManagedPermissionRulesOnly`",
                )
    return PermissionSettings(
        rules=tuple(rules),
        default_mode=mode[2] if mode is not None else None,
        default_mode_source=mode[3] if mode is not None else None,
        directories=tuple(directories),
        managed_rules_only=managed_only,
        bypass_disabled_by=bypass_disabled_by,
    )


def _block(data: Mapping[str, Any]) -> Mapping[str, Any]:
    raw = data.get("permissions")
    return raw if isinstance(raw, dict) else {}


def _rules(
    raw: Mapping[str, Any], source: HookSource, project: Path, diags: Diagnostics
) -> list[RuleEntry]:
    out: list[RuleEntry] = []
    root = settings_root(source, project)
    for behavior in BEHAVIORS:
        listed = raw.get(behavior)
        if listed is None:
            continue
        if not isinstance(listed, list):
            diags.add(
                source, "warning", "bad-rule", f"`permissions.{behavior}` must be a list; ignored"
            )
            continue
        for i, text in enumerate(listed[:MAX_RULES]):
            try:
                rule = parse_rule(text, root=root)
            except RuleError as exc:
                diags.add(
                    source,
                    "warning",
                    "bad-rule",
                    f"`permissions.{behavior}[{i}]`: {exc}; the rule is ignored",
                )
                continue
            out.append(
                RuleEntry(rule=rule, behavior=behavior, source=source.label, scope=source.kind)
            )
    return out


def _directories(
    raw: Mapping[str, Any], source: HookSource, project: Path, home: Path, diags: Diagnostics
) -> list[WorkingDirectory]:
    listed = raw.get("additionalDirectories")
    if listed is None:
        return []
    if not isinstance(listed, list) or not all(isinstance(d, str) and d for d in listed):
        diags.add(
            source,
            "warning",
            "bad-rule",
            "`permissions.additionalDirectories` must be a list of paths; ignored",
        )
        return []
    root = settings_root(source, project)
    out: list[WorkingDirectory] = []
    for text in listed[:MAX_RULES]:
        if "\x00" in text:
            diags.add(source, "warning", "bad-rule", "a NUL in `additionalDirectories`; ignored")
            continue
        normal = directory_path(text, root, home)
        out.append(WorkingDirectory(path=normal, source=source.label, scope=source.kind))
    return out


def directory_path(text: str, root: Path, home: Path) -> Path:
    """An ``additionalDirectories`` entry as a path: ``~/`` from ``home``, a relative one
    from the settings file's ``root``, normalised."""
    path = Path(home / text[2:]) if text == "~" or text.startswith("~/") else Path(text)
    if not path.is_absolute():
        path = root / path
    return Path(os.path.normpath(path))
