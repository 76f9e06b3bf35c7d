"""Discovery of Claude Code hook sources and the catalog built from them.

Sources, in the order their hooks are listed: user settings
(``$CLAUDE_CONFIG_DIR/settings.json``, else ``~/.claude/settings.json``), project
(``<project>/.claude/settings.json``), local (``.claude/settings.local.json`` at
the project's git root, else the project), each ``--settings`` file or inline
JSON, managed settings (``/etc/claude-code/managed-settings.json`` and the
``managed-settings.d/*.json`` beside it), then plugins (the roots given, then
plugins installed under the config directory and enabled in ``enabledPlugins``).
Hooks add up across sources; ``disableAllHooks`` follows settings precedence,
``allowManagedHooksOnly`` and ``strictPluginOnlyCustomization`` are honoured from
managed settings only.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, Final, final

from pydantic import ValidationError

from dsh._frozen import frozen, slotted
from dsh.hooks.claude._parse import (
    JSONProblem,
    PluginHooksFileModel,
    PluginManifestModel,
    SettingsModel,
    describe_validation_error,
    read_json_file,
    read_json_text,
)
from dsh.hooks.claude._types import (
    Catalog,
    Diagnostic,
    DiagnosticCode,
    HookDeclaration,
    HookSource,
    Severity,
    SourceEntry,
    SourceKind,
)
from dsh.hooks.claude._validate import SuiteContext, SuiteResult, validate_hooks
from dsh.session import FrozenDict

__all__ = ["DEFAULT_MANAGED_SETTINGS", "PluginRoot", "load_catalog"]

DEFAULT_MANAGED_SETTINGS: Final = Path("/etc/claude-code/managed-settings.json")
"""Claude Code's managed policy settings file on Linux."""

SESSION_END_BUDGET: Final = 1.5
SESSION_END_BUDGET_MAX: Final = 60.0

_PLUGIN_DATA_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")


@final
@frozen(kw_only=True)
class PluginRoot:
    """A plugin directory to load hooks from; ``id`` defaults to its manifest ``name``.

    Give ``id`` as ``name@marketplace`` for a plugin that managed ``enabledPlugins``
    may force-enable.
    """

    root: Path
    id: str | None = None


@slotted
class _File:
    """A hook file read from disk (or inline), before validation."""

    source: HookSource
    data: dict[str, Any] | None
    problem: JSONProblem | None = None


@slotted
class _Settings:
    file: _File
    model: SettingsModel | None


@slotted
class _Suite:
    """One settings file, or one plugin with every hook file it ships."""

    kind: SourceKind
    files: list[_File]
    hooks: list[tuple[_File, Mapping[str, Any]]] = field(default_factory=list)
    context: SuiteContext | None = None
    disabled: str | None = None
    plugin: str | None = None


class _Diagnostics:
    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def add(
        self,
        source: HookSource,
        severity: Severity,
        code: DiagnosticCode,
        reason: str,
        *,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.items.append(
            Diagnostic(
                file=source.label,
                plugin=source.plugin,
                event=None,
                group_index=None,
                hook_index=None,
                reason=reason,
                severity=severity,
                code=code,
                line=line,
                column=column,
            )
        )

    def problem(self, source: HookSource, problem: JSONProblem) -> None:
        self.add(
            source, "error", problem.code, problem.reason, line=problem.line, column=problem.column
        )


def _config_dir(home: Path, env: Mapping[str, str]) -> Path:
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured).expanduser()
    return home / ".claude"


def _git_root(start: Path) -> Path:
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


def _read_settings(source: HookSource, diags: _Diagnostics, text: str | None = None) -> _Settings:
    if text is not None:
        parsed = read_json_text(text)
    else:
        assert source.path is not None
        parsed = read_json_file(source.path)
    if isinstance(parsed, JSONProblem):
        diags.problem(source, parsed)
        return _Settings(_File(source, None, parsed), None)
    try:
        model = SettingsModel.model_validate(parsed)
    except ValidationError as exc:
        for _fld, _t, reason in describe_validation_error(exc):
            diags.add(source, "error", "bad-shape", f"settings: {reason}")
        return _Settings(_File(source, parsed, JSONProblem("bad settings", "bad-shape")), None)
    return _Settings(_File(source, parsed), model)


def _settings_sources(
    project_dir: Path,
    config_dir: Path,
    settings_files: Sequence[Path | str],
    managed_path: Path,
    diags: _Diagnostics,
) -> list[_Settings]:
    found: list[_Settings] = []
    seen: set[Path] = set()

    def add_file(kind: SourceKind, path: Path, *, required: bool = False) -> None:
        source = HookSource(kind=kind, path=path)
        if not path.is_file():
            if required:
                diags.add(source, "error", "unreadable", "`--settings` file not found")
            return
        resolved = path.resolve()
        if resolved in seen:
            return
        seen.add(resolved)
        found.append(_read_settings(source, diags))

    add_file("user", config_dir / "settings.json")
    add_file("project", project_dir / ".claude" / "settings.json")
    add_file("local", _git_root(project_dir) / ".claude" / "settings.local.json")
    for item in settings_files:
        if isinstance(item, str) and item.lstrip().startswith("{"):
            found.append(_read_settings(HookSource(kind="cli", path=None), diags, text=item))
        else:
            add_file("cli", Path(item).expanduser().absolute(), required=True)
    add_file("managed", managed_path)
    dropins = managed_path.parent / "managed-settings.d"
    if dropins.is_dir():
        for path in sorted(dropins.glob("*.json")):
            add_file("managed", path)
    return found


@slotted
class _Policy:
    disable_all: bool = False
    disable_all_by: HookSource | None = None
    managed_only: bool = False
    plugin_only: bool = False
    enabled_plugins: dict[str, bool] = field(default_factory=dict)
    managed_enabled: dict[str, bool] = field(default_factory=dict)

    def forced(self, plugin_id: str | None) -> bool:
        """A plugin force-enabled by managed ``enabledPlugins`` (full ``plugin@marketplace``)."""
        return plugin_id is not None and self.managed_enabled.get(plugin_id) is True


_PRECEDENCE: Final[Mapping[SourceKind, int]] = {
    "managed": 0,
    "cli": 1,
    "local": 2,
    "project": 3,
    "user": 4,
}


def _policy(settings: list[_Settings], diags: _Diagnostics) -> _Policy:
    policy = _Policy()
    readable = [s for s in settings if s.model is not None]
    # Highest precedence first; among `--settings` files (and managed drop-ins) the later wins.
    ranked = sorted(
        enumerate(readable), key=lambda item: (_PRECEDENCE[item[1].file.source.kind], -item[0])
    )
    for _, s in ranked:
        assert s.model is not None
        if s.model.disableAllHooks is not None:
            policy.disable_all = s.model.disableAllHooks
            policy.disable_all_by = s.file.source
            break
    for _, s in reversed(ranked):  # lowest precedence first, so higher levels override
        assert s.model is not None
        for plugin_id, value in (s.model.enabledPlugins or {}).items():
            policy.enabled_plugins[plugin_id] = value is True
            if s.file.source.kind == "managed":
                policy.managed_enabled[plugin_id] = value is True
    for s in readable:
        assert s.model is not None
        source = s.file.source
        managed = source.kind == "managed"
        if s.model.allowManagedHooksOnly is not None:
            if managed:
                policy.managed_only = policy.managed_only or s.model.allowManagedHooksOnly
            else:
                diags.add(
                    source,
                    "warning",
                    "policy",
                    "`allowManagedHooksOnly` is honoured only in managed settings; ignored here",
                )
        strict = s.model.strictPluginOnlyCustomization
        if strict is not None:
            applies = strict is True or (isinstance(strict, list) and "hooks" in strict)
            if managed:
                policy.plugin_only = policy.plugin_only or applies
            elif applies:
                diags.add(
                    source,
                    "warning",
                    "policy",
                    "`strictPluginOnlyCustomization` is honoured only in managed settings;"
                    " ignored here",
                )
    return policy


def _plugin_suite(
    root: Path,
    plugin_id: str | None,
    config_dir: Path,
    project_dir: Path,
    diags: _Diagnostics,
) -> _Suite:
    """Read a plugin's manifest and hook files (``hooks/hooks.json`` plus manifest ``hooks``)."""
    manifest_path = root / ".claude-plugin" / "plugin.json"
    manifest: PluginManifestModel | None = None
    name = plugin_id
    if manifest_path.is_file():
        parsed = read_json_file(manifest_path)
        probe = HookSource(kind="plugin", path=manifest_path, plugin=name or root.name)
        if isinstance(parsed, JSONProblem):
            diags.problem(probe, parsed)
            suite = _Suite(kind="plugin", files=[_File(probe, None, parsed)], plugin=probe.plugin)
            return suite
        try:
            manifest = PluginManifestModel.model_validate(parsed)
        except ValidationError as exc:
            for _f, _t, reason in describe_validation_error(exc):
                diags.add(probe, "error", "bad-shape", f"plugin manifest: {reason}")
            return _Suite(
                kind="plugin",
                files=[_File(probe, None, JSONProblem("bad manifest", "bad-shape"))],
                plugin=probe.plugin,
            )
    if name is None:
        name = manifest.name if manifest is not None and manifest.name else root.name
    data_dir = config_dir / "plugins" / "data" / _PLUGIN_DATA_UNSAFE.sub("-", name)
    suite = _Suite(
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
            suite.files.append(_File(src, None, parsed))
            return
        try:
            model = PluginHooksFileModel.model_validate(parsed)
        except ValidationError as exc:
            for _f, _t, reason in describe_validation_error(exc):
                diags.add(src, "error", "bad-shape", f"plugin hooks file: {reason}")
            suite.files.append(_File(src, parsed, JSONProblem("bad hooks file", "bad-shape")))
            return
        for key in sorted(model.model_extra or {}):
            diags.add(
                src,
                "warning",
                "unknown-field",
                f"unknown key `{key}` in a plugin hooks file is ignored"
                " (it holds `description` and `hooks`)",
            )
        file = _File(src, parsed)
        suite.files.append(file)
        suite.hooks.append((file, model.hooks))

    standard = root / "hooks" / "hooks.json"
    if standard.is_file():
        add_hooks_file(standard.resolve())
    declared = manifest.hooks if manifest is not None else None
    if isinstance(declared, dict):
        nested = declared.get("hooks")
        inline: dict[str, Any] = nested if isinstance(nested, dict) else declared
        file = _File(source(manifest_path), declared)
        suite.files.append(file)
        suite.hooks.append((file, inline))
    elif declared is not None:
        for rel in [declared] if isinstance(declared, str) else declared:
            path = (root / rel).resolve()
            if path.is_file():
                add_hooks_file(path)
            else:
                src = source(path)
                problem = JSONProblem(
                    f"the plugin manifest names hooks file {rel!r}, which does not exist",
                    "unreadable",
                )
                diags.problem(src, problem)
                suite.files.append(_File(src, None, problem))
    return suite


def _installed_plugins(
    config_dir: Path, project_dir: Path, policy: _Policy, diags: _Diagnostics
) -> list[tuple[Path, str]]:
    """Plugins installed under the config directory and enabled in ``enabledPlugins``."""
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
        if policy.enabled_plugins.get(plugin_id) is not True and not policy.forced(plugin_id):
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
            if not root.is_dir():
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


def _disabled_reason(suite: _Suite, policy: _Policy) -> str | None:
    by = policy.disable_all_by
    if policy.disable_all and by is not None:
        if by.kind == "managed":
            return f"`disableAllHooks` is true in managed settings {by.label}"
        if suite.kind != "managed" and not policy.forced(suite.plugin):
            return f"`disableAllHooks` is true in {by.label}"
    if suite.kind == "managed":
        return None
    if policy.managed_only and not policy.forced(suite.plugin):
        return "managed settings set `allowManagedHooksOnly`"
    if policy.plugin_only and suite.kind != "plugin":
        return "managed settings set `strictPluginOnlyCustomization` for hooks"
    return None


def load_catalog(
    project_dir: Path | str,
    *,
    settings_files: Sequence[Path | str] = (),
    plugin_roots: Sequence[Path | str | PluginRoot] = (),
    home: Path | None = None,
    managed_path: Path | None = None,
    env: Mapping[str, str] | None = None,
    discover_installed_plugins: bool = True,
) -> Catalog:
    """Find every Claude Code hook source of ``project_dir`` and validate it.

    ``settings_files`` are ``--settings`` arguments (a path, or a string of inline
    JSON); ``plugin_roots`` plugin directories loaded as enabled; ``home``,
    ``managed_path`` and ``env`` (for ``CLAUDE_CONFIG_DIR`` and
    ``CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS``) default to the real ones. Never
    raises for bad input: every problem is a diagnostic.
    """
    project = Path(project_dir).expanduser().absolute()
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    managed = DEFAULT_MANAGED_SETTINGS if managed_path is None else managed_path
    config_dir = _config_dir(home, env)
    diags = _Diagnostics()

    settings = _settings_sources(project, config_dir, settings_files, managed, diags)
    policy = _policy(settings, diags)
    suites: list[_Suite] = []
    for s in settings:
        suite = _Suite(kind=s.file.source.kind, files=[s.file])
        suite.context = SuiteContext(project_dir=project)
        if s.model is not None and s.model.hooks is not None:
            suite.hooks.append((s.file, s.model.hooks))
        suites.append(suite)

    explicit: list[tuple[Path, str | None]] = []
    for item in plugin_roots:
        if isinstance(item, PluginRoot):
            explicit.append((item.root, item.id))
        else:
            explicit.append((Path(item), None))
    installed = (
        _installed_plugins(config_dir, project, policy, diags) if discover_installed_plugins else []
    )
    seen_roots: set[Path] = set()
    for root, plugin_id in [*explicit, *installed]:
        resolved = root.expanduser().resolve()
        if resolved in seen_roots:
            continue
        seen_roots.add(resolved)
        if not resolved.is_dir():
            diags.add(
                HookSource(kind="plugin", path=resolved, plugin=plugin_id),
                "error",
                "unreadable",
                "plugin directory not found",
            )
            continue
        suites.append(_plugin_suite(resolved, plugin_id, config_dir, project, diags))

    entries: list[SourceEntry] = []
    admitted: list[HookDeclaration] = []
    for suite in suites:
        suite.disabled = _disabled_reason(suite, policy)
        entries.extend(_mount(suite, diags, admitted))

    budget = _session_end_budget(admitted, env)
    final_hooks: dict[str, list[HookDeclaration]] = {}
    for decl in admitted:
        if decl.event == "SessionEnd" and decl.timeout > budget:
            decl = dataclasses.replace(decl, timeout=budget)
        final_hooks.setdefault(decl.event, []).append(decl)
    return Catalog(
        project_dir=project,
        sources=tuple(entries),
        hooks=FrozenDict({event: tuple(hooks) for event, hooks in final_hooks.items()}),
        diagnostics=tuple(diags.items),
        session_end_budget=budget,
    )


def _mount(
    suite: _Suite, diags: _Diagnostics, admitted: list[HookDeclaration]
) -> list[SourceEntry]:
    """Validate a suite and admit its declarations, or none of them."""
    if suite.disabled is not None:
        for f in suite.files:
            diags.add(f.source, "info", "source-disabled", f"hooks not loaded: {suite.disabled}")
        return [
            SourceEntry(source=f.source, status="disabled", note=suite.disabled)
            for f in suite.files
        ]
    broken = [f for f in suite.files if f.problem is not None]
    result = SuiteResult()
    assert suite.context is not None or broken
    if suite.context is not None:
        for file, hooks in suite.hooks:
            part = validate_hooks(hooks, file.source, suite.context)
            result.declarations.extend(part.declarations)
            result.diagnostics.extend(part.diagnostics)
    diags.items.extend(result.diagnostics)
    if broken or result.malformed:
        errors = sum(d.severity == "error" for d in result.diagnostics) + len(broken)
        first = next(
            (d for d in diags.items if d.severity == "error" and _in_suite(d, suite)), None
        )
        what = "plugin" if suite.kind == "plugin" else "file"
        note = (
            f"the whole {what} was skipped: {errors} error(s) make it malformed"
            + (f" (first: {_short(first)})" if first is not None else "")
            + f"; {len(result.declarations)} well-formed hook(s) in it were not mounted"
        )
        label_source = suite.files[0].source if suite.files else None
        if label_source is not None:
            diags.add(label_source, "error", "suite-skipped", note)
        return [SourceEntry(source=f.source, status="skipped", note=note) for f in suite.files]
    admitted.extend(result.declarations)
    counts = {id(f.source): 0 for f in suite.files}
    for decl in result.declarations:
        counts[id(decl.source)] = counts.get(id(decl.source), 0) + 1
    return [
        SourceEntry(source=f.source, status="loaded", admitted=counts[id(f.source)])
        for f in suite.files
    ]


def _short(diag: Diagnostic) -> str:
    return diag.reason if diag.location is None else f"{diag.location}: {diag.reason}"


def _in_suite(diag: Diagnostic, suite: _Suite) -> bool:
    return any(diag.file == f.source.label and diag.plugin == f.source.plugin for f in suite.files)


def _session_end_budget(admitted: Sequence[HookDeclaration], env: Mapping[str, str]) -> float:
    override = env.get("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS")
    if override:
        try:
            ms = float(override)
        except ValueError:
            ms = -1.0
        if ms > 0 and ms != float("inf"):
            return ms / 1000.0
    declared = [
        d.timeout
        for d in admitted
        if d.event == "SessionEnd" and d.timeout_declared and d.source.is_settings_file
    ]
    return min(SESSION_END_BUDGET_MAX, max([SESSION_END_BUDGET, *declared]))
