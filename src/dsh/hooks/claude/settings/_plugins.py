"""Claude Code plugins as hook sources: a plugin's manifest and hook files; installed plugins."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Final

from dsh.base._real_path import contained_path
from dsh.hooks.claude.settings._parse import (
    JSONProblem,
    read_json_file,
)
from dsh.hooks.claude.settings._sources import Diagnostics, SourceFile, Suite
from dsh.hooks.claude.settings._types import HookSource
from dsh.hooks.claude.settings._validate import SuiteContext

if TYPE_CHECKING:
    from dsh.hooks.claude.settings._models import PluginManifestModel

__all__ = ["installed_plugins", "plugin_suite"]

_PLUGIN_DATA_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")


def plugin_suite(
    root: Path,
    plugin_id: str | None,
    config_dir: Path,
    project_dir: Path,
    diags: Diagnostics,
) -> Suite:
    """Read a plugin's manifest and hook files (``hooks/hooks.json`` plus manifest ``hooks``)."""
    from dsh._schema import SchemaRefusal, decode
    from dsh.hooks.claude.settings._models import (
        PluginHooksFileModel,
        PluginManifestModel,
        describe_validation_error,
        extra,
    )

    manifest_path = root / ".claude-plugin" / "plugin.json"
    manifest: PluginManifestModel | None = None
    name = plugin_id
    if manifest_path.is_file():
        parsed = read_json_file(manifest_path)
        probe = HookSource(kind="plugin", path=manifest_path, plugin=name or root.name)
        if isinstance(parsed, JSONProblem):
            diags.problem(probe, parsed)
            suite = Suite(
                kind="plugin", files=[SourceFile(probe, None, parsed)], plugin=probe.plugin
            )
            return suite
        try:
            manifest = decode(parsed, PluginManifestModel)
        except SchemaRefusal as exc:
            for _f, _t, reason in describe_validation_error(exc):
                diags.add(probe, "error", "bad-shape", f"plugin manifest: {reason}")
            return Suite(
                kind="plugin",
                files=[SourceFile(probe, None, JSONProblem("bad manifest", "bad-shape"))],
                plugin=probe.plugin,
            )
    if name is None:
        name = manifest.name if manifest is not None and manifest.name else root.name
    # Claude Code's data folder is the plugin's id made safe; a plugin loaded from a
    # directory (`--plugin-dir`) has the id `<name>@inline`.
    data_id = plugin_id if plugin_id is not None else f"{name}@inline"
    data_dir = config_dir / "plugins" / "data" / _PLUGIN_DATA_UNSAFE.sub("-", data_id)
    suite = Suite(
        kind="plugin",
        files=[],
        plugin=name,
        context=SuiteContext(project_dir=project_dir, plugin_root=root, plugin_data=data_dir),
    )

    def source(path: Path) -> HookSource:
        return HookSource(kind="plugin", path=path, plugin=name, plugin_root=root)

    def add_hooks_file(path: Path) -> None:
        if any(f.source.path is not None and f.source.path == path for f in suite.files):
            return  # the manifest may name the standard file again; it is read once
        src = source(path)
        parsed = read_json_file(path)
        if isinstance(parsed, JSONProblem):
            diags.problem(src, parsed)
            suite.files.append(SourceFile(src, None, parsed))
            return
        try:
            model = decode(parsed, PluginHooksFileModel)
        except SchemaRefusal as exc:
            for _f, _t, reason in describe_validation_error(exc):
                diags.add(src, "error", "bad-shape", f"plugin hooks file: {reason}")
            suite.files.append(SourceFile(src, parsed, JSONProblem("bad hooks file", "bad-shape")))
            return
        for key in sorted(extra(parsed, PluginHooksFileModel)):
            diags.add(
                src,
                "warning",
                "unknown-field",
                f"unknown key `{key}` in a plugin hooks file is ignored"
                " (it holds `description` and `hooks`)",
            )
        file = SourceFile(src, parsed)
        suite.files.append(file)
        suite.hooks.append((file, model.hooks))

    standard = root / "hooks" / "hooks.json"
    if standard.is_file():
        add_hooks_file(standard.resolve())
    declared = manifest.hooks if manifest is not None else None
    if isinstance(declared, dict):
        nested = declared.get("hooks")
        inline: dict[str, Any] = nested if isinstance(nested, dict) else declared
        file = SourceFile(source(manifest_path), declared)
        suite.files.append(file)
        suite.hooks.append((file, inline))
    elif declared is not None:
        for rel in [declared] if isinstance(declared, str) else declared:
            found = _manifest_hooks_path(root, rel, source(manifest_path), diags)
            if found is None:
                continue
            path = found
            if path.is_file():
                add_hooks_file(path)
            else:
                src = source(path)
                problem = JSONProblem(
                    f"the plugin manifest names hooks file {rel!r}, which does not exist",
                    "unreadable",
                )
                diags.problem(src, problem)
                suite.files.append(SourceFile(src, None, problem))
    return suite


def _manifest_hooks_path(
    root: Path, rel: str, manifest: HookSource, diags: Diagnostics
) -> Path | None:
    """Where a manifest's ``hooks`` path really is, or ``None`` with a diagnostic: a path
    with ``..`` is diagnosed; one that leaves the plugin or cannot be a path (a NUL, a
    name over 255 bytes) is ignored."""
    if ".." in PurePosixPath(rel).parts:
        diags.add(
            manifest,
            "warning",
            "bad-shape",
            f"the plugin manifest's hooks path {rel!r} has `..`: paths in a manifest are"
            " relative to the plugin and stay inside it",
        )
    found = contained_path(root, rel)
    if isinstance(found, Path):
        return found
    diags.add(
        manifest,
        "error",
        "bad-shape",
        f"the plugin manifest's hooks path {rel!r} {found}: it is ignored",
    )
    return None


def installed_plugins(
    config_dir: Path,
    project_dir: Path,
    enabled: Callable[[str], bool],
    diags: Diagnostics,
) -> list[tuple[Path, str]]:
    """Plugins installed under the config directory that ``enabled`` admits (``enabledPlugins``)."""
    registry = config_dir / "plugins" / "installed_plugins.json"
    if not registry.is_file():
        return []
    src = HookSource(kind="plugin", path=registry)
    parsed = read_json_file(registry)
    if isinstance(parsed, JSONProblem):
        diags.add(src, "warning", parsed.code, f"installed plugins not read: {parsed.reason}")
        return []
    plugins = parsed.get("plugins")
    if not isinstance(plugins, dict):
        diags.add(src, "warning", "bad-shape", "installed plugins not read: no `plugins` object")
        return []
    project = project_dir.resolve()
    roots: list[tuple[Path, str]] = []
    for plugin_id, entries in plugins.items():
        if not enabled(plugin_id):
            continue
        for entry in entries if isinstance(entries, list) else [entries]:
            if not isinstance(entry, dict) or not isinstance(entry.get("installPath"), str):
                continue
            scoped = entry.get("projectPath")
            if entry.get("scope") in ("project", "local") and (
                not isinstance(scoped, str) or Path(scoped).resolve() != project
            ):
                continue
            root = Path(entry["installPath"])
            if not _is_dir(root):
                diags.add(
                    src,
                    "warning",
                    "unreadable",
                    f"plugin {plugin_id} is enabled but its install path {root} does not exist",
                )
                continue
            roots.append((root, plugin_id))
            break
    return roots


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):  # a NUL or a name too long: not a directory to load
        return False
