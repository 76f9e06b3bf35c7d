"""A server's tools as dsh tools: Claude Code's names, the server's schemas, mapped results.

Names: ``mcp__<server>__<tool>``, each part with every character but letters, digits,
``_`` and ``-`` made ``_``, as Claude Code 2.1.332 normalises them (hyphens kept:
``mcp__everything__get-sum``); a name over 64 characters is left out with a notice.
Schemas go to the model as the server sent them. Results: the MCP ``content`` array is
the output (what Claude Code hooks get as ``tool_response``) and, as blocks, what the
model sees: ``text`` as text, ``image`` as an image, an embedded text ``resource`` as its
text, anything else as a line naming it; ``structuredContent`` alone becomes its JSON
text. ``isError``: a failed call whose text is the content's text. Text is bounded like
any tool's (``max_result_chars``: 50,000 inline, the rest saved to a file).

The tools are deferred (offered once ToolSearch loads them), as 2.1.332 defers MCP tools.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from dsh.agent import calling_agent
from dsh.base import freeze_json, thaw_json
from dsh.mcp._connection import McpConnection
from dsh.mcp._errors import McpCallError
from dsh.mcp._wire import CallResult, RemoteTool
from dsh.messages import Content, ContentBlock, ImageBlock, TextBlock
from dsh.tools import McpServerRef, ToolDefinition, ToolInvocation, ToolResult
from dsh.tools._deferred import TOOL_SEARCH, loaded_tools

__all__ = ["mcp_tool_name", "normalize_name", "present_content", "server_tools"]

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_MAX_NAME = 64


def normalize_name(name: str) -> str:
    """``name`` with every character Claude Code does not keep made ``_``."""
    return _UNSAFE.sub("_", name)


def mcp_tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, as Claude Code names a server's tool."""
    return f"mcp__{normalize_name(server)}__{normalize_name(tool)}"


def _block(item: Mapping[str, Any]) -> ContentBlock:
    kind = item.get("type")
    if kind == "text":
        return TextBlock(str(item.get("text", "")))
    if kind == "image" and isinstance(item.get("data"), str):
        return ImageBlock(media_type=str(item.get("mimeType", "image/png")), data=item["data"])
    if kind == "resource":
        resource = item.get("resource")
        if isinstance(resource, Mapping) and isinstance(resource.get("text"), str):
            return TextBlock(resource["text"])
        uri = resource.get("uri") if isinstance(resource, Mapping) else None
        return TextBlock(f"[Resource: {uri}]")
    if kind == "resource_link":
        return TextBlock(f"[Resource link: {item.get('name')}] {item.get('uri')}")
    return TextBlock(f"[{kind} content]")


def present_content(output: Any) -> Content:
    """What the model sees of an MCP content array (also a hook's ``updatedToolOutput``)."""
    if isinstance(output, str):
        return output
    if not isinstance(output, list | tuple):
        return json.dumps(thaw_json(output), ensure_ascii=False)
    return tuple(
        _block(item) if isinstance(item, Mapping) else TextBlock(str(item)) for item in output
    )


def _output(result: CallResult) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [thaw_json(c) for c in result.content]
    if not content and result.structured is not None:
        structured = thaw_json(result.structured)
        content = [{"type": "text", "text": json.dumps(structured, ensure_ascii=False)}]
    return content


def _unloaded_note(invocation: ToolInvocation) -> str:
    """Claude Code's note on a failed call of a deferred tool whose schema the model had not
    loaded (the ``mcp-tool-error`` recording), or ``""``."""
    agent = calling_agent(invocation.agent)
    registry = agent.registry if agent is not None else None
    tool = registry.get(invocation.name) if registry is not None else None
    if tool is None or not tool.deferred or registry is None or registry.get(TOOL_SEARCH) is None:
        return ""
    assert agent is not None
    if invocation.name in loaded_tools(agent.messages()):
        return ""
    schema = json.dumps(thaw_json(tool.input_schema), separators=(",", ":"), ensure_ascii=False)
    return (
        "\n\nThis tool's input schema was not in your prompt when you called it. The input"
        f" schema is: {schema}\nIf your input does not match this schema, correct it and call"
        " the tool again. If it matches, the error above has another cause. If the corrected"
        f' call fails the same way, call {TOOL_SEARCH} with query "select:{invocation.name}" to'
        " load the tool, then call it again."
    )


def _body(connection: McpConnection, remote: str) -> Any:
    async def run(invocation: ToolInvocation) -> ToolResult:
        try:
            result = await connection.call(
                remote, thaw_json(invocation.arguments), caller=invocation.agent
            )
        except McpCallError as exc:
            return ToolResult.error(str(exc))
        output = _output(result)
        if result.is_error:
            text = "\n".join(str(c.get("text", "")) for c in output if c.get("type") == "text")
            text = text or "the tool failed"
            # The model is told more than hooks are (PostToolUseFailure: the server's text).
            return ToolResult.error(
                text + _unloaded_note(invocation),
                output=freeze_json(output),
                info=freeze_json({"server_error": text}),
            )
        return ToolResult.ok(present_content(output), output=freeze_json(output))

    return run


def server_tools(
    connection: McpConnection, *, deferred: bool = True
) -> tuple[list[ToolDefinition], list[str]]:
    """The connected server's tools (those its configuration offers) and the notices for
    those left out."""
    server = connection.server
    ref = McpServerRef(name=server.name, source=server.source)
    tools: list[ToolDefinition] = []
    notices: list[str] = []
    for remote in connection.tools:
        if not server.offers(remote.name):
            continue
        name = mcp_tool_name(server.name, remote.name)
        if len(name) > _MAX_NAME:
            notices.append(
                f"MCP server {server.name!r}: tool {remote.name!r} left out:"
                f" {name} is over 64 characters"
            )
            continue
        tools.append(_definition(connection, remote, name, ref, deferred))
    return tools, notices


def _definition(
    connection: McpConnection, remote: RemoteTool, name: str, ref: McpServerRef, deferred: bool
) -> ToolDefinition:
    return ToolDefinition(
        name=name,
        description=remote.description,
        input_schema=remote.input_schema,
        run=_body(connection, remote.name),
        # Claude Code asks before an MCP call whatever its readOnlyHint says (`mcp-perm-default`),
        # so the hint makes calls concurrent, never permitted.
        concurrency_safe=remote.read_only,
        present=present_content,
        deferred=deferred,
        mcp_server=ref,
    )
