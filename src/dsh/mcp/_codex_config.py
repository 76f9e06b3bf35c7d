"""Codex's MCP servers: the ``[mcp_servers.NAME]`` tables of its ``config.toml``.

Codex 0.171's keys: ``command``, ``args``, ``env``, ``cwd`` (stdio); ``url``,
``bearer_token_env_var``, ``http_headers``, ``env_http_headers`` (streamable HTTP);
``startup_timeout_sec`` (or ``startup_timeout_ms``; default 10), ``tool_timeout_sec``
(default 60), ``enabled_tools``, ``disabled_tools``, ``enabled`` (``false``: not started)
and ``required`` (``true``: the session does not open without it). The top-level
``mcp_optional_startup_grace_ms`` bounds how long the first request waits for them
(``McpServer.startup_grace_sec``). A table with a wrong key's type is left out with a
diagnostic naming the file and the table; the others start. Codex does not expand
``${VAR}`` in them (nor does dsh).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from dsh._schema import SchemaRefusal, decode
from dsh.base import FrozenDict
from dsh.mcp._spec import McpServer

__all__ = ["codex_mcp_servers"]

_GRACE_MS: Final = 1000
"""Codex 0.171's ``mcp_optional_startup_grace_ms`` when unset: its first request waits this
long for servers still starting, then goes without them (``record_codex_slow_mcp.py``)."""


def _grace(value: object, file: str, problems: list[str]) -> float | None:
    """The grace ``mcp_optional_startup_grace_ms`` gives, in seconds (``0``: none, every
    server is waited for, as 0.171 waits; unset or wrong: the default, a wrong one said)."""
    if value is None:
        return _GRACE_MS / 1000
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(f"{file}: mcp_optional_startup_grace_ms: should be a whole number >= 0")
        return _GRACE_MS / 1000
    return None if value == 0 else value / 1000


class _Table(msgspec.Struct):
    command: str | None = None
    args: list[str] = msgspec.field(default_factory=list)
    env: dict[str, str] = msgspec.field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    bearer_token_env_var: str | None = None
    http_headers: dict[str, str] = msgspec.field(default_factory=dict)
    env_http_headers: dict[str, str] = msgspec.field(default_factory=dict)
    startup_timeout_sec: float | None = None
    startup_timeout_ms: int | None = None
    tool_timeout_sec: float | None = None
    enabled_tools: list[str] | None = None
    disabled_tools: list[str] = msgspec.field(default_factory=list)
    enabled: bool = True
    required: bool = False


def codex_mcp_servers(
    config: Mapping[str, Any], *, file: str, env: Mapping[str, str] | None = None
) -> tuple[list[McpServer], list[str]]:
    """The enabled servers of one parsed ``config.toml`` and the diagnostics."""
    env = os.environ if env is None else env
    tables = config.get("mcp_servers")
    if tables is None:
        return [], []
    if not isinstance(tables, dict):
        return [], [f"{file}: mcp_servers: should be a table of servers"]
    servers: list[McpServer] = []
    problems: list[str] = []
    grace = _grace(config.get("mcp_optional_startup_grace_ms"), file, problems)
    for name, table in tables.items():
        where = f"{file}: [mcp_servers.{name}]"
        try:
            t = decode(table, _Table)
        except SchemaRefusal as refusal:
            for error in refusal.errors:
                place = ".".join(str(p) for p in error.loc)
                problems.append(f"{where} {place}: {error.msg}")
            continue
        if (t.command is None) == (t.url is None):
            problems.append(f"{where}: give either `command` (stdio) or `url` (HTTP)")
            continue
        if not t.enabled:
            continue
        startup = t.startup_timeout_sec
        if startup is None:
            startup = t.startup_timeout_ms / 1000 if t.startup_timeout_ms is not None else 10.0
        headers = dict(t.http_headers)
        headers.update({k: env[v] for k, v in t.env_http_headers.items() if v in env})
        common: dict[str, Any] = {
            "name": name,
            "source": "codex",
            "where": where,
            "startup_timeout_sec": startup,
            "tool_timeout_sec": 60.0 if t.tool_timeout_sec is None else t.tool_timeout_sec,
            "enabled_tools": None if t.enabled_tools is None else tuple(t.enabled_tools),
            "disabled_tools": tuple(t.disabled_tools),
            "startup_grace_sec": grace,
            "required": t.required,
        }
        if t.command is not None:
            server = McpServer(
                transport="stdio",
                command=t.command,
                args=tuple(t.args),
                env=FrozenDict(t.env),
                cwd=t.cwd,
                **common,
            )
        else:
            server = McpServer(
                transport="http",
                url=t.url or "",
                headers=FrozenDict(headers),
                bearer_token_env_var=t.bearer_token_env_var,
                **common,
            )
        servers.append(server)
    return servers, problems
