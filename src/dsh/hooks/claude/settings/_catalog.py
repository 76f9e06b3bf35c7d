"""Discovery of Claude Code hook sources and the catalog built from them.

Sources, in the order their hooks are listed: user settings
(``$CLAUDE_CONFIG_DIR/settings.json``, else ``~/.claude/settings.json``), project
(``<project>/.claude/settings.json``), local (``.claude/settings.local.json`` at
the project's git root, else the project), each ``--settings`` file or inline
JSON, managed settings (``/etc/claude-code/managed-settings.json`` and the
``managed-settings.d/*.json`` beside it), then plugins (the roots given, then
plugins installed under the config directory and enabled in ``enabledPlugins``;
one that only the project's settings enable is recorded in ``project_plugins``,
since whether it runs is then the project's choice and needs its trust).
Hooks add up across sources; ``disableAllHooks`` follows settings precedence,
``allowManagedHooksOnly`` and ``strictPluginOnlyCustomization`` are honoured from
managed settings only.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Final, final

from dsh._frozen import frozen, slotted
from dsh.base import FrozenDict
from dsh.hooks.claude.settings._env import settings_env
from dsh.hooks.claude.settings._http_policy import http_policy
from dsh.hooks.claude.settings._parse import (
    JSONProblem,
    read_json_file,
    read_json_text,
)
from dsh.hooks.claude.settings._permissions import read_permissions
from dsh.hooks.claude.settings._plugins import installed_plugins, plugin_suite
from dsh.hooks.claude.settings._sources import (
    SCALAR_PRECEDENCE,
    Diagnostics,
    ReadSettings,
    SourceFile,
    Suite,
)
from dsh.hooks.claude.settings._types import (
    Catalog,
    Diagnostic,
    HookDeclaration,
    HookSource,
    SourceEntry,
    SourceKind,
)
from dsh.hooks.claude.settings._validate import SuiteContext, SuiteResult, validate_hooks

__all__ = ["DEFAULT_MANAGED_SETTINGS", "PluginRoot", "load_catalog"]

DEFAULT_MANAGED_SETTINGS: Final = Path("/etc/claude-code/managed-settings.json")
"""Claude Code's managed policy settings file on Linux."""

SESSION_END_BUDGET: Final = 1.5
SESSION_END_BUDGET_MAX: Final = 60.0


@final
@frozen(kw_only=True)
class PluginRoot:
    """A plugin directory to load hooks from; ``id`` defaults to its manifest ``name``.

    Give ``id`` as ``name@marketplace`` for a plugin that managed ``enabledPlugins``
    may force-enable.
    """

    root: Path
    id: str | None = None


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


def _read_settings(source: HookSource, diags: Diagnostics, text: str | None = None) -> ReadSettings:
    if text is not None:
        parsed = read_json_text(text)
    else:
        assert source.path is not None
        parsed = read_json_file(source.path)
    if isinstance(parsed, JSONProblem):
        diags.problem(source, parsed)
        return ReadSettings(SourceFile(source, None, parsed), None)
    # The settings' schema comes (with msgspec) only when there is a file.
    from dsh._schema import SchemaRefusal, decode
    from dsh.hooks.claude.settings._models import Settings, describe_validation_error

    try:
        settings = decode(parsed, Settings)
    except SchemaRefusal as exc:
        for _fld, _t, reason in describe_validation_error(exc):
            diags.add(source, "error", "bad-shape", f"settings: {reason}")
        return ReadSettings(
            SourceFile(source, parsed, JSONProblem("bad settings", "bad-shape")), None
        )
    return ReadSettings(SourceFile(source, parsed), settings)


def _settings_sources(
    project_dir: Path,
    config_dir: Path,
    settings_files: Sequence[Path | str],
    managed_path: Path,
    diags: Diagnostics,
) -> list[ReadSettings]:
    found: list[ReadSettings] = []
    seen: set[Path] = set()

    def add_file(kind: SourceKind, path: Path, *, required: bool = False) -> None:
        source = HookSource(kind=kind, path=path)
        try:
            # A hostile name (too long, a NUL) is an error of the name, not a crash.
            is_file = path.is_file()
            resolved = path.resolve() if is_file else path
        except (OSError, ValueError) as exc:
            diags.add(source, "error", "unreadable", f"cannot use the path: {exc}")
            return
        if not is_file:
            if required:
                diags.add(source, "error", "unreadable", "`--settings` file not found")
            return
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
    bash_edit_diff: bool | None = None
    disable_all: bool = False
    disable_all_by: HookSource | None = None
    managed_only: bool = False
    plugin_only: bool = False
    enabled_plugins: dict[str, bool] = field(default_factory=dict)
    managed_enabled: dict[str, bool] = field(default_factory=dict)
    user_enabled: set[str] = field(default_factory=set)
    """Plugins a source the user controls (user, ``--settings``, managed) enables."""
    project_enabled: dict[str, str] = field(default_factory=dict)
    """Plugins a project settings file enables: the file's label."""

    def project_choice(self, plugin_id: str) -> str | None:
        """The project settings file that alone enables ``plugin_id`` (trust decides), or None."""
        if plugin_id in self.user_enabled or self.forced(plugin_id):
            return None
        return self.project_enabled.get(plugin_id)

    def forced(self, plugin_id: str | None) -> bool:
        """A plugin force-enabled by managed ``enabledPlugins`` (full ``plugin@marketplace``)."""
        return plugin_id is not None and self.managed_enabled.get(plugin_id) is True

    def admits(self, plugin_id: str) -> bool:
        """An installed plugin that is enabled, or force-enabled by managed settings."""
        return self.enabled_plugins.get(plugin_id) is True or self.forced(plugin_id)


def _bash_edit_diff(ranked: list[ReadSettings]) -> bool | None:
    """``bashEditDiffEnabled`` as 2.1.332 reads it (highest precedence first in ``ranked``):
    managed settings decide either way; otherwise only ``false`` counts, the user settings'
    or the one of the file that sets the key with the highest precedence."""
    values = [(s.file.source.kind, s.model.bashEditDiffEnabled) for s in ranked if s.model]
    managed = [v for kind, v in values if kind == "managed" and isinstance(v, bool)]
    if managed:
        return managed[0]
    first = next((v for _, v in values if v is not None), None)
    by_user = any(kind == "user" and v is False for kind, v in values)
    return False if first is False or by_user else None


def _policy(settings: list[ReadSettings], diags: Diagnostics) -> _Policy:
    policy = _Policy()
    readable = [s for s in settings if s.model is not None]
    # Highest precedence first; among `--settings` files (and managed drop-ins) the later wins.
    ranked = sorted(
        enumerate(readable),
        key=lambda item: (SCALAR_PRECEDENCE[item[1].file.source.kind], -item[0]),
    )
    policy.bash_edit_diff = _bash_edit_diff([s for _, s in ranked])
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
            kind = s.file.source.kind
            if kind == "managed":
                policy.managed_enabled[plugin_id] = value is True
            if value is True and kind in ("project", "local"):
                policy.project_enabled[plugin_id] = s.file.source.label
            elif value is True:
                policy.user_enabled.add(plugin_id)
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


def _disabled_reason(suite: Suite, policy: _Policy) -> str | None:
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
    diags = Diagnostics()

    settings = _settings_sources(project, config_dir, settings_files, managed, diags)
    policy = _policy(settings, diags)
    permissions = read_permissions(settings, project, home, diags)
    sandbox = None
    if any(s.file.data and "sandbox" in s.file.data for s in settings):
        from dsh.hooks.claude.settings._sandbox import read_sandbox  # not on a plain run's path

        sandbox = read_sandbox(settings, project, home, diags)
    worktree = None
    if any(s.file.data and "worktree" in s.file.data for s in settings):
        from dsh.hooks.claude.settings._worktree import read_worktree  # likewise

        worktree = read_worktree(settings, diags)
    suites: list[Suite] = []
    for s in settings:
        suite = Suite(kind=s.file.source.kind, files=[s.file])
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
        installed_plugins(config_dir, project, policy.admits, diags)
        if discover_installed_plugins
        else []
    )
    seen_roots: set[Path] = set()
    project_plugins: dict[str, str] = {}
    for _root, installed_id in installed:
        chosen_by = policy.project_choice(installed_id)
        if chosen_by is not None:
            project_plugins[installed_id] = chosen_by
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
        suites.append(plugin_suite(resolved, plugin_id, config_dir, project, diags))

    entries: list[SourceEntry] = []
    admitted: list[HookDeclaration] = []
    for suite in suites:
        suite.disabled = _disabled_reason(suite, policy)
        entries.extend(_mount(suite, diags, admitted))
    admitted = http_policy(settings, diags).apply(admitted, diags)

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
        permissions=permissions,
        project_plugins=FrozenDict(project_plugins),
        env_layers=settings_env(settings, diags),
        sandbox=sandbox,
        bash_edit_diff=policy.bash_edit_diff,
        worktree=worktree,
    )


def _mount(suite: Suite, diags: Diagnostics, admitted: list[HookDeclaration]) -> list[SourceEntry]:
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


def _in_suite(diag: Diagnostic, suite: Suite) -> bool:
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
