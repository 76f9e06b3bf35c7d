"""The configuration's schema: every layer is validated by ``Settings`` (pydantic).

Imported when a layer needs it (a file, ``DSH_*`` variables, a flag value the
plain path of ``_config_plain.py`` leaves to it).
"""

# No ``from __future__ import annotations``: pydantic reads the annotations as objects.
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from dsh.base import EnvironmentPolicy
from dsh.host._config import HookHelpersName, OutputFormatName, PermissionModeName

__all__ = ["Settings"]


class Settings(BaseModel):
    """The schema of every layer (each validated alone, so errors name their layer)."""

    # defer_build: the validator is built at its first use; most runs have no layer to check.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    permission_mode: PermissionModeName | None = None
    plugins: tuple[str, ...] = ()
    output_format: OutputFormatName | None = None
    hook_helpers: HookHelpersName | None = None
    shell_environment_policy: dict[str, Any] | None = None

    @field_validator("plugins", mode="before")
    @classmethod
    def _split_plugins(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("plugins")
    @classmethod
    def _check_plugins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for spec in value:
            module, sep, function = spec.partition(":")
            if not sep or not module or not function:
                raise ValueError(f"plugin {spec!r} is not module:function")
        return value

    @field_validator("shell_environment_policy", mode="before")
    @classmethod
    def _check_policy(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("a table, `[shell_environment_policy]` in a config file")
        EnvironmentPolicy().layered(value)  # a bad key or value: ValueError naming it
        return value

    @field_validator("api_key_env")
    @classmethod
    def _check_variable(cls, value: str | None) -> str | None:
        if value is not None and (not value or "=" in value or "\x00" in value):
            raise ValueError(f"{value!r} is not an environment variable name")
        return value
