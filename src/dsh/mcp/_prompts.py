"""MCP prompts as slash commands: ``/mcp__<server>__<prompt> args``, as Claude Code offers them.

A prompt whose first word names a connected server's prompt is expanded after the
``agent/prompt-submit`` listeners after this one allowed it as typed (so
``UserPromptSubmit`` hooks see what the user typed): the words after the name fill the
prompt's arguments in order (the last takes the rest), ``prompts/get`` is asked, and the
text of the messages it gives, joined by blank lines, is the prompt the model gets. A
server that fails to answer blocks the prompt with its reason; a missing required argument
too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dsh.mcp._connection import McpConnection
from dsh.mcp._errors import McpCallError
from dsh.mcp._tools import mcp_tool_name
from dsh.mcp._wire import RemotePrompt

__all__ = ["expand_prompt", "find_prompt"]


def find_prompt(
    connections: Mapping[str, McpConnection], text: str
) -> tuple[McpConnection, RemotePrompt, str] | None:
    """The connection and prompt ``text``'s first word names, and the words after it."""
    if not text.startswith("/mcp__"):
        return None
    word, _, rest = text[1:].partition(" ")
    for connection in connections.values():
        if connection.state != "connected":
            continue
        for prompt in connection.prompts:
            if mcp_tool_name(connection.server.name, prompt.name) == word:
                return connection, prompt, rest.strip()
    return None


def _arguments(command: str, prompt: RemotePrompt, rest: str) -> dict[str, str]:
    names = [name for name, _required in prompt.arguments]
    words = rest.split(maxsplit=max(len(names) - 1, 0)) if rest else []
    given = dict(zip(names, words, strict=False))
    missing = [name for name, required in prompt.arguments if required and name not in given]
    if missing:
        raise McpCallError(f"/{command}: missing argument(s): {', '.join(missing)}")
    return given


def _text(contents: tuple[Mapping[str, Any], ...]) -> str:
    parts: list[str] = []
    for content in contents:
        text = content.get("text")
        if isinstance(text, str):
            parts.append(text)
        else:
            resource = content.get("resource")
            embedded = resource.get("text") if isinstance(resource, Mapping) else None
            if isinstance(embedded, str):
                parts.append(embedded)
    return "\n\n".join(parts)


async def expand_prompt(connection: McpConnection, prompt: RemotePrompt, rest: str) -> str:
    """The text ``prompts/get`` gives for ``prompt`` with ``rest`` as its arguments
    (``McpCallError`` when it cannot be had)."""
    command = mcp_tool_name(connection.server.name, prompt.name)
    result = await connection.prompt(prompt.name, _arguments(command, prompt, rest))
    return _text(result)
