"""Codex's sandbox keys in its ``config.toml`` layers: ``sandbox_mode``, ``approval_policy``,
``[sandbox_workspace_write]``, read as Codex 0.171 reads them (a value it would refuse is a
diagnostic, and the key is then what the layers below say).

Without ``sandbox_mode`` (which wins, as in Codex), a **permission profile** may give the
sandbox: ``default_permissions`` names a built-in (``:read-only``, ``:workspace``,
``:danger-no-sandbox``) or a ``[permissions.NAME]`` table, of which dsh reads ``extends``
(one of those built-ins, or none), its filesystem rules (``_profile_fs``) and
``[permissions.NAME.network]``: ``enabled = true`` opens the
network, and with Codex's proxy on (``[features] network_proxy = true``, or its table's
``enabled``) ``domains`` (``"example.com" = "allow"`` or ``"deny"``) is the domain filter,
as Codex 0.171's own proxy applies it (seen with ``codex sandbox``: an allowed name
answered, another refused with ``403`` and ``x-proxy-error: blocked-by-allowlist``; without
``enabled``, no network at all)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dsh.base import FrozenDict
from dsh.hooks.codex.config._types import CodexDiagnostic

if TYPE_CHECKING:
    from dsh.base._sandbox import SandboxPolicy

__all__ = ["codex_sandbox", "profile_sandbox", "sandbox_table"]

_SANDBOX_MODES: Final = ("read-only", "workspace-write", "danger-full-access")
_APPROVAL_POLICIES: Final = ("untrusted", "on-failure", "on-request", "never")
_WORKSPACE_WRITE: Final = {
    "writable_roots": list,
    "network_access": bool,
    "exclude_tmpdir_env_var": bool,
    "exclude_slash_tmp": bool,
}


def sandbox_table(
    configs: Sequence[tuple[Path, Mapping[str, Any] | None]], diagnostics: list[CodexDiagnostic]
) -> FrozenDict:
    """``sandbox_mode``, ``approval_policy`` and ``[sandbox_workspace_write]`` as the layers
    set them (a key of a higher layer wins); a value Codex would refuse is a diagnostic and
    is not used (the sandbox is then what the layers below say)."""
    merged: dict[str, Any] = {}
    for path, config in configs:
        if not isinstance(config, Mapping):
            continue
        _profile_keys(config, merged)
        for key, allowed in (
            ("sandbox_mode", _SANDBOX_MODES),
            ("approval_policy", _APPROVAL_POLICIES),
        ):
            if key in config and config[key] in allowed:
                merged[key] = config[key]
            elif key in config:
                reason = f"{key} = {config[key]!r} is not one of {', '.join(allowed)}: not used"
                diagnostics.append(
                    CodexDiagnostic(source=str(path), reason=reason, severity="error")
                )
        table = config.get("sandbox_workspace_write")
        if table is None:
            continue
        problem = _workspace_write_problem(table)
        if problem is not None:
            reason = f"[sandbox_workspace_write]: {problem}; the table is not used"
            diagnostics.append(CodexDiagnostic(source=str(path), reason=reason, severity="error"))
            continue
        merged["sandbox_workspace_write"] = FrozenDict(
            {**merged.get("sandbox_workspace_write", {}), **table}
        )
    if "sandbox_mode" not in merged:
        profile_sandbox(merged, diagnostics)  # what of a profile dsh does not read, said once
    return FrozenDict(merged)


def _workspace_write_problem(table: Any) -> str | None:
    if not isinstance(table, Mapping):
        return "not a table"
    for key, value in table.items():
        kind = _WORKSPACE_WRITE.get(key)
        if kind is None:
            return f"unknown key {key!r}"
        if not isinstance(value, kind):
            return f"{key} is not a {'list' if kind is list else 'boolean'}"
        if isinstance(value, list) and not all(
            isinstance(p, str) and os.path.isabs(p) for p in value
        ):
            return "writable_roots holds a path that is not absolute"
    return None


_BUILT_IN: Final = {
    ":read-only": "read-only",
    ":workspace": "workspace-write",
    ":danger-no-sandbox": "danger-full-access",
    ":danger-full-access": "danger-full-access",
}


def _profile_keys(config: Mapping[str, Any], merged: dict[str, Any]) -> None:
    """``default_permissions``, ``[permissions]`` and the ``network_proxy`` feature of one
    layer into ``merged`` (a higher layer's key wins)."""
    if isinstance(config.get("default_permissions"), str):
        merged["default_permissions"] = config["default_permissions"]
    profiles = config.get("permissions")
    if isinstance(profiles, Mapping):
        merged["permissions"] = FrozenDict({**merged.get("permissions", {}), **profiles})
    features = config.get("features")
    proxy = features.get("network_proxy") if isinstance(features, Mapping) else None
    if isinstance(proxy, Mapping):
        proxy = proxy.get("enabled")
    if isinstance(proxy, bool):
        merged["network_proxy"] = proxy


def profile_sandbox(
    table: Mapping[str, Any],
    diagnostics: list[CodexDiagnostic] | None = None,
    project: Path | None = None,
) -> dict[str, Any] | None:
    """The ``SandboxPolicy`` fields of the permission profile ``default_permissions`` names
    (its mode, filesystem rules, network): ``None`` for none, or one dsh cannot read."""
    name = table.get("default_permissions")
    if not isinstance(name, str):
        return None
    if name in _BUILT_IN:
        return {"mode": _BUILT_IN[name]}
    profile = (table.get("permissions") or {}).get(name)
    extends = profile.get("extends") if isinstance(profile, Mapping) else None
    if not isinstance(profile, Mapping) or (extends is not None and extends not in _BUILT_IN):
        if diagnostics is not None:
            reason = (
                f"default_permissions = {name!r}: dsh reads a profile that extends one of"
                f" {', '.join(_BUILT_IN)}, or none; no sandbox from it"
            )
            diagnostics.append(CodexDiagnostic(source="config.toml", reason=reason))
        return None
    fields: dict[str, Any] = {"mode": "danger-full-access"}
    if extends is None or _BUILT_IN[extends] != "danger-full-access":
        from dsh.hooks.codex.config._profile_fs import profile_filesystem

        fields = profile_filesystem(name, profile, project or Path.cwd(), diagnostics)
    network = profile.get("network")
    network = network if isinstance(network, Mapping) else {}
    if network.get("enabled") is not True:
        return fields
    domains = network.get("domains")
    domains = domains if isinstance(domains, Mapping) else {}
    if table.get("network_proxy") is True:
        fields["allowed_domains"] = tuple(d for d, v in domains.items() if v == "allow")
        fields["denied_domains"] = tuple(d for d, v in domains.items() if v == "deny")
        return fields
    return fields | {"network_access": True}


def codex_sandbox(table: Mapping[str, Any], project: Path | None = None) -> SandboxPolicy | None:
    """The sandbox the layers' keys describe (``None``: neither ``sandbox_mode`` nor a
    permission profile sets one); a profile's workspace rules are ``project``'s (the current
    directory when none is given)."""
    mode = table.get("sandbox_mode")
    if mode not in _SANDBOX_MODES:
        profile = profile_sandbox(table, project=project)
        if profile is None:
            return None
        from dsh.base._sandbox import SandboxPolicy

        return SandboxPolicy(
            **profile,
            source=f"Codex config.toml default_permissions = {table['default_permissions']!r}",
            allow_unsandboxed=table.get("approval_policy") == "on-request",
        )
    from dsh.base._sandbox import SandboxPolicy  # only when a layer sets a mode

    write = table.get("sandbox_workspace_write") or {}
    return SandboxPolicy(
        mode=mode,
        writable_roots=tuple(Path(p) for p in write.get("writable_roots", ())),
        network_access=write.get("network_access") is True,
        exclude_tmpdir_env_var=write.get("exclude_tmpdir_env_var") is True,
        exclude_slash_tmp=write.get("exclude_slash_tmp") is True,
        source="Codex config.toml",
        allow_unsandboxed=table.get("approval_policy") == "on-request",
    )
