"""The keys beside the hooks in Codex's ``config.toml`` layers, read in one pass.

``layer_keys`` takes each layer's parsed ``config.toml`` (lowest precedence first; a layer
that is absent, refused or unreadable is ``None``) and gives what dsh honours of them: the
approval settings as a headless run takes them, ``[shell_environment_policy]``,
``model_auto_compact_token_limit``, ``notify``, ``[mcp_servers.NAME]``, the sandbox keys and
``[otel]`` (key by key, a higher layer's winning; ``dsh.telemetry`` reads its values).
A higher layer's value wins, as in Codex 0.171. A value Codex would refuse is a
``CodexDiagnostic`` naming its file, and the key is then what the layers below say.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from dsh._frozen import frozen
from dsh.base import EnvironmentPolicy, FrozenDict
from dsh.hooks.codex.config._sandbox import sandbox_table
from dsh.hooks.codex.config._types import CodexDiagnostic, CodexPermissionMode

__all__ = ["LayerKeys", "layer_keys"]

Configs = Sequence[tuple[Path, Mapping[str, Any] | None]]


@frozen
class LayerKeys:
    """What the layers set beside their hooks (``CodexCatalog`` carries each)."""

    permission_mode: CodexPermissionMode = "bypassPermissions"
    environment: FrozenDict = field(default_factory=FrozenDict)
    compact_tokens: int | None = None
    notify: tuple[str, ...] = ()
    mcp_servers: tuple[Any, ...] = ()
    sandbox: FrozenDict = field(default_factory=FrozenDict)
    otel: FrozenDict = field(default_factory=FrozenDict)


def layer_keys(configs: Configs, diagnostics: list[CodexDiagnostic]) -> LayerKeys:
    """Every key of ``configs`` dsh honours; problems are appended to ``diagnostics``."""
    return LayerKeys(
        permission_mode=_permission_mode(configs),
        environment=_environment_table(configs, diagnostics),
        compact_tokens=_auto_compact_tokens(configs, diagnostics),
        notify=_notify(configs, diagnostics),
        mcp_servers=_mcp_servers(configs, diagnostics),
        sandbox=sandbox_table(configs, diagnostics),
        otel=_otel(configs, diagnostics),
    )


def _otel(configs: Configs, diagnostics: list[CodexDiagnostic]) -> FrozenDict:
    """``[otel]``, the layers' tables merged key by key; one that is not a table is a
    diagnostic, and not used."""
    merged: dict[str, Any] = {}
    for path, config in configs:
        if not isinstance(config, Mapping) or "otel" not in config:
            continue
        table = config["otel"]
        if not isinstance(table, Mapping):
            diagnostics.append(_error(path, f"otel: not a table: {table!r}; not used"))
            continue
        merged.update(table)
    return FrozenDict(merged)


def _error(path: Path | str, reason: str) -> CodexDiagnostic:
    return CodexDiagnostic(source=str(path), reason=reason, severity="error")


def _permission_mode(configs: Configs) -> CodexPermissionMode:
    """The approval policy a headless Codex run takes from the layers: ``codex exec`` honours
    ``on-request`` only with the automatic reviewer (``approvals_reviewer = "auto_review"``,
    seen with the 0.171 binary), else it is ``never``."""
    settings: dict[str, Any] = {}
    for _path, config in configs:
        for key in ("approval_policy", "approvals_reviewer"):
            if isinstance(config, Mapping) and key in config:
                settings[key] = config[key]
    asks = settings.get("approval_policy") == "on-request"
    reviewed = settings.get("approvals_reviewer") == "auto_review"
    return "default" if asks and reviewed else "bypassPermissions"


def _auto_compact_tokens(configs: Configs, diagnostics: list[CodexDiagnostic]) -> int | None:
    """``model_auto_compact_token_limit``; a value that is not a positive integer is a
    diagnostic, and not used."""
    found: int | None = None
    for path, config in configs:
        if not isinstance(config, Mapping) or "model_auto_compact_token_limit" not in config:
            continue
        value = config["model_auto_compact_token_limit"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            reason = f"model_auto_compact_token_limit: not a positive integer: {value!r}; not used"
            diagnostics.append(_error(path, reason))
            continue
        found = value
    return found


def _notify(configs: Configs, diagnostics: list[CodexDiagnostic]) -> tuple[str, ...]:
    """``notify``, the program Codex runs after each turn; one that is not a non-empty list of
    strings is a diagnostic and is not run."""
    chosen: object = None
    where = ""
    for path, config in configs:
        if isinstance(config, Mapping) and "notify" in config:
            chosen, where = config["notify"], str(path)
    if chosen is None:
        return ()
    if (
        not isinstance(chosen, list)
        or not chosen
        or not all(isinstance(a, str) and "\0" not in a for a in chosen)
        or not chosen[0]
    ):
        reason = "notify: not a list of strings naming a program; it is not run"
        diagnostics.append(_error(where, reason))
        return ()
    return tuple(chosen)


def _environment_table(configs: Configs, diagnostics: list[CodexDiagnostic]) -> FrozenDict:
    """The ``[shell_environment_policy]`` tables merged as Codex merges layers (a key of a
    higher layer wins; ``set`` merges by variable); a bad table is a diagnostic."""
    merged: dict[str, Any] = {}
    for path, config in configs:
        table = config.get("shell_environment_policy") if isinstance(config, Mapping) else None
        if table is None:
            continue
        try:
            if not isinstance(table, Mapping):
                raise ValueError("not a table")
            EnvironmentPolicy().layered(table, strict=False)
        except ValueError as exc:
            diagnostics.append(
                _error(path, f"[shell_environment_policy]: {exc}; the table is not used")
            )
            continue
        sets = {**merged.get("set", {}), **table.get("set", {})}
        merged.update(table)
        if sets:
            merged["set"] = sets
    return FrozenDict(merged)


def _mcp_servers(configs: Configs, diagnostics: list[CodexDiagnostic]) -> tuple[Any, ...]:
    """The ``[mcp_servers.NAME]`` tables (``dsh.mcp``), a higher layer's server of a name
    winning; a bad table is a diagnostic naming the file and the table."""
    found: dict[str, Any] = {}
    for path, config in configs:
        if not isinstance(config, Mapping) or "mcp_servers" not in config:
            continue
        from dsh.mcp import codex_mcp_servers  # only a configuration that has servers

        servers, problems = codex_mcp_servers(config, file=str(path))
        diagnostics.extend(_error(path, problem) for problem in problems)
        found.update((server.name, server) for server in servers)
    return tuple(found.values())
