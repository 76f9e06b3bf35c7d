"""``load_codex_catalog``: every Codex hook source of a project, as Codex 0.171 collects them.

Managed ``requirements.toml`` ``[hooks]`` first, then each config layer from
lowest precedence up: system (``/etc/codex``), user (``$CODEX_HOME``, default
``~/.codex``) and the project's ``.codex/``, which loads only when the project
is trusted (``[projects."<path>"] trust_level = "trusted"`` in the user's
``config.toml``, as Codex records it). In each layer ``hooks.json`` comes
before ``config.toml``'s ``[hooks]``; Codex runs every matching hook of every
layer. Each command handler gets its trust (``_trust``): managed hooks always
run; the others only when trusted or when trust is bypassed
(``--dangerously-bypass-hook-trust``). Nothing here raises for bad input: a
problem is a ``CodexDiagnostic``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, Final

from dsh.base import freeze_json, read_head
from dsh.hook_protocol._regex import unsafe_char_problem
from dsh.hooks.codex.config._layer_keys import layer_keys
from dsh.hooks.codex.config._matcher import CodexMatcher, CodexMatcherError
from dsh.hooks.codex.config._parse import (
    MAX_SOURCE_BYTES,
    DeclaredHandler,
    McpToolHandler,
    ParsedSource,
    parse_hooks_json,
    parse_hooks_table,
)
from dsh.hooks.codex.config._plugins import PluginHooks, enabled_plugins
from dsh.hooks.codex.config._trust import (
    MAX_USER_CONFIG_BYTES,
    HookState,
    hook_hash,
    hook_key,
    mcp_hook_hash,
    read_states,
)
from dsh.hooks.codex.config._types import (
    CodexCatalog,
    CodexDiagnostic,
    CodexHook,
    CodexLayer,
    CodexMcpTool,
    TrustStatus,
)
from dsh.hooks.codex.events._specs import (
    CONTEXT_LIMIT_EVENTS,
    DEFAULT_TIMEOUT,
    MATCHER_FIELDS,
    SHORT_TIMEOUT_CAP,
    SHORT_TIMEOUT_DEFAULT,
    SHORT_TIMEOUT_EVENTS,
)

__all__ = [
    "DEFAULT_SYSTEM_DIR",
    "MAX_RUN_TIMEOUT",
    "codex_home",
    "load_codex_catalog",
    "project_trusted",
    "read_toml",
]

DEFAULT_SYSTEM_DIR: Final = Path("/etc/codex")
MAX_RUN_TIMEOUT: Final = 7 * 24 * 3600
"""Seconds dsh lets a hook run at most, whatever its ``timeout`` says (Codex sets no bound)."""

_MANAGED_KEYS: Final = frozenset({"managed_dir", "windows_managed_dir"})


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    """``$CODEX_HOME``, else ``~/.codex``, made absolute."""
    environ = os.environ if env is None else env
    configured = environ.get("CODEX_HOME")
    home = Path(configured).expanduser() if configured else Path.home() / ".codex"
    return home.absolute()


def read_toml(
    path: Path, diagnostics: list[CodexDiagnostic], *, limit: int = MAX_SOURCE_BYTES
) -> dict[str, Any] | None:
    """``path`` parsed as TOML, or ``None`` (absent, or a diagnostic saying why not); read
    within ``limit`` bytes (the user's ``config.toml``: ``MAX_USER_CONFIG_BYTES``)."""
    data = _read(path, diagnostics, limit)
    if data is None:
        return None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        diagnostics.append(
            CodexDiagnostic(
                source=str(path),
                reason=f"not valid TOML ({exc}); none of its hooks or trust records load",
                severity="error",
            )
        )
        return None


def _read(
    path: Path, diagnostics: list[CodexDiagnostic], limit: int = MAX_SOURCE_BYTES
) -> bytes | None:
    try:
        if not path.is_file():
            return None
        head = read_head(path, limit, "hook file")
    except (OSError, ValueError) as exc:
        diagnostics.append(
            CodexDiagnostic(source=str(path), reason=f"cannot be read: {exc}", severity="error")
        )
        return None
    if head.cut:
        diagnostics.append(
            CodexDiagnostic(
                source=str(path),
                reason=f"larger than {limit} bytes: not loaded",
                severity="error",
            )
        )
        return None
    return head.data


def project_trusted(project: Path, user_config: Mapping[str, Any] | None) -> bool:
    """Whether the user's ``config.toml`` trusts ``project`` or a folder above it."""
    projects = (user_config or {}).get("projects")
    if not isinstance(projects, dict):
        return False
    for folder in (project, *project.parents):
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return True
    return False


class _Builder:
    """Numbers the handlers in display order and gives each its trust."""

    def __init__(
        self, states: Mapping[str, HookState], *, bypass: bool, managed_only: bool
    ) -> None:
        self.states = states
        self.bypass = bypass
        self.managed_only = managed_only
        self.hooks: list[CodexHook] = []
        self.diagnostics: list[CodexDiagnostic] = []
        self.order = 0

    def add(
        self,
        source: Path,
        layer: CodexLayer,
        parsed: ParsedSource,
        *,
        plugin: PluginHooks | None = None,
    ) -> None:
        self.diagnostics.extend(parsed.diagnostics)
        bad_groups: set[tuple[str, int]] = set()
        for declared in parsed.handlers:
            hook = self._hook(source, layer, declared, bad_groups, plugin)
            self.order += 1
            if hook is not None:
                self.hooks.append(hook)

    def _warn(
        self, source: Path, declared: DeclaredHandler, reason: str, *, group_only: bool = False
    ) -> None:
        self.diagnostics.append(
            CodexDiagnostic(
                source=str(source),
                reason=reason,
                event=declared.event,
                group=declared.group,
                index=None if group_only else declared.index,
            )
        )

    def _hook(
        self,
        source: Path,
        layer: CodexLayer,
        declared: DeclaredHandler,
        bad: set[tuple[str, int]],
        plugin: PluginHooks | None,
    ) -> CodexHook | None:
        event, h = declared.event, declared.handler
        if (event, declared.group) in bad:
            return None
        try:
            matcher = (
                CodexMatcher.parse(declared.matcher)
                if event in MATCHER_FIELDS
                else CodexMatcher.everything(declared.matcher)
            )
        except CodexMatcherError as exc:
            bad.add((event, declared.group))
            self._warn(
                source, declared, f"{exc}: the group is skipped, as Codex skips it", group_only=True
            )
            return None
        if isinstance(h, McpToolHandler):
            return self._mcp_hook(source, layer, declared, h, matcher, plugin)
        if not h.command.strip():
            self._warn(source, declared, "`command` is empty: skipped")
            return None
        problem = unsafe_char_problem(h.command)
        if problem is not None:
            self._warn(source, declared, f"`command` has {problem}: skipped")
            return None
        short = event in SHORT_TIMEOUT_EVENTS
        timeout = (
            h.timeout
            if h.timeout is not None
            else (SHORT_TIMEOUT_DEFAULT if short else DEFAULT_TIMEOUT)
        )
        timeout = max(timeout, 1)
        if short and timeout > SHORT_TIMEOUT_CAP:
            self._warn(
                source,
                declared,
                f"clamping {event} hook timeout to {SHORT_TIMEOUT_CAP}s (as Codex does)",
            )
            timeout = SHORT_TIMEOUT_CAP
        run_async = h.run_async and event != "SessionEnd"
        context_limit = h.additional_context_limit
        if context_limit is not None and event not in CONTEXT_LIMIT_EVENTS:
            self._warn(
                source,
                declared,
                f"ignoring additionalContextLimit for {event}: this event cannot emit"
                " additionalContext (as Codex does)",
            )
            context_limit = None
        if h.run_async and not run_async:
            self._warn(
                source, declared, "running async SessionEnd hook synchronously (as Codex does)"
            )
        key = hook_key(
            source if plugin is None else plugin.key_source, event, declared.group, declared.index
        )
        digest = hook_hash(
            event,
            declared.matcher,
            command=h.command,
            timeout=timeout,
            run_async=h.run_async,
            status_message=h.status_message,
            additional_context_limit=context_limit,
        )
        if timeout > MAX_RUN_TIMEOUT:
            self._warn(source, declared, f"timeout {timeout}s is cut to {MAX_RUN_TIMEOUT}s")
        return CodexHook(
            event=event,
            source=source,
            layer=layer,
            group=declared.group,
            index=declared.index,
            matcher=matcher,
            command=h.command,
            timeout=min(timeout, MAX_RUN_TIMEOUT),
            run_async=run_async,
            status_message=h.status_message,
            additional_context_limit=context_limit,
            display_order=self.order,
            key=key,
            trusted_hash=digest,
            trust=self._trust(layer, key, digest),
            plugin=None if plugin is None else plugin.plugin_id,
            env=None if plugin is None else plugin.env,
        )

    def _mcp_hook(
        self,
        source: Path,
        layer: CodexLayer,
        declared: DeclaredHandler,
        h: McpToolHandler,
        matcher: CodexMatcher,
        plugin: PluginHooks | None,
    ) -> CodexHook | None:
        """An ``mcp_tool`` handler, as 0.171 admits it (empty names: skipped, as it says)."""
        event = declared.event
        if not h.server.strip() or not h.tool.strip():
            self._warn(source, declared, "`mcp_tool`: server and tool must not be empty: skipped")
            return None
        short = event in SHORT_TIMEOUT_EVENTS
        default = SHORT_TIMEOUT_DEFAULT if short else DEFAULT_TIMEOUT
        timeout = max(h.timeout if h.timeout is not None else default, 1)
        if short:
            timeout = min(timeout, SHORT_TIMEOUT_CAP)
        key = hook_key(
            source if plugin is None else plugin.key_source, event, declared.group, declared.index
        )
        target = CodexMcpTool(server=h.server, tool=h.tool, input=freeze_json(h.input or {}))
        digest = mcp_hook_hash(
            event,
            declared.matcher,
            server=h.server,
            tool=h.tool,
            input=h.input or {},
            timeout=timeout,
            status_message=h.status_message,
        )
        return CodexHook(
            event=event,
            source=source,
            layer=layer,
            group=declared.group,
            index=declared.index,
            matcher=matcher,
            command=f"{h.server}/{h.tool}",
            timeout=min(timeout, MAX_RUN_TIMEOUT),
            status_message=h.status_message,
            display_order=self.order,
            key=key,
            trusted_hash=digest,
            trust=self._trust(layer, key, digest),
            plugin=None if plugin is None else plugin.plugin_id,
            mcp_tool=target,
        )

    def _trust(self, layer: CodexLayer, key: str, digest: str) -> TrustStatus:
        if layer == "managed":
            return "managed"
        state = self.states.get(key)
        if state is not None and not state.enabled:
            return "disabled"
        if self.bypass:
            return "bypassed"
        if state is None or state.trusted_hash is None:
            return "untrusted"
        return "trusted" if state.trusted_hash == digest else "changed"


def _layer_sources(
    folder: Path,
    diagnostics: list[CodexDiagnostic],
    refused: Collection[Path] = (),
    *,
    config: Mapping[str, Any] | None = None,
) -> list[tuple[Path, ParsedSource]]:
    """A layer folder's ``hooks.json`` then ``config.toml`` ``[hooks]`` (not ``refused`` ones);
    ``config``: its ``config.toml`` already read (the user's)."""
    out: list[tuple[Path, ParsedSource]] = []
    json_path = folder / "hooks.json"
    data = None if json_path in refused else _read(json_path, diagnostics)
    if data is not None:
        out.append((json_path, parse_hooks_json(json_path, data)))
    toml_path = folder / "config.toml"
    if config is None:
        config = None if toml_path in refused else read_toml(toml_path, diagnostics)
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
    into: list[CodexDiagnostic],
) -> list[tuple[CodexLayer, Path]]:
    """The config layers' folders, lowest precedence first; the project's only when trusted
    (else a diagnostic, when it declares hooks)."""
    layers: list[tuple[CodexLayer, Path]] = []
    if system_dir is not None:
        layers.append(("system", system_dir))
    layers.append(("user", home))
    project_dir = project / ".codex"
    if trusted:
        layers.append(("project", project_dir))
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
) -> CodexCatalog:
    """The project's Codex hooks with their trust, in Codex's display order, and diagnostics.

    ``home`` is ``$CODEX_HOME`` (default from ``env``, else ``~/.codex``);
    ``system_dir`` the system layer (``None``: none) and ``requirements`` the
    managed ``requirements.toml`` (default ``system_dir/requirements.toml``);
    ``trust_project`` overrides the user config's project trust;
    ``bypass_trust`` runs every non-managed hook (``--dangerously-bypass-hook-trust``);
    ``refused`` are files of the project's ``.codex/`` not to read (absolute paths: changed
    since dsh recorded the project layer, ``trust._layer``).
    """
    project = project.absolute()
    diagnostics: list[CodexDiagnostic] = []
    home = (home if home is not None else codex_home(env)).absolute()
    user_config = read_toml(home / "config.toml", diagnostics, limit=MAX_USER_CONFIG_BYTES)
    trusted_project = (
        trust_project if trust_project is not None else project_trusted(project, user_config)
    )
    if requirements is None and system_dir is not None:
        requirements = system_dir / "requirements.toml"
    managed = read_toml(requirements, diagnostics) if requirements is not None else None
    managed_only = bool((managed or {}).get("allow_managed_hooks_only") is True)
    builder = _Builder(
        read_states(user_config or {}), bypass=bypass_trust, managed_only=managed_only
    )
    sources: list[Path] = []
    table = (managed or {}).get("hooks")
    if isinstance(table, dict) and requirements is not None:
        events = {k: v for k, v in table.items() if k not in _MANAGED_KEYS}
        sources.append(requirements)
        builder.add(requirements, "managed", parse_hooks_table(requirements, events, toml=False))
    layers = _layers(project, home, system_dir, trusted=trusted_project, into=diagnostics)
    for layer, folder in layers:
        known = user_config if layer == "user" else None  # read once, within its bound
        for path, parsed in _layer_sources(folder.absolute(), diagnostics, refused, config=known):
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
    if not managed_only:
        for plugin in enabled_plugins(home, user_config, diagnostics):
            sources.append(plugin.source)
            builder.add(plugin.source, "plugin", plugin.parsed, plugin=plugin)
    # Each layer's config.toml read once more (within its bound) for the keys beside its
    # hooks; every reader adds its diagnostics before the catalog lists them.
    configs = [
        (path, _as_layer(layer, user_config if layer == "user" else read_toml(path, [])))
        for layer, folder in layers
        if (path := folder / "config.toml").absolute() not in refused
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
    from dsh.models._codex_layers import PROJECT_DENYLIST

    if layer != "project" or config is None:
        return config
    return {k: v for k, v in config.items() if k not in PROJECT_DENYLIST}
