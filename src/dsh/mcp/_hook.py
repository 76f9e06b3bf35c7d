"""The ``mcp_tool`` hook handler's work, protocol-neutral: call a server's tool with the
handler's ``input``, ``${path}`` filled from the hook's input, and give back its text.

Claude Code 2.1.332 (the ``mcp-tool-handler`` recording, its debug log): a handler
``{"type": "mcp_tool", "server": S, "tool": T, "input": {...}}`` calls ``S``'s ``T`` with
``input``, each string in it with ``${path}`` replaced by the hook input's value at that
dotted path (``${prompt}``, ``${tool_input.command}``; a value that is not a string as its
JSON; a path that is not there as empty text); the tool's text is then read as a command
hook's stdout (JSON when it starts with ``{``, else plain text). A failure (no such server,
not connected, the call failed or returned ``isError``) is an ``McpHookRun`` with ``error``
set, never an exception.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import thaw_json
from dsh.mcp._errors import McpCallError
from dsh.mcp._session import McpServers

__all__ = ["HookFailure", "McpHookRun", "fill_input", "run_mcp_tool_hook", "run_on_hook_input"]

HookFailure: TypeAlias = Literal["not_connected", "call", "tool"]
"""Why a call gave no answer: no such server or not connected, the call failed, the tool
answered ``isError`` (2.1.332 words each differently when it fails closed)."""

_PATH = re.compile(r"\$\{([A-Za-z0-9_.\-]+)\}")


@final
@frozen
class McpHookRun:
    """What an ``mcp_tool`` handler's call gave: the tool's text, or why there is none."""

    text: str = ""
    error: str | None = None
    failure: HookFailure | None = None


def _lookup(data: Any, path: str) -> str:
    value = data
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        else:
            return ""
    return value if isinstance(value, str) else json.dumps(thaw_json(value), ensure_ascii=False)


def fill_input(template: Any, hook_input: Mapping[str, Any]) -> Any:
    """``template`` with every ``${path}`` in its strings filled from ``hook_input``."""
    if isinstance(template, str):
        return _PATH.sub(lambda m: _lookup(hook_input, m.group(1)), template)
    if isinstance(template, Mapping):
        return {k: fill_input(v, hook_input) for k, v in template.items()}
    if isinstance(template, list | tuple):
        return [fill_input(v, hook_input) for v in template]
    return template


async def run_mcp_tool_hook(
    servers: McpServers | None,
    server: str,
    tool: str,
    template: Mapping[str, Any],
    hook_input: Mapping[str, Any],
) -> McpHookRun:
    """Call ``server``'s ``tool`` as an ``mcp_tool`` handler does (see the module)."""
    if servers is None:
        return McpHookRun(
            error=f"no MCP server named {server!r} is configured", failure="not_connected"
        )
    try:
        connection = servers.connection(server)
        await connection.ready()
    except McpCallError as exc:
        return McpHookRun(error=str(exc), failure="not_connected")
    if connection.state != "connected":
        why = connection.error or f"it is {connection.state}"
        error = f"MCP server {server!r} is not connected: {why}"
        return McpHookRun(error=error, failure="not_connected")
    try:
        result = await connection.call(tool, fill_input(template, hook_input))
    except McpCallError as exc:
        return McpHookRun(error=str(exc), failure="call")
    text = "\n".join(str(c.get("text", "")) for c in result.content if c.get("type") == "text")
    if result.is_error:
        error = text or f"{server}/{tool} returned an error"
        return McpHookRun(text=text, error=error, failure="tool")
    return McpHookRun(text=text)


async def run_on_hook_input(
    servers: McpServers | None,
    server: str,
    tool: str,
    template: Mapping[str, Any],
    payload: bytes,
) -> McpHookRun:
    """``run_mcp_tool_hook`` on a hook's input as the bridge encoded it (both bridges'
    ``mcp_tool`` handlers take it so)."""
    from dsh.base import UnsafeJSONError, load_json

    try:
        hook_input = load_json(payload)
    except UnsafeJSONError as exc:  # dsh made it: cannot happen, but say so if it does
        return McpHookRun(error=f"the hook input is not JSON: {exc}", failure="call")
    return await run_mcp_tool_hook(servers, server, tool, template, hook_input)
