"""``McpServer``: one MCP server as a configuration declares it, whatever file said so.

Every source (Claude Code's ``.mcp.json``, ``~/.claude.json``, ``--mcp-config``, a plugin's
``.mcp.json``; Codex's ``[mcp_servers.NAME]``; an ACP client's ``mcpServers``) becomes
this one value, its ``${VAR}`` references already expanded, so the connection code knows
no file format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import FrozenDict

__all__ = ["McpServer", "McpSource", "McpTransport"]

McpTransport: TypeAlias = Literal["stdio", "http", "sse"]
"""stdio (a command dsh starts), streamable HTTP, or the older HTTP+SSE."""

McpSource: TypeAlias = Literal["project", "user", "local", "dynamic", "plugin", "codex", "acp"]
"""Where the server was declared, in Claude Code's words where it has them (the
``mcp_server.source`` hooks are sent): ``project`` (``.mcp.json``), ``user`` and ``local``
(``~/.claude.json``), ``dynamic`` (``--mcp-config``), ``plugin``; dsh's own ``codex``
(``config.toml``) and ``acp`` (the client's ``session/new``)."""


@final
@frozen(kw_only=True)
class McpServer:
    """One server: its name, how to reach it, where it was declared and its limits.

    ``where`` names the file and the place (``.mcp.json: mcpServers.github``) for every
    message about it. ``tool_timeout_sec`` ``None``: no limit but the call's abort
    (Claude Code's default); ``enabled_tools`` ``None``: every tool (Codex's keys).
    """

    name: str
    transport: McpTransport
    source: McpSource
    where: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = FrozenDict()
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = FrozenDict()
    bearer_token_env_var: str | None = None
    startup_timeout_sec: float = 30.0
    tool_timeout_sec: float | None = None
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    startup_grace_sec: float | None = None
    """How long after the servers' start the first prompt waits for this one before it goes
    without it; ``None``: until it is connected or failed (within ``startup_timeout_sec``),
    as Claude Code waits. Codex 0.171 waits ``mcp_optional_startup_grace_ms`` (the tools of
    a server that answers later reach the model from the next request on)."""
    required: bool = False
    """Codex's ``required = true``: the session does not open unless this server starts
    (``McpRequiredError``, in Codex 0.171's words: ``required MCP servers failed to
    initialize: NAME: REASON``)."""

    def offers(self, tool: str) -> bool:
        """Whether the server's tool ``tool`` is put on the surface (Codex's filters)."""
        if self.enabled_tools is not None and tool not in self.enabled_tools:
            return False
        return tool not in self.disabled_tools

    def shown(self) -> str:
        """The command line or URL, for ``dsh mcp list`` and the trust review."""
        if self.transport == "stdio":
            import shlex

            return shlex.join([self.command, *self.args])
        return self.url
