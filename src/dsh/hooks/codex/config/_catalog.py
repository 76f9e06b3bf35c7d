"""``load_codex_catalog``: every Codex hook source of a project, as Codex 0.171 collects them.

Managed ``requirements.toml`` ``[hooks]`` first, then each config layer from
lowest precedence up: system (``/etc/codex``), user (``$CODEX_HOME``, default
``~/.codex``) and the project's ``.codex/``, which loads only when the project
is trusted (``[projects."<path>"] trust_level = "trusted"`` in the user's
``config.toml``, as Codex records it). In each layer ``hooks.json`` comes
before ``config.toml``'s ``[hooks]``; Codex runs every matching hook of every
layer. The handlers are admitted, numbered and given their trust by
``_builder.HookBuilder``; the files are read as the model set-up reads them
(``dsh.models._codex_files``: one bounded reader, one trust check). Nothing here
raises for bad input: a problem is a ``CodexDiagnostic``.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, Final

from dsh._frozen import frozen
from dsh.hooks.codex.config._builder import HookBuilder
from dsh.hooks.codex.config._layer_keys import layer_keys
from dsh.hooks.codex.config._parse import (
    MAX_SOURCE_BYTES,
    ParsedSource,
    parse_hooks_json,
    parse_hooks_table,
)
from dsh.hooks.codex.config._trust import MAX_USER_CONFIG_BYTES, read_states
from dsh.hooks.codex.config._types import CodexCatalog, CodexDiagnostic, CodexLayer
from dsh.models._codex_files import (
    ConfigFileError,
    find_codex_home,
    project_trusted,
    read_config,
    read_file,
)
from dsh.models._codex_layers import PROFILE_ENV_VAR, PROJECT_DENYLIST, check_profile_name

__all__ = ["DEFAULT_SYSTEM_DIR", "codex_home", "load_codex_catalog"]

DEFAULT_SYSTEM_DIR: Final = Path("/etc/codex")

_MANAGED_KEYS: Final = frozenset({"managed_dir", "windows_managed_dir"})


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    """``$CODEX_HOME``, else ``~/.codex``, made absolute: where the hooks bridge and the model
    set-up both look (``env``: default ``os.environ``)."""
    return find_codex_home(env)


def _read_toml(
    path: Path, diagnostics: list[CodexDiagnostic], *, limit: int = MAX_SOURCE_BYTES
) -> dict[str, Any] | None:
    """``path`` parsed as TOML, or ``None`` (absent, or a diagnostic saying why not); read
    within ``limit`` bytes (the user's ``config.toml``: ``MAX_USER_CONFIG_BYTES``)."""
    if not _is_file(path, diagnostics):
        return None
    try:
        return read_config(path, limit)
    except ConfigFileError as e:
        tail = "; none of its hooks or trust records load" if "TOML" in e.reason else ": not loaded"
        diagnostics.append(
            CodexDiagnostic(source=str(path), reason=e.reason + tail, severity="error")
        )
        return None


def _read(path: Path, diagnostics: list[CodexDiagnostic]) -> bytes | None:
    if not _is_file(path, diagnostics):
        return None
    try:
        return read_file(path, MAX_SOURCE_BYTES)
    except ConfigFileError as e:
        diagnostics.append(
            CodexDiagnostic(source=str(path), reason=f"{e.reason}: not loaded", severity="error")
        )
        return None


def _is_file(path: Path, diagnostics: list[CodexDiagnostic]) -> bool:
    """Whether ``path`` is a file (a folder or nothing there: no source, as Codex takes it)."""
    try:
        return path.is_file()
    except OSError as e:
        diagnostics.append(
            CodexDiagnostic(source=str(path), reason=f"cannot be read: {e}", severity="error")
        )
        return False


@frozen
class _Place:
    """A config layer: its name, its folder, its TOML file, whether the folder's
    ``hooks.json`` is part of it (not for a profile's ``NAME.config.toml``)."""

    layer: CodexLayer
    folder: Path
    toml: Path
    json: bool = True


def _layer_sources(
    place: _Place,
    diagnostics: list[CodexDiagnostic],
    refused: Collection[Path] = (),
    *,
    config: Mapping[str, Any] | None = None,
) -> list[tuple[Path, ParsedSource]]:
    """A layer folder's ``hooks.json`` then its TOML file's ``[hooks]`` (not ``refused``
    ones); ``config``: the TOML file already read (the user's)."""
    out: list[tuple[Path, ParsedSource]] = []
    folder = place.folder.absolute()
    json_path = folder / "hooks.json"
    refuse = json_path in refused or not place.json
    data = None if refuse else _read(json_path, diagnostics)
    if data is not None:
        out.append((json_path, parse_hooks_json(json_path, data)))
    toml_path = place.toml.absolute()
    if config is None:
        config = None if toml_path in refused else _read_toml(toml_path, diagnostics)
    table = (config or {}).get("hooks")
    if isinstance(table, dict) and any(k != "state" for k in table):
        out.append((toml_path, parse_hooks_table(toml_path, table, toml=True)))
    elif table is not None and not isinstance(table, dict):
        diagnostics.append(
            CodexDiagnostic(
                source=str(toml_path), reason="`hooks` is not a table: ignored", severity="error"
            )
        )
    if len(out) == 2 and out[0][1].handlers and out[1][1].handlers:
        diagnostics.append(
            CodexDiagnostic(
                source=str(folder),
                reason="loading hooks from both hooks.json and config.toml; prefer a single"
                " representation (Codex warns the same)",
            )
        )
    return out


def _layers(
    project: Path,
    home: Path,
    system_dir: Path | None,
    *,
    trusted: bool,
    profile: str | None,
    into: list[CodexDiagnostic],
) -> list[_Place]:
    """The config layers, lowest precedence first: system, user, the ``--profile``'s
    ``$CODEX_HOME/NAME.config.toml`` (as Codex 0.171 stacks it: its ``[hooks]`` run, its
    keys apply; recorded, ``tests/fixtures/codex_providers.json``), the project's only when
    trusted (else a diagnostic, when it declares hooks)."""
    layers: list[_Place] = []
    if system_dir is not None:
        layers.append(_Place("system", system_dir, system_dir / "config.toml"))
    layers.append(_Place("user", home, home / "config.toml"))
    if profile is not None:
        try:
            check_profile_name(profile)
            layers.append(_Place("user", home, home / f"{profile}.config.toml", json=False))
        except ValueError as e:
            into.append(CodexDiagnostic(source=str(home), reason=str(e), severity="error"))
    project_dir = project / ".codex"
    if trusted:
        layers.append(_Place("project", project_dir, project_dir / "config.toml"))
    elif (project_dir / "hooks.json").is_file() or (project_dir / "config.toml").is_file():
        into.append(
            CodexDiagnostic(
                source=str(project_dir),
                reason="the project is not trusted, so its .codex/ hooks are not loaded (trust it"
                f' in {home / "config.toml"} as Codex does: [projects."{project}"]'
                ' trust_level = "trusted")',
            )
        )
    return layers


def load_codex_catalog(
    project: Path,
    *,
    home: Path | None = None,
    system_dir: Path | None = DEFAULT_SYSTEM_DIR,
    requirements: Path | None = None,
    env: Mapping[str, str] | None = None,
    trust_project: bool | None = None,
    bypass_trust: bool = False,
    refused: Collection[Path] = (),
    profile: str | None = None,
) -> CodexCatalog:
    """The project's Codex hooks with their trust, in Codex's display order, and diagnostics.

    ``home`` is ``$CODEX_HOME`` (default from ``env``, else ``~/.codex``);
    ``system_dir`` the system layer (``None``: none) and ``requirements`` the
    managed ``requirements.toml`` (default ``system_dir/requirements.toml``);
    ``trust_project`` overrides the user config's project trust;
    ``bypass_trust`` runs every non-managed hook (``--dangerously-bypass-hook-trust``);
    ``refused`` are files of the project's ``.codex/`` not to read (absolute paths: changed
    since dsh recorded the project layer, ``trust._layer``); ``profile`` Codex's
    ``--profile NAME`` (default ``$DSH_CODEX_PROFILE`` from ``env``), whose file is a layer.
    """
    project = project.absolute()
    diagnostics: list[CodexDiagnostic] = []
    home = (home if home is not None else codex_home(env)).absolute()
    user_config = _read_toml(home / "config.toml", diagnostics, limit=MAX_USER_CONFIG_BYTES)
    trusted_project = (
        trust_project if trust_project is not None else project_trusted(project, user_config)
    )
    if requirements is None and system_dir is not None:
        requirements = system_dir / "requirements.toml"
    managed = _read_toml(requirements, diagnostics) if requirements is not None else None
    managed_only = bool((managed or {}).get("allow_managed_hooks_only") is True)
    builder = HookBuilder(
        read_states(user_config or {}), bypass=bypass_trust, managed_only=managed_only
    )
    sources: list[Path] = []
    table = (managed or {}).get("hooks")
    if isinstance(table, dict) and requirements is not None:
        events = {k: v for k, v in table.items() if k not in _MANAGED_KEYS}
        sources.append(requirements)
        builder.add(requirements, "managed", parse_hooks_table(requirements, events, toml=False))
    environ = os.environ if env is None else env
    profile = profile or environ.get(PROFILE_ENV_VAR) or None
    layers = _layers(
        project, home, system_dir, trusted=trusted_project, profile=profile, into=diagnostics
    )
    user_file = home / "config.toml"
    for place in layers:
        layer = place.layer
        known = user_config if place.toml == user_file else None  # read once, within its bound
        for path, parsed in _layer_sources(place, diagnostics, refused, config=known):
            sources.append(path)
            if managed_only:
                diagnostics.append(
                    CodexDiagnostic(
                        source=str(path),
                        reason="ignored: requirements.toml sets allow_managed_hooks_only",
                    )
                )
                continue
            builder.add(path, layer, parsed)
    if not managed_only and isinstance((user_config or {}).get("plugins"), dict):
        # Only a user config that lists plugins needs their reader (and its regex).
        from dsh.hooks.codex.config._plugins import enabled_plugins

        for plugin in enabled_plugins(home, user_config, diagnostics):
            sources.append(plugin.source)
            builder.add(plugin.source, "plugin", plugin.parsed, plugin=plugin)
    # Each layer's config.toml read once more (within its bound) for the keys beside its
    # hooks; every reader adds its diagnostics before the catalog lists them.
    configs = [
        (path, _as_layer(place.layer, user_config if path == user_file else _read_toml(path, [])))
        for place in layers
        if (path := place.toml).absolute() not in refused
    ]
    keys = layer_keys(configs, diagnostics)
    return CodexCatalog(
        hooks=tuple(builder.hooks),
        diagnostics=(*diagnostics, *builder.diagnostics),
        sources=tuple(sources),
        project_trusted=trusted_project,
        codex_home=home,
        permission_mode=keys.permission_mode,
        shell_environment_policy=keys.environment,
        auto_compact_tokens=keys.compact_tokens,
        notify=keys.notify,
        mcp_servers=keys.mcp_servers,
        sandbox=keys.sandbox,
        otel=keys.otel,
    )


def _as_layer(layer: CodexLayer, config: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """A layer's config.toml as Codex 0.171 honours it: a project's without the keys it
    ignores there (``notify``, ``[otel]``, …; recorded: tests/fixtures/codex_model_config.json)."""
    if layer != "project" or config is None:
        return config
    return {k: v for k, v in config.items() if k not in PROJECT_DENYLIST}
