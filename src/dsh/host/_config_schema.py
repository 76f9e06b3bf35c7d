"""The configuration's schema: every layer (file, ``DSH_*`` variables, flags) is one ``Settings``.

One validator (``dsh._schema``: msgspec), so a layer's refusal reads as it
always has (``model: Input should be a valid string``). ``decode_layer`` gives
only the keys the layer set.
"""

# No `from __future__ import annotations`: msgspec reads a Struct's annotations as types
# (strings it would evaluate at its first decode, ~1.5 ms of a run's start-up).

import re
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from dsh._schema import SchemaError, SchemaRefusal, decode
from dsh.base import EnvironmentPolicy
from dsh.host._config_names import (
    ApprovalPolicyName,
    HookHelpersName,
    OutputFormatName,
    PermissionModeName,
    ProcessContainmentName,
    ProviderName,
    SandboxModeName,
)

__all__ = ["Settings", "WorkspaceWrite", "decode_layer"]


class WorkspaceWrite(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``[sandbox_workspace_write]``, Codex's table of that name."""

    writable_roots: tuple[str, ...] = ()
    network_access: bool = False
    exclude_tmpdir_env_var: bool = False
    exclude_slash_tmp: bool = False


class Settings(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The schema of every layer (each validated alone, so errors name their layer)."""

    model: str | None = None
    provider: ProviderName | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    permission_mode: PermissionModeName | None = None
    plugins: tuple[str, ...] = ()
    output_format: OutputFormatName | None = None
    hook_helpers: HookHelpersName | None = None
    hook_concurrency: int | None = None
    process_containment: ProcessContainmentName | None = None
    shell_environment_policy: dict[str, Any] | None = None
    sandbox_mode: SandboxModeName | None = None
    sandbox_workspace_write: WorkspaceWrite | None = None
    approval_policy: ApprovalPolicyName | None = None


def _check_variable(value: str | None) -> str | None:
    if value is not None and (not value or "=" in value or "\x00" in value):
        return f"{value!r} is not an environment variable name"
    return None


def _check_policy(value: Any) -> str | None:
    if value is None:
        return None
    try:
        EnvironmentPolicy().layered(value)  # a bad key or value: ValueError naming it
    except ValueError as exc:
        return str(exc)
    return None


def _check_concurrency(value: Any) -> str | None:
    if value is not None and value < 1:
        return "at least 1 hook process must be able to run"
    return None


def _check_plugins(value: Any) -> str | None:
    for spec in value:
        module, sep, function = spec.partition(":")
        if not sep or not module or not function:
            return f"plugin {spec!r} is not module:function"
    return None


def _check_roots(value: Any) -> str | None:
    # The decoded table, or (when the walk describes a refusal) the raw one.
    roots = value.get("writable_roots") if isinstance(value, Mapping) else None
    roots = value.writable_roots if isinstance(value, WorkspaceWrite) else roots
    if not isinstance(roots, (list, tuple)):
        return None  # the schema says what is wrong with it
    for root in roots:
        if isinstance(root, str) and not root.startswith("/"):
            return f"writable root {root!r} is not an absolute path"
    return None


_CHECKS: Final = {
    "sandbox_workspace_write": _check_roots,
    "api_key_env": _check_variable,
    "hook_concurrency": _check_concurrency,
    "plugins": _check_plugins,
    "shell_environment_policy": _check_policy,
}


def decode_layer(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` as ``Settings`` reads them, only the keys given (``SchemaRefusal`` if bad)."""
    data = dict(values)
    plugins = data.get("plugins")
    if isinstance(plugins, str):  # comma-separated (DSH_PLUGINS, a flag)
        data["plugins"] = tuple(part.strip() for part in plugins.split(",") if part.strip())
    concurrency = data.get("hook_concurrency")
    if isinstance(concurrency, str) and re.fullmatch(r"[ \t]*[0-9]+[ \t]*", concurrency):
        data["hook_concurrency"] = int(concurrency)  # DSH_HOOK_CONCURRENCY: digits
    policy = data.get("shell_environment_policy")
    if policy is not None and not isinstance(policy, Mapping):  # DSH_*: a string
        raise SchemaRefusal(
            [
                SchemaError(
                    ("shell_environment_policy",),
                    "value_error",
                    "a table, `[shell_environment_policy]` in a config file",
                    policy,
                )
            ]
        )
    settings = decode(data, Settings, checks=_CHECKS)
    out = {key: getattr(settings, key) for key in data}
    table = out.get("sandbox_workspace_write")
    if isinstance(table, WorkspaceWrite):  # kept as a plain table (``dsh config show``)
        out["sandbox_workspace_write"] = msgspec.structs.asdict(table)
    return out
