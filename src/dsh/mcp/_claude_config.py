"""Claude Code's MCP servers, read as Claude Code 2.1.332 reads them.

Where they come from, lowest precedence first (a later one of the same name wins):
``~/.claude.json``'s ``mcpServers`` (``user``), the project's ``.mcp.json`` (``project``),
``~/.claude.json``'s ``projects[<project>].mcpServers`` (``local``), each ``--mcp-config``
file or inline JSON (``dynamic``); plugins' ``.mcp.json`` (``plugin``, named
``plugin:<plugin>:<server>``, ``${CLAUDE_PLUGIN_ROOT}`` set to the plugin's root) come
beside them. ``--strict-mcp-config``: the ``--mcp-config`` servers alone.
(``$CLAUDE_CONFIG_DIR/.claude.json`` stands for ``~/.claude.json`` when that is set.)

Project servers and the settings that approve them: ``disabledMcpjsonServers`` (any
settings file, or the project's entry in ``~/.claude.json``) keeps a server from starting;
``enableAllProjectMcpServers`` and ``enabledMcpjsonServers`` approve, which Claude Code asks
about interactively and does without in ``-p`` (the recordings: an unapproved project
server starts all the same). dsh asks its own question instead, the project trust review
(a project server is a command like a hook: ``dsh.hooks.claude.trust``).

Each file is validated at the edge: a server whose entry is wrong is left out with a
diagnostic naming the file and the place (``.mcp.json: mcpServers.github.args[1]: Input
should be a valid string``); an unreadable ``--mcp-config`` is an error (``McpConfigError``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, final

import msgspec

from dsh._frozen import frozen
from dsh._schema import SchemaRefusal, decode
from dsh.base import DshError, FrozenDict, UnsafeJSONError, load_json, read_bounded
from dsh.mcp._expand import expand
from dsh.mcp._spec import McpServer, McpSource

__all__ = [
    "ClaudeMcpConfig",
    "McpConfigError",
    "claude_config_file",
    "claude_mcp_servers",
    "parse_mcp_json",
]

_FILE_BOUND = 4 << 20
"""The most of one configuration file read (``~/.claude.json`` grows with history)."""


class McpConfigError(DshError, ValueError):
    """A ``--mcp-config`` that cannot be used: the file or text, and why."""


class _Stdio(msgspec.Struct):
    command: str
    type: Literal["stdio"] = "stdio"
    args: list[str] = msgspec.field(default_factory=list)
    env: dict[str, str] = msgspec.field(default_factory=dict)


class _Remote(msgspec.Struct):
    type: Literal["http", "sse"]
    url: str
    headers: dict[str, str] = msgspec.field(default_factory=dict)


_UNSUPPORTED = {
    "ws": "WebSocket servers are not supported by dsh",
    "sdk": "SDK servers live inside an SDK program, not in a file",
    "claudeai-proxy": "claude.ai connectors are not supported by dsh",
}


@final
@frozen
class ClaudeMcpConfig:
    """The servers a session starts (after approval settings), and what was not admitted."""

    servers: tuple[McpServer, ...]
    diagnostics: tuple[str, ...]


def parse_mcp_json(
    data: Any, *, source: McpSource, file: str, env: Mapping[str, str], cwd: str | None = None
) -> tuple[list[McpServer], list[str]]:
    """The servers of one ``{"mcpServers": {...}}`` document, expanded, and the diagnostics."""
    if not isinstance(data, dict):
        return [], [f"{file}: the file should hold a JSON object"]
    declared = data.get("mcpServers")
    if declared is None:
        return [], []
    if not isinstance(declared, dict):
        return [], [f"{file}: mcpServers: Input should be a valid dictionary"]
    servers: list[McpServer] = []
    problems: list[str] = []
    for name, entry in declared.items():
        where = f"{file}: mcpServers.{name}"
        server = _server(name, entry, source=source, where=where, env=env, cwd=cwd, out=problems)
        if server is not None:
            servers.append(server)
    return servers, problems


def _server(
    name: str,
    entry: Any,
    *,
    source: McpSource,
    where: str,
    env: Mapping[str, str],
    cwd: str | None,
    out: list[str],
) -> McpServer | None:
    if not name or not isinstance(entry, dict):
        out.append(f"{where}: Input should be a valid dictionary" if name else f"{where}: no name")
        return None
    kind = entry.get("type", "stdio")
    if kind in _UNSUPPORTED:
        out.append(f"{where}: type {kind!r}: {_UNSUPPORTED[kind]}; left out")
        return None
    try:
        shape = decode(entry, _Stdio) if kind == "stdio" else decode(entry, _Remote)
    except SchemaRefusal as refusal:
        for error in refusal.errors:
            place = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.loc)
            out.append(f"{where}{place}: {error.msg}")
        return None
    missing: set[str] = set()
    if isinstance(shape, _Stdio):
        server = McpServer(
            name=name,
            transport="stdio",
            source=source,
            where=where,
            command=expand(shape.command, env, missing),
            args=tuple(expand(a, env, missing) for a in shape.args),
            env=FrozenDict({k: expand(v, env, missing) for k, v in shape.env.items()}),
            cwd=cwd,
        )
    else:
        server = McpServer(
            name=name,
            transport=shape.type,
            source=source,
            where=where,
            url=expand(shape.url, env, missing),
            headers=FrozenDict({k: expand(v, env, missing) for k, v in shape.headers.items()}),
        )
    if missing:
        out.append(f"{where}: missing environment variables: {', '.join(sorted(missing))}")
    return server


def claude_config_file(home: Path, env: Mapping[str, str]) -> Path:
    """``~/.claude.json``, or ``$CLAUDE_CONFIG_DIR/.claude.json`` when that is set."""
    configured = env.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() / ".claude.json" if configured else home / ".claude.json"


def _read_json(path: Path, what: str, problems: list[str]) -> Any:
    """The JSON of ``path``; ``None`` when it is missing or unreadable (the latter said)."""
    try:
        return load_json(read_bounded(path, _FILE_BOUND, what))
    except FileNotFoundError:
        return None
    except (OSError, UnsafeJSONError) as exc:
        problems.append(f"{path}: {exc}")
        return None


def _dynamic(given: str, env: Mapping[str, str]) -> tuple[list[McpServer], list[str]]:
    """One ``--mcp-config`` argument: a file, or inline JSON (``McpConfigError`` if neither)."""
    text = given.strip()
    if text.startswith("{"):
        where = "--mcp-config (inline JSON)"
        try:
            data = load_json(text)
        except UnsafeJSONError as exc:
            raise McpConfigError(f"{where}: not valid JSON: {exc}") from None
    else:
        path = Path(given).expanduser().absolute()  # as given: against the working directory
        where = f"--mcp-config {given}"
        try:
            data = load_json(read_bounded(path, _FILE_BOUND, "MCP configuration file"))
        except FileNotFoundError:
            raise McpConfigError(f"{where}: file not found: {path}") from None
        except (OSError, UnsafeJSONError) as exc:
            raise McpConfigError(f"{where}: {exc}") from None
    servers, problems = parse_mcp_json(data, source="dynamic", file=where, env=env)
    if problems:
        raise McpConfigError("invalid MCP configuration:\n  " + "\n  ".join(problems))
    return servers, problems


def _approval(
    project: Path, home: Path, env: Mapping[str, str], local: Mapping[str, Any]
) -> tuple[set[str], list[str]]:
    """The project servers the settings disable, and what could not be read."""
    problems: list[str] = []
    configured = env.get("CLAUDE_CONFIG_DIR")
    user_dir = Path(configured).expanduser() if configured else home / ".claude"
    files = (
        user_dir / "settings.json",
        project / ".claude" / "settings.json",
        project / ".claude" / "settings.local.json",
    )
    disabled: set[str] = set()
    for layer in [*(_read_json(f, "settings file", problems) for f in files), local]:
        listed = layer.get("disabledMcpjsonServers") if isinstance(layer, dict) else None
        if isinstance(listed, list):
            disabled.update(n for n in listed if isinstance(n, str))
    return disabled, problems


def claude_mcp_servers(
    project: Path,
    *,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    mcp_config: Sequence[str] = (),
    strict: bool = False,
    plugin_roots: Mapping[str, Path] | None = None,
) -> ClaudeMcpConfig:
    """Every server Claude Code would start in ``project`` (see the module's docstring);
    ``plugin_roots`` maps each enabled plugin to its root. ``McpConfigError`` for a
    ``--mcp-config`` that cannot be used, as Claude Code exits on one."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    project = project.absolute()
    dynamic: list[McpServer] = []
    for given in mcp_config:
        dynamic.extend(_dynamic(given, env)[0])
    if strict:
        return ClaudeMcpConfig(tuple(_by_name(dynamic)), ())
    problems: list[str] = []
    config_file = claude_config_file(home, env)
    config = _read_json(config_file, "Claude Code configuration", problems) or {}
    config = config if isinstance(config, dict) else {}
    user, found = parse_mcp_json(config, source="user", file=str(config_file), env=env)
    problems += found
    projects = config.get("projects")
    local_entry = projects.get(str(project)) if isinstance(projects, dict) else None
    local_entry = local_entry if isinstance(local_entry, dict) else {}
    local, found = parse_mcp_json(
        local_entry, source="local", file=f"{config_file}: projects[{str(project)!r}]", env=env
    )
    problems += found
    mcp_json = project / ".mcp.json"
    data = _read_json(mcp_json, "MCP configuration file", problems)
    shared, found = (
        ([], [])
        if data is None
        else parse_mcp_json(data, source="project", file=".mcp.json", env=env, cwd=str(project))
    )
    problems += found
    disabled, found = _approval(project, home, env, local_entry)
    problems += found
    shared = [s for s in shared if s.name not in disabled]
    plugins: list[McpServer] = []
    for plugin, root in (plugin_roots or {}).items():
        plugin_env = {**env, "CLAUDE_PLUGIN_ROOT": str(root)}
        data = _read_json(root / ".mcp.json", "plugin MCP configuration", problems)
        found_servers, found = (
            ([], [])
            if data is None
            else parse_mcp_json(
                data,
                source="plugin",
                file=f"plugin {plugin}: .mcp.json",
                env=plugin_env,
                cwd=str(root),
            )
        )
        problems += found
        for s in found_servers:
            plugins.append(_renamed(s, f"plugin:{plugin}:{s.name}"))
    merged = _by_name([*user, *shared, *local, *dynamic]) + plugins
    return ClaudeMcpConfig(tuple(merged), tuple(problems))


def _renamed(server: McpServer, name: str) -> McpServer:
    import dataclasses

    return dataclasses.replace(server, name=name)


def _by_name(servers: Sequence[McpServer]) -> list[McpServer]:
    """One server per name, the last declaration winning, in first-declared order."""
    kept: dict[str, McpServer] = {}
    for server in servers:
        kept[server.name] = server
    return list(kept.values())
