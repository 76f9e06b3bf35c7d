"""An ACP client's ``mcpServers`` (``session/new``, ``session/load``) as dsh's MCP servers.

stdio (``command``, ``args``, ``env`` as name/value pairs), ``http`` and ``sse`` (``url``,
``headers``), each ``source: acp``, started with the session beside the project's own
(``dsh.mcp``); an ACP-transport server (``acp``) is not supported and named in a notice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dsh.base import FrozenDict
from dsh.mcp import McpServer

__all__ = ["acp_mcp_servers"]


def _pairs(items: Any) -> FrozenDict:
    return FrozenDict({str(i.name): str(i.value) for i in items or ()})


def acp_mcp_servers(given: Sequence[Any] | None) -> tuple[tuple[McpServer, ...], tuple[str, ...]]:
    """The servers the client gave, and a notice for each dsh cannot start."""
    servers: list[McpServer] = []
    notices: list[str] = []
    for n, server in enumerate(given or ()):
        name = str(getattr(server, "name", "") or f"server{n}")
        where = f"session/new mcpServers[{n}] ({name})"
        kind = getattr(server, "type", None)
        if hasattr(server, "command"):
            servers.append(
                McpServer(
                    name=name,
                    transport="stdio",
                    source="acp",
                    where=where,
                    command=str(server.command),
                    args=tuple(str(a) for a in server.args or ()),
                    env=_pairs(server.env),
                )
            )
        elif kind in ("http", "sse") and hasattr(server, "url"):
            servers.append(
                McpServer(
                    name=name,
                    transport=kind,
                    source="acp",
                    where=where,
                    url=str(server.url),
                    headers=_pairs(server.headers),
                )
            )
        else:
            notices.append(f"MCP server {name!r} ({where}): its transport is not supported")
    return tuple(servers), tuple(notices)
