"""The pydantic models of the hook files' shapes (settings, plugin files, matcher groups).

Imported (with pydantic) when a file is there to check: a run with no settings
file and no plugin never loads them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "CommandHandlerModel",
    "GroupModel",
    "PluginHooksFileModel",
    "PluginManifestModel",
    "SettingsModel",
    "ValidationError",
    "describe_validation_error",
]


# defer_build: each validator is built at its first use (plugin manifests are rare).
_STRICT = ConfigDict(strict=True, extra="allow", defer_build=True)


class SettingsModel(BaseModel):
    """The keys of a settings file this bridge reads; every other key is not ours."""

    model_config = _STRICT

    hooks: dict[str, Any] | None = None
    disableAllHooks: bool | None = None
    allowManagedHooksOnly: bool | None = None
    enabledPlugins: dict[str, Any] | None = None
    strictPluginOnlyCustomization: bool | list[str] | None = None


class PluginHooksFileModel(BaseModel):
    """A plugin's ``hooks/hooks.json``: ``{"description"?: str, "hooks": {...}}``."""

    model_config = _STRICT

    description: str | None = None
    hooks: dict[str, Any]


class PluginManifestModel(BaseModel):
    """The parts of ``.claude-plugin/plugin.json`` that matter for hooks."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    name: str | None = None
    hooks: str | list[str] | dict[str, Any] | None = None


class GroupModel(BaseModel):
    """A matcher group: an optional ``matcher`` and its handlers (each checked on its own)."""

    model_config = _STRICT

    matcher: str | None = None
    hooks: list[Any]


_Timeout = Annotated[float, Field(gt=0, allow_inf_nan=False)]


class CommandHandlerModel(BaseModel):
    """A ``type: "command"`` handler (reference §1.3)."""

    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=False, defer_build=True)

    type: Literal["command"]
    command: Annotated[str, Field(min_length=1)]
    args: list[str] | None = None
    timeout: _Timeout | None = None
    async_: bool = Field(default=False, alias="async")
    asyncRewake: bool = False
    shell: Literal["bash", "powershell"] | None = None
    onFailure: Literal["continue", "block"] = "continue"
    statusMessage: str | None = None
    once: bool | None = None
    if_: str | None = Field(default=None, alias="if")


def describe_validation_error(exc: ValidationError) -> list[tuple[str, str, str]]:
    """Each error as ``(field, pydantic error type, readable reason)``."""
    out: list[tuple[str, str, str]] = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"])
        if err["type"] == "missing":
            reason = f"`{loc}` is required"
        else:
            reason = f"`{loc}`: {err['msg']} (got {err.get('input')!r})"
        out.append((str(err["loc"][0]) if err["loc"] else "", err["type"], reason))
    return out
