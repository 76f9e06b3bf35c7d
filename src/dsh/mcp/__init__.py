"""MCP: the servers users configure, as each tool reads them, and their tools on dsh's surface.

Configuration (``_claude_config``: Claude Code's files; ``_codex_config``: Codex's
``config.toml``) becomes ``McpServer`` values; the connections (``_connection``, on the
official ``mcp`` SDK, imported only when a server is configured) start in parallel at
session start (``_servers``); each server tool becomes a ``ToolDefinition``
(``_tools``) named ``mcp__<server>__<tool>``, so its calls go through the five phases
like a built-in tool's. docs/mcp.md.
"""

from __future__ import annotations

from dsh._public import publish
from dsh.mcp._claude_config import (
    ClaudeMcpConfig,
    McpConfigError,
    claude_config_file,
    claude_mcp_servers,
    parse_mcp_json,
)
from dsh.mcp._codex_config import codex_mcp_servers
from dsh.mcp._elicitation import (
    ELICITATION,
    ElicitAction,
    ElicitationAnswer,
    ElicitationRequest,
)
from dsh.mcp._expand import expand
from dsh.mcp._spec import McpServer, McpSource, McpTransport

__all__ = [
    "ELICITATION",
    "ClaudeMcpConfig",
    "ElicitAction",
    "ElicitationAnswer",
    "ElicitationRequest",
    "McpConfigError",
    "McpServer",
    "McpSource",
    "McpTransport",
    "claude_config_file",
    "claude_mcp_servers",
    "codex_mcp_servers",
    "expand",
    "parse_mcp_json",
]

publish(globals())
