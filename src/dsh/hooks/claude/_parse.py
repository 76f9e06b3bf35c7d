"""Reading hook files at the edge: JSON text and pydantic models of their shape.

Nothing here raises out: every problem comes back as a ``Problem`` the catalog
turns into a diagnostic naming the file (and the line and column of a JSON
syntax error).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Final, Literal, final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dsh._frozen import frozen
from dsh.base import UnsafeJSONError, load_json

__all__ = [
    "MAX_SETTINGS_BYTES",
    "CommandHandlerModel",
    "GroupModel",
    "JSONProblem",
    "PluginHooksFileModel",
    "PluginManifestModel",
    "SettingsModel",
    "describe_validation_error",
    "read_json_file",
    "read_json_text",
]


@final
@frozen
class JSONProblem:
    """Why a file's JSON could not be read; ``line``/``column`` for syntax errors."""

    reason: str
    code: Literal["unreadable", "json-syntax", "bad-shape"]
    line: int | None = None
    column: int | None = None


MAX_SETTINGS_BYTES: Final = 8 * 1024 * 1024
"""The largest hook file read (settings, plugin manifests, hooks.json): far above any real one."""


def read_json_text(text: str) -> dict[str, Any] | JSONProblem:
    """Parse ``text`` as one JSON object, with ``load_json``'s bounds; lone surrogates refused."""
    if len(text) > MAX_SETTINGS_BYTES:
        return JSONProblem(
            f"the file is {len(text)} characters long (at most {MAX_SETTINGS_BYTES})", "unreadable"
        )
    try:
        value = load_json(text, lone_surrogates="refuse")
    except UnsafeJSONError as exc:
        cause = exc.__cause__
        if isinstance(cause, json.JSONDecodeError):
            return JSONProblem(
                f"invalid JSON at line {cause.lineno}, column {cause.colno}: {cause.msg}",
                "json-syntax",
                cause.lineno,
                cause.colno,
            )
        return JSONProblem(f"invalid JSON: {exc}", "json-syntax")
    if not isinstance(value, dict):
        return JSONProblem(
            f"the file must hold a JSON object, got {type(value).__name__}", "bad-shape"
        )
    return value


def read_json_file(path: Path) -> dict[str, Any] | JSONProblem:
    """Read and parse ``path`` as one JSON object (UTF-8, an optional BOM)."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_SETTINGS_BYTES + 1)
    except OSError as exc:
        return JSONProblem(f"cannot read the file: {exc.strerror or exc}", "unreadable")
    if len(raw) > MAX_SETTINGS_BYTES:
        return JSONProblem(f"the file is over {MAX_SETTINGS_BYTES} bytes", "unreadable")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return JSONProblem(f"the file is not UTF-8 (byte {exc.start})", "unreadable")
    return read_json_text(text)


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
