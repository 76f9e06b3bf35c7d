"""Codex's sandbox keys in its ``config.toml`` layers: ``sandbox_mode``, ``approval_policy``,
``[sandbox_workspace_write]``, read as Codex 0.171 reads them (a value it would refuse is a
diagnostic, and the key is then what the layers below say)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dsh.base import FrozenDict
from dsh.hooks.codex.config._types import CodexDiagnostic

if TYPE_CHECKING:
    from dsh.base._sandbox import SandboxPolicy

__all__ = ["codex_sandbox", "sandbox_table"]

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


def codex_sandbox(table: Mapping[str, Any]) -> SandboxPolicy | None:
    """The sandbox the layers' keys describe (``None``: ``sandbox_mode`` is not set)."""
    mode = table.get("sandbox_mode")
    if mode not in _SANDBOX_MODES:
        return None
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
