"""Codex plugin hooks: the ``hooks/hooks.json`` of each plugin the user's ``config.toml`` enables.

A plugin is enabled by ``[plugins."<name>@<marketplace>"] enabled = true`` and
installed under ``$CODEX_HOME/plugins/cache/<marketplace>/<name>/<version>/``
(the highest version there). Its hooks are the file its manifest
(``.codex-plugin/plugin.json``) names under ``hooks`` (a path inside the
plugin, or the hooks inline), else ``hooks/hooks.json``. Its trust keys start
with the plugin id instead of a path (``<id>:hooks/hooks.json:stop:0:0``), and
its commands get ``${PLUGIN_ROOT}``, ``${CLAUDE_PLUGIN_ROOT}``, ``${PLUGIN_DATA}``
and ``${CLAUDE_PLUGIN_DATA}`` filled in and set in their environment.
``PLUGIN_DATA`` is ``$CODEX_HOME/plugins/data/<name>-<marketplace>``, where the
real Codex 0.171 points it (the id with ``-`` for ``@``), and, as Codex, dsh does
not create the folder: a plugin that keeps data makes it. A plugin whose
marketplace name has a ``.`` is not loaded at all by the 0.171 binary (its
``hooks/list`` is empty, without a word; a ``.`` in the plugin's own name is
fine): dsh does not load it either, and says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any, Final

from dsh._frozen import frozen
from dsh.base import read_bounded
from dsh.base._real_path import contained_path
from dsh.hooks.codex.config._parse import MAX_SOURCE_BYTES, ParsedSource, parse_hooks_json
from dsh.hooks.codex.config._types import CodexDiagnostic

__all__ = ["PluginHooks", "enabled_plugins", "plugin_data_name"]

_ID: Final = re.compile(r"([A-Za-z0-9._-]+)@([A-Za-z0-9._-]+)")


def plugin_data_name(plugin_id: str) -> str:
    """The folder under ``$CODEX_HOME/plugins/data`` Codex gives ``<name>@<marketplace>``."""
    return plugin_id.replace("@", "-")


@frozen(kw_only=True)
class PluginHooks:
    """One enabled plugin's hooks: its id, root, hook file, trust-key prefix and env."""

    plugin_id: str
    root: Path
    source: Path
    key_source: str
    parsed: ParsedSource
    env: Mapping[str, str]


def _version_key(path: Path) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.\-]", path.name))


def _root(home: Path, name: str, marketplace: str) -> Path | None:
    folder = home / "plugins" / "cache" / marketplace / name
    try:
        versions = [p for p in folder.iterdir() if p.is_dir()] if folder.is_dir() else []
    except OSError:
        return None
    return max(versions, key=_version_key) if versions else None


def _hooks_of(
    root: Path, plugin_id: str, diagnostics: list[CodexDiagnostic]
) -> tuple[Path, str, bytes] | CodexDiagnostic | None:
    """The plugin's hook file (path, key prefix, bytes), a diagnostic, or ``None`` (no hooks)."""
    manifest = root / ".codex-plugin" / "plugin.json"
    declared: Any = None
    if manifest.is_file():
        try:
            raw = read_bounded(manifest, MAX_SOURCE_BYTES, "plugin manifest")
            declared = json.loads(raw).get("hooks")
        except (OSError, ValueError, AttributeError, RecursionError) as exc:
            return CodexDiagnostic(source=str(manifest), reason=f"unreadable manifest: {exc}")
    if isinstance(declared, dict):
        inline = declared if "hooks" in declared else {"hooks": declared}
        return manifest, f"{plugin_id}:.codex-plugin/plugin.json", json.dumps(inline).encode()
    relative = declared if isinstance(declared, str) else "hooks/hooks.json"
    found = contained_path(root, relative)
    if isinstance(found, str):  # a NUL, a name over 255 bytes, or outside the plugin
        return CodexDiagnostic(
            source=str(manifest), reason=f"hooks path {relative!r} {found}: ignored"
        )
    path = found
    if ".." in PurePosixPath(relative).parts:
        diagnostics.append(
            CodexDiagnostic(
                source=str(manifest),
                reason=f"hooks path {relative!r} has `..`: a manifest's paths stay inside"
                " the plugin",
            )
        )
    try:
        if not path.is_file():
            return None
        data = read_bounded(path, MAX_SOURCE_BYTES, "hook file")
    except OSError as exc:
        return CodexDiagnostic(source=str(path), reason=f"cannot be read: {exc}", severity="error")
    return path, f"{plugin_id}:{relative}", data


def enabled_plugins(
    home: Path, user_config: Mapping[str, Any] | None, diagnostics: list[CodexDiagnostic]
) -> Iterator[PluginHooks]:
    """The hooks of each enabled plugin, in the order the user's ``config.toml`` lists them."""
    plugins = (user_config or {}).get("plugins")
    if not isinstance(plugins, dict):
        return
    for plugin_id, entry in plugins.items():
        if not isinstance(entry, dict) or entry.get("enabled") is not True:
            continue
        match = _ID.fullmatch(plugin_id)
        if match and "." in match[2]:
            diagnostics.append(
                CodexDiagnostic(
                    source=str(home / "config.toml"),
                    reason=f"plugin {plugin_id!r}: its marketplace name {match[2]!r} has a `.`,"
                    " so Codex does not load the plugin (silently) and neither does dsh: its"
                    " hooks do not run",
                )
            )
            continue
        root = _root(home, match[1], match[2]) if match else None
        if root is None:
            diagnostics.append(
                CodexDiagnostic(
                    source=str(home / "config.toml"),
                    reason=f"plugin {plugin_id!r} is enabled but not installed under"
                    f" {home / 'plugins' / 'cache'}: its hooks are not loaded",
                )
            )
            continue
        found = _hooks_of(root, plugin_id, diagnostics)
        if found is None:
            continue
        if isinstance(found, CodexDiagnostic):
            diagnostics.append(found)
            continue
        source, key_source, data = found
        data_dir = home / "plugins" / "data" / plugin_data_name(plugin_id)
        env = {
            "PLUGIN_ROOT": str(root),
            "CLAUDE_PLUGIN_ROOT": str(root),
            "PLUGIN_DATA": str(data_dir),
            "CLAUDE_PLUGIN_DATA": str(data_dir),
        }
        parsed = parse_hooks_json(source, data)
        yield PluginHooks(
            plugin_id=plugin_id,
            root=root,
            source=source,
            key_source=key_source,
            parsed=parsed,
            env=env,
        )
