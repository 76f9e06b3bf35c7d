"""dsh's configuration: a user file, a project file, ``DSH_*`` variables, flags over all.

``load_config(project, flags=...)`` reads, lowest first: the user file
(``$DSH_CONFIG_DIR/config.toml``, else the platform's user config dir
``dsh/config.toml``), the project file (``<project>/.dsh/config.toml``), the ``DSH_*``
environment variables (``DSH_MODEL``, ``DSH_PROVIDER``, ``DSH_BASE_URL``, ``DSH_API_KEY_ENV``,
``DSH_PERMISSION_MODE``, ``DSH_PLUGINS`` (comma-separated), ``DSH_OUTPUT_FORMAT``,
``DSH_HOOK_HELPERS``, ``DSH_HOOK_CONCURRENCY``; names are case-insensitive, empty values
ignored), then the flags
given. ``[shell_environment_policy]`` is a table, in the files only. Each layer is
validated by the one schema (``_config_schema.Settings``) on its own, so a bad value is
reported with the place it came from; the result, ``DshConfig``, is one typed value that
says where each of its values came from (``sources``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from dsh._data_dir import user_config_dir
from dsh._frozen import frozen
from dsh.base import DshError, FrozenDict, read_bounded
from dsh.host._config_names import (
    ApprovalPolicyName,
    HookHelpersName,
    OutputFormatName,
    PermissionModeName,
    ProcessContainmentName,
    ProviderName,
    SandboxModeName,
)

if TYPE_CHECKING:
    from dsh._schema import SchemaRefusal
    from dsh.base._sandbox import SandboxPolicy

__all__ = [
    "CONFIG_DIR_ENV",
    "CONFIG_KEYS",
    "ConfigError",
    "DshConfig",
    "dsh_state",
    "load_config",
    "project_config_file",
    "sandbox_policy",
    "user_config_file",
]

CONFIG_DIR_ENV = "DSH_CONFIG_DIR"
_MAX_CONFIG_BYTES = 256 * 1024


class ConfigError(DshError, ValueError):
    """A configuration file or variable dsh cannot use; the message names it and the key."""


CONFIG_KEYS: tuple[str, ...] = (
    "model",
    "provider",
    "base_url",
    "api_key_env",
    "permission_mode",
    "plugins",
    "output_format",
    "hook_helpers",
    "hook_concurrency",
    "process_containment",
    "shell_environment_policy",
    "sandbox_mode",
    "sandbox_workspace_write",
    "approval_policy",
)
"""The configuration's keys, as the files, ``DSH_<KEY>`` and ``dsh config show`` name them
(the fields of ``_config_schema.Settings``, which a test checks)."""


@final
@frozen(kw_only=True)
class DshConfig:
    """The effective configuration; ``sources[key]`` says where each value came from.

    A source is ``"default"``, ``"user file PATH"``, ``"project file PATH"``,
    ``"env DSH_KEY"`` or ``"flag --key"``.
    """

    model: str | None = None
    provider: ProviderName | None = None
    """The model provider named outright (``dsh.models``' ``choose_provider``)."""
    base_url: str | None = None
    api_key_env: str | None = None
    permission_mode: PermissionModeName | None = None
    plugins: tuple[str, ...] = ()
    output_format: OutputFormatName | None = None
    hook_helpers: HookHelpersName | None = None
    """What hooks leave running after a normal exit ends at the hook's end (``"hook"``,
    the default) or lives until the session ends (``"session"``)."""
    hook_concurrency: int | None = None
    """How many hook processes run at once (``None``: ``max(16, 4 × CPUs)``); the others
    wait their turn in the order they would have started (``dsh.hook_protocol``)."""
    process_containment: ProcessContainmentName | None = None
    """How the processes dsh starts are contained: in dsh's namespace where the kernel
    allows one (``"namespace"``, the default) or by marks, groups and trees alone
    (``"marks"``: ``sudo`` and other set-user-ID programs work in hooks again)."""
    shell_environment_policy: Mapping[str, Any] = field(default_factory=FrozenDict)
    """``[shell_environment_policy]`` (Codex's vocabulary, ``dsh.base.EnvironmentPolicy``):
    the environment of every process the model drives; the files' tables merged as Codex
    merges its layers (a key of a higher file wins; ``set`` merges by variable)."""
    sandbox_mode: SandboxModeName | None = None
    """The shell tools' sandbox (Codex's ``sandbox_mode``; ``None``: no sandbox, see
    docs/sandbox.md for why that is dsh's default)."""
    sandbox_workspace_write: Mapping[str, Any] = field(default_factory=FrozenDict)
    """``[sandbox_workspace_write]`` (Codex's): ``writable_roots``, ``network_access``,
    ``exclude_tmpdir_env_var``, ``exclude_slash_tmp``."""
    approval_policy: ApprovalPolicyName | None = None
    """Codex's ``approval_policy`` over the sandbox (``on-failure``: a command the sandbox
    stopped is offered to run outside it; ``untrusted``: every command asks first)."""
    sources: Mapping[str, str]
    files: tuple[Path, ...] = ()

    def value(self, key: str) -> Any:
        if key not in CONFIG_KEYS:
            raise KeyError(key)
        return getattr(self, key)


def user_config_file(env: Mapping[str, str] | None = None) -> Path:
    """The user file: ``$DSH_CONFIG_DIR/config.toml``, else the user config dir's."""
    environ = os.environ if env is None else env
    override = environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override).expanduser() / "config.toml"
    xdg = environ.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "dsh" / "config.toml"
    return user_config_dir() / "config.toml"


def project_config_file(project: Path) -> Path:
    return project / ".dsh" / "config.toml"


def _read_toml(path: Path) -> dict[str, Any] | None:
    try:
        data = read_bounded(path, _MAX_CONFIG_BYTES, "config file")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc.strerror or exc}") from None
    if len(data) > _MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: config file over {_MAX_CONFIG_BYTES} bytes")
    import tomllib  # only when a file exists: most runs have none (~3 ms, its regexes)

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the config file is not UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: values nested too deep") from None


def _problem(exc: SchemaRefusal, where: str, name: Any) -> ConfigError:
    error = exc.errors[0]
    key = ".".join(str(part) for part in error.loc[:1]) or "?"
    shown = name(key)
    message = error.msg.removeprefix("Value error, ")
    if error.type == "extra_forbidden":
        message = f"unknown key (known: {', '.join(CONFIG_KEYS)})"
    return ConfigError(f"{where}: {shown}: {message}")


def _validated(values: Mapping[str, Any], where: str, name: Any) -> dict[str, Any]:
    """``values`` checked against the schema; only the keys it set."""
    if not values:  # nothing to check (no flag given): the schema's import is not needed
        return {}
    from dsh._schema import SchemaRefusal
    from dsh.host._config_schema import decode_layer

    try:
        return decode_layer(values)
    except SchemaRefusal as exc:
        raise _problem(exc, where, name) from None


def _file_layer(path: Path, label: str) -> dict[str, Any]:
    data = _read_toml(path)
    if data is None:
        return {}
    # Keys as written in TOML may use '-' (output-format) or '_' (output_format).
    values = {str(k).replace("-", "_"): v for k, v in data.items()}
    return _validated(values, f"{label} {path}", lambda key: key)


def _env_layer() -> dict[str, Any]:
    # DSH_<KEY>, case-insensitive (the last spelling in the environment wins), empty ignored;
    # values stay strings (DSH_PLUGINS is comma-separated, not JSON).
    values: dict[str, Any] = {}
    for name, value in os.environ.items():
        lowered = name.lower()
        if lowered.startswith("dsh_") and lowered[4:] in CONFIG_KEYS and value:
            values[lowered[4:]] = value
    if not values:
        return {}
    return _validated(values, "environment", lambda key: f"DSH_{key.upper()}")


def _merged_tables(lower: Mapping[str, Any], higher: Mapping[str, Any]) -> FrozenDict:
    """Two ``[shell_environment_policy]`` tables as Codex merges config layers."""
    merged = {**lower, **higher}
    if "set" in lower and "set" in higher:
        merged["set"] = FrozenDict({**lower["set"], **higher["set"]})
    return FrozenDict(merged)


def load_config(
    project: Path,
    *,
    flags: Mapping[str, Any] | None = None,
    user_file: Path | None = None,
) -> DshConfig:
    """The configuration for ``project``: user file < project file < ``DSH_*`` < ``flags``.

    The environment is the process's (``os.environ``).
    ``flags`` holds only the flags given (a key to its value, ``None`` values
    ignored). Raises ``ConfigError`` naming the file or variable and the key.
    """
    user = user_file if user_file is not None else user_config_file()
    project_file = project_config_file(project)
    layers: list[tuple[str, dict[str, Any]]] = [
        (f"user file {user}", _file_layer(user, "user config")),
        (f"project file {project_file}", _file_layer(project_file, "project config")),
    ]
    layers.append(("env", _env_layer()))
    given = {k: v for k, v in (flags or {}).items() if v is not None and v != ()}
    layers.append(("flag", _validated(given, "command line", lambda key: f"--{key}")))
    values: dict[str, Any] = {}
    sources: dict[str, str] = dict.fromkeys(CONFIG_KEYS, "default")
    for label, layer in layers:
        for key, value in layer.items():
            if key == "shell_environment_policy":
                value = _merged_tables(values.get(key, {}), value)
            values[key] = value
            if label == "env":
                sources[key] = f"env DSH_{key.upper()}"
            elif label == "flag":
                sources[key] = f"flag --{key.replace('_', '-')}"
            else:
                sources[key] = label
    files = tuple(p for p in (user, project_file) if p.is_file())
    return DshConfig(**values, sources=sources, files=files)


def sandbox_policy(config: DshConfig, *, source: str | None = None) -> SandboxPolicy | None:
    """The sandbox ``config`` asks for (``None``: none asked), with dsh's own state kept
    read-only (its data and configuration directories)."""
    if config.sandbox_mode is None:
        return None
    from dsh.base._sandbox import SandboxPolicy

    table = config.sandbox_workspace_write
    return SandboxPolicy(
        mode=config.sandbox_mode,
        writable_roots=tuple(Path(p) for p in table.get("writable_roots", ())),
        network_access=bool(table.get("network_access", False)),
        exclude_tmpdir_env_var=bool(table.get("exclude_tmpdir_env_var", False)),
        exclude_slash_tmp=bool(table.get("exclude_slash_tmp", False)),
        protected=dsh_state(),
        source=source or config.sources["sandbox_mode"].replace("--sandbox-mode", "--sandbox"),
        allow_unsandboxed=config.approval_policy == "on-request",
    )


def dsh_state() -> tuple[Path, ...]:
    """dsh's own state a sandboxed command must not change: its data directory (sessions,
    trust records) and its user configuration directory."""
    from dsh._data_dir import user_data_dir

    return (user_data_dir(), user_config_file().parent)
