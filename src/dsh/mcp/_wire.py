"""MCP's JSON-RPC on the wire, read at the edge: one line in, one typed message out, and the
results dsh uses (``tools/list``, ``tools/call``, ``prompts/list``, ``prompts/get``) as values.

``decode`` turns one line a server wrote into a ``Response``, ``Failure`` (an error
response), ``Request`` or ``Notification``, or raises ``WireError`` saying what it is not:
text that is not JSON (``load_json``: no NaN, no deep nesting, no invalid UTF-8), JSON
that is no JSON-RPC 2.0 message. The result readers take what a server sent, leave out
what they cannot use (a tool without a name, a content item that is no object) and never
raise but ``WireError`` for a result that is not an object. The SDK's HTTP clients' results,
dumped to JSON, go through the same readers (``_sdk``), so both transports give the same
values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import DshError, FrozenDict, UnsafeJSONError, freeze_json, load_json

__all__ = [
    "MAX_LIST",
    "CallResult",
    "Failure",
    "Message",
    "Notification",
    "RemotePrompt",
    "RemoteTool",
    "Request",
    "RequestId",
    "Response",
    "WireError",
    "call_result",
    "completed_id",
    "decode",
    "prompt_messages",
    "prompts_page",
    "tools_page",
]

MAX_LIST: Final = 1000
"""The most tools (and prompts) one server may put on the surface."""

RequestId: TypeAlias = int | str


class WireError(DshError, ValueError):
    """A line or a result that is not what MCP says it is; the message says why."""


@final
@frozen
class Response:
    """A result for one of dsh's requests."""

    id: RequestId
    result: Mapping[str, Any]


@final
@frozen
class Failure:
    """An error response (``id`` ``None``: the server could not read a request of dsh's)."""

    id: RequestId | None
    code: int
    message: str


@final
@frozen
class Request:
    """A request of the server's (``elicitation/create``, ``ping``, ...)."""

    id: RequestId
    method: str
    params: Mapping[str, Any]


@final
@frozen
class Notification:
    """A notification of the server's (``notifications/tools/list_changed``, ...)."""

    method: str
    params: Mapping[str, Any]


Message: TypeAlias = Response | Failure | Request | Notification


def _id(value: Any) -> RequestId | None:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def _params(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def decode(line: bytes) -> Message:
    """The message ``line`` holds (``WireError`` when it holds none)."""
    try:
        data = load_json(line)
    except UnsafeJSONError as exc:
        raise WireError(f"not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        raise WireError("not a JSON-RPC 2.0 message")
    method = data.get("method")
    ident = _id(data.get("id"))
    if isinstance(method, str):
        if "id" not in data:
            return Notification(method, _params(data.get("params")))
        if ident is None:
            raise WireError("a request whose id is neither a string nor an integer")
        return Request(ident, method, _params(data.get("params")))
    if "result" in data and ident is not None:
        result = data["result"]
        if not isinstance(result, dict):
            raise WireError(f"the result for request {ident!r} is not an object")
        return Response(ident, result)
    error = data.get("error")
    if isinstance(error, dict) and (ident is not None or data.get("id") is None):
        code = error.get("code")
        message = error.get("message")
        return Failure(
            ident,
            code if isinstance(code, int) and not isinstance(code, bool) else -32603,
            message[:2000] if isinstance(message, str) else "(no message)",
        )
    raise WireError("neither a request, a notification, a result nor an error")


@final
@frozen
class RemoteTool:
    """One of a server's tools as ``tools/list`` gave it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool = False


@final
@frozen
class RemotePrompt:
    """One of a server's prompts: its name, description and arguments (name, required)."""

    name: str
    description: str
    arguments: tuple[tuple[str, bool], ...] = ()


@final
@frozen
class CallResult:
    """A ``tools/call`` result: its content items (objects, without ``_meta`` and
    ``annotations``), ``isError`` and ``structuredContent``."""

    content: tuple[Mapping[str, Any], ...]
    is_error: bool = False
    structured: Any = None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _as_parsed(schema: Any) -> dict[str, Any]:
    """A tool's input schema in the key order Claude Code holds it (the TypeScript SDK's parse:
    ``type``, ``properties``, ``required`` first, the rest as sent; ``mcp-tool-error``)."""
    if not isinstance(schema, dict):
        return {"type": "object"}
    known = {k: schema[k] for k in ("type", "properties", "required") if k in schema}
    return {**known, **{k: v for k, v in schema.items() if k not in known}}


def _cursor(result: Mapping[str, Any]) -> str | None:
    cursor = result.get("nextCursor")
    return cursor if isinstance(cursor, str) and cursor else None


def tools_page(result: Mapping[str, Any]) -> tuple[list[RemoteTool], str | None]:
    """A ``tools/list`` page's tools (those with a name) and its next cursor."""
    tools: list[RemoteTool] = []
    listed = result.get("tools")
    for item in listed[:MAX_LIST] if isinstance(listed, list) else ():
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        hints = item.get("annotations")
        read_only = isinstance(hints, dict) and hints.get("readOnlyHint") is True
        tools.append(
            RemoteTool(
                name=item["name"],
                description=_text(item.get("description")),
                input_schema=freeze_json(_as_parsed(item.get("inputSchema"))),
                read_only=read_only,
            )
        )
    return tools, _cursor(result)


def _arguments(value: Any) -> tuple[tuple[str, bool], ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        (a["name"], a.get("required") is True)
        for a in value
        if isinstance(a, dict) and isinstance(a.get("name"), str)
    )


def prompts_page(result: Mapping[str, Any]) -> tuple[list[RemotePrompt], str | None]:
    """A ``prompts/list`` page's prompts (those with a name) and its next cursor."""
    listed = result.get("prompts")
    prompts = [
        RemotePrompt(
            name=p["name"],
            description=_text(p.get("description")),
            arguments=_arguments(p.get("arguments")),
        )
        for p in (listed[:MAX_LIST] if isinstance(listed, list) else ())
        if isinstance(p, dict) and isinstance(p.get("name"), str)
    ]
    return prompts, _cursor(result)


_DROPPED: Final = ("_meta", "annotations")


def call_result(result: Mapping[str, Any]) -> CallResult:
    """A ``tools/call`` result as a value (an item that is no object left out)."""
    content = result.get("content")
    items = []
    for item in content if isinstance(content, list) else ():
        if isinstance(item, dict):
            items.append(
                FrozenDict(
                    {
                        k: freeze_json(v)
                        for k, v in item.items()
                        if k not in ("_meta", "annotations")
                    }
                )
            )
    structured = result.get("structuredContent")
    return CallResult(
        content=tuple(items),
        is_error=result.get("isError") is True,
        structured=freeze_json(structured) if isinstance(structured, dict) else None,
    )


def prompt_messages(result: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    """A ``prompts/get`` result's messages' content items (objects only)."""
    messages = result.get("messages")
    return tuple(
        m["content"]
        for m in (messages if isinstance(messages, list) else ())
        if isinstance(m, dict) and isinstance(m.get("content"), dict)
    )


_MAX_ELICITATION_ID: Final = 200


def completed_id(params: object) -> str | None:
    """The ``elicitationId`` of a ``notifications/elicitation/complete``'s ``params``, if it is
    one (a non-empty string within ``_MAX_ELICITATION_ID``: it reaches hooks and the log)."""
    ident = params.get("elicitationId") if isinstance(params, Mapping) else None
    return ident if isinstance(ident, str) and 0 < len(ident) <= _MAX_ELICITATION_ID else None
