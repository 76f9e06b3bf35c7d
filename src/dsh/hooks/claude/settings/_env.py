"""Settings ``env``: the variables Claude Code sets for the session, as 2.1.332 applies them.

Each settings file's ``env`` object, merged by settings precedence (user, project, local,
``--settings``, managed: a later one wins a name). 2.1.332 puts them in its own
environment, so every hook and every Bash command has them (conformance
``settings-env``). dsh gives them to hooks beside Claude Code's own variables, and to the
processes the model drives as the ``set`` of the environment policy (so its
``include_only`` still applies); dsh's model keys never reach either. Read leniently: a
string is kept, a number or a boolean becomes its JSON text, anything else is left out
with a warning; a value that is not an object is ignored with a warning.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from dsh.base import FrozenDict, load_json, read_bounded
from dsh.hooks.claude.settings._sources import Diagnostics, ReadSettings
from dsh.hooks.claude.settings._types import HookSource, SourceKind

__all__ = ["EnvLayer", "file_env", "merged_env", "settings_env", "with_layer"]

EnvLayer = tuple[HookSource, Mapping[str, str]]

_ORDER: Final[dict[SourceKind, int]] = {
    "user": 0,
    "project": 1,
    "local": 2,
    "cli": 3,
    "managed": 4,
    "plugin": 5,
}


def _value(name: str, value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return None


def settings_env(settings: Sequence[ReadSettings], diags: Diagnostics) -> tuple[EnvLayer, ...]:
    """Each readable file's ``env``, lowest precedence first."""
    layers: list[tuple[int, int, EnvLayer]] = []
    for n, s in enumerate(settings):
        if s.model is None or s.model.env is None:
            continue
        source = s.file.source
        if not isinstance(s.model.env, dict):
            diags.add(source, "warning", "bad-field", "`env` is not an object; it is ignored")
            continue
        values: dict[str, str] = {}
        for name, raw in s.model.env.items():
            value = _value(name, raw)
            if value is None or not name or "=" in name or "\0" in name or "\0" in value:
                diags.add(source, "warning", "bad-field", f"`env.{name}` is left out: not a string")
                continue
            values[name] = value
        layers.append((_ORDER[source.kind], n, (source, FrozenDict(values))))
    return tuple(layer for _, _, layer in sorted(layers, key=lambda t: (t[0], t[1])))


_MAX_SETTINGS_BYTES: Final = 1 << 20


def file_env(path: Path) -> Mapping[str, str]:
    """The ``env`` of the settings file at ``path`` as it is now, read as ``settings_env``
    reads it (a value left out there is left out here; no file, bad JSON or no object: none)."""
    try:
        data = load_json(read_bounded(path, _MAX_SETTINGS_BYTES, "settings file"))
    except (OSError, ValueError, TypeError):  # JSONDecodeError, UnsafeJSONError: ValueError
        return FrozenDict()
    env = data.get("env") if isinstance(data, dict) else None
    if not isinstance(env, dict):
        return FrozenDict()
    values = {name: _value(name, raw) for name, raw in env.items()}
    return FrozenDict(
        {
            name: value
            for name, value in values.items()
            if value is not None and name and "=" not in name and "\0" not in name + value
        }
    )


def merged_env(layers: Sequence[EnvLayer]) -> dict[str, str]:
    """``layers`` merged, a later one winning a name (``Catalog.env``'s rule)."""
    out: dict[str, str] = {}
    for _source, values in layers:
        out.update(values)
    return out


def with_layer(
    layers: Sequence[EnvLayer], source: HookSource, values: Mapping[str, str]
) -> tuple[EnvLayer, ...]:
    """``layers`` with ``source``'s replaced by ``values`` (added in its precedence's place
    when it had none)."""
    kept = [
        layer for layer in layers if layer[0].path != source.path or layer[0].kind != source.kind
    ]
    kept.append((source, FrozenDict(values)))
    return tuple(sorted(kept, key=lambda layer: _ORDER[layer[0].kind]))
