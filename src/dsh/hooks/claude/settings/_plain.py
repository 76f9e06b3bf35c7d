"""The hook files' common shapes, read without pydantic; everything else goes to the models.

A settings file, a matcher group and a ``command`` handler are almost always
written in the plainest form: known keys, values of exactly the type asked
for. For those, the ``plain_*`` readers here give the same values the pydantic
models of ``settings/_models.py`` give (as the frozen views below), so a run with
an ordinary settings file never imports pydantic. Anything else (a value of
another type, a null, a bound crossed, an empty command) makes a reader answer
``None``, and the model validates it and alone reports what is wrong.
``tests/hooks_claude/test_parse_plain.py`` checks the readers against the
models on generated input.
"""

from __future__ import annotations

import math
from typing import Any, Final, Literal, final

from dsh._frozen import frozen

__all__ = [
    "CommandHandler",
    "MatcherGroup",
    "Settings",
    "plain_group",
    "plain_handler",
    "plain_settings",
]

# Above this an int timeout is left to the model (float conversion and its bounds).
_MAX_PLAIN_INT: Final = 2**53


def _is_bool(value: object) -> bool:
    return value is True or value is False


def _is_str_list(value: object) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


@final
@frozen(kw_only=True)
class Settings:
    """The keys of a settings file this bridge reads (``SettingsModel``'s fields)."""

    hooks: dict[str, Any] | None = None
    disableAllHooks: bool | None = None
    allowManagedHooksOnly: bool | None = None
    enabledPlugins: dict[str, Any] | None = None
    strictPluginOnlyCustomization: bool | list[str] | None = None

    @classmethod
    def of(cls, model: Any) -> Settings:
        """The view of a validated ``SettingsModel``."""
        return cls(**{name: getattr(model, name) for name in _SETTINGS_FIELDS})


_SETTINGS_FIELDS: Final = (
    "hooks",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "enabledPlugins",
    "strictPluginOnlyCustomization",
)


def plain_settings(data: dict[str, Any]) -> Settings | None:
    """``data``'s ``Settings`` when every key the bridge reads has its plain type, else ``None``."""
    for key in ("hooks", "enabledPlugins"):
        value = data.get(key)
        if value is not None and type(value) is not dict:
            return None
    for key in ("disableAllHooks", "allowManagedHooksOnly"):
        value = data.get(key)
        if value is not None and not _is_bool(value):
            return None
    strict = data.get("strictPluginOnlyCustomization")
    if strict is not None and not _is_bool(strict) and not _is_str_list(strict):
        return None
    return Settings(**{name: data.get(name) for name in _SETTINGS_FIELDS})


@final
@frozen(kw_only=True)
class MatcherGroup:
    """A matcher group (``GroupModel``'s fields; ``model_extra`` the other keys)."""

    hooks: list[Any]
    matcher: str | None = None
    model_extra: dict[str, Any]

    @classmethod
    def of(cls, model: Any) -> MatcherGroup:
        """The view of a validated ``GroupModel``."""
        return cls(hooks=model.hooks, matcher=model.matcher, model_extra=model.model_extra or {})


def plain_group(data: dict[str, Any]) -> MatcherGroup | None:
    """``data`` as a ``MatcherGroup`` when ``hooks`` is a list and ``matcher`` absent or text."""
    hooks = data.get("hooks")
    matcher = data.get("matcher")
    if type(hooks) is not list or ("matcher" in data and type(matcher) is not str):
        return None
    extra = {k: v for k, v in data.items() if k not in ("hooks", "matcher")}
    return MatcherGroup(hooks=hooks, matcher=matcher, model_extra=extra)


@final
@frozen(kw_only=True)
class CommandHandler:
    """A ``type: "command"`` handler (``CommandHandlerModel``'s fields and extra keys)."""

    command: str
    args: list[str] | None = None
    timeout: float | None = None
    async_: bool = False
    asyncRewake: bool = False
    shell: Literal["bash", "powershell"] | None = None
    onFailure: Literal["continue", "block"] = "continue"
    statusMessage: str | None = None
    once: bool | None = None
    if_: str | None = None
    model_extra: dict[str, Any]

    @classmethod
    def of(cls, model: Any) -> CommandHandler:
        """The view of a validated ``CommandHandlerModel``."""
        fields = {name: getattr(model, name) for name in _HANDLER_FIELDS}
        return cls(**fields, model_extra=model.model_extra or {})


_HANDLER_FIELDS: Final = (
    "command",
    "args",
    "timeout",
    "async_",
    "asyncRewake",
    "shell",
    "onFailure",
    "statusMessage",
    "once",
    "if_",
)
# Each key as the file writes it, and its field here.
_HANDLER_KEYS: Final = {
    "type": "type",
    "command": "command",
    "args": "args",
    "timeout": "timeout",
    "async": "async_",
    "asyncRewake": "asyncRewake",
    "shell": "shell",
    "onFailure": "onFailure",
    "statusMessage": "statusMessage",
    "once": "once",
    "if": "if_",
}


def _plain_timeout(value: object) -> float | None:
    if type(value) is int and 0 < value <= _MAX_PLAIN_INT:
        return float(value)
    if type(value) is float and value > 0 and math.isfinite(value):
        return value
    return None


def _plain_value(key: str, value: object) -> bool:
    if key == "type":
        return value == "command" and type(value) is str
    if key == "command":
        return type(value) is str and len(value) > 0
    if key == "args":
        return _is_str_list(value)
    if key in ("async", "asyncRewake", "once"):
        return _is_bool(value)
    if key == "shell":
        return value in ("bash", "powershell") and type(value) is str
    if key == "onFailure":
        return value in ("continue", "block") and type(value) is str
    return type(value) is str  # statusMessage, if


def plain_handler(data: dict[str, Any]) -> CommandHandler | None:
    """``data`` as a ``CommandHandler`` when each known key has its plain value, else ``None``."""
    if "type" not in data or "command" not in data:
        return None
    fields: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in data.items():
        name = _HANDLER_KEYS.get(key)
        if name is None:
            extra[key] = value
        elif key == "timeout":
            timeout = _plain_timeout(value)
            if timeout is None:
                return None
            fields["timeout"] = timeout
        elif not _plain_value(key, value):
            return None
        elif name != "type":
            fields[name] = value
    return CommandHandler(**fields, model_extra=extra)
