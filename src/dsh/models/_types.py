"""The model seam: what a model call takes (`ModelRequest`), gives (`AssistantMessage`) and raises.

Also ``request_to_json``, the one JSON rendering of a request, used by the
scripted model's recorder so a user debugging a hook sees what the model saw.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any, Protocol, runtime_checkable

from dsh._frozen import frozen
from dsh.base import DshError, thaw_json
from dsh.messages import (
    AssistantMessage,
    Content,
    ContextMessage,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    TextBlock,
    ToolReferenceBlock,
    ToolResultMessage,
    UserMessage,
    content_text,
)

__all__ = [
    "Model",
    "ModelError",
    "ModelRefusal",
    "ModelRequest",
    "TextCallback",
    "ToolSpec",
    "request_text",
    "request_to_json",
]

TextCallback = Callable[[str], None]
"""Called with each piece of assistant text as it arrives (a streaming delta)."""


@frozen
class ToolSpec:
    """A tool as the model is told about it: name, description, JSON Schema of its input;
    ``deferred``: a deferred tool a ToolSearch result loaded (the Anthropic wire marks it
    ``defer_loading`` and lets that result reference it with a ``tool_reference`` block)."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    deferred: bool = False


@frozen
class ModelRequest:
    """One model call: the projected history, the tools offered, and the system prompt."""

    messages: tuple[ModelMessage, ...]
    tools: tuple[ToolSpec, ...] = field(default=())
    system: str | None = None
    output_schema: Mapping[str, Any] | None = None
    """A JSON Schema the answer's text must follow (structured output), where the wire
    format has one: Anthropic's ``output_config.format`` (a prompt hook's verdict)."""


class ModelError(DshError):
    """A model call failed for good (raised after any retries are exhausted).

    ``status`` is the HTTP status when there was one (``None`` for a connection
    failure or a malformed reply); ``retryable`` says whether trying again later
    could succeed (429, 5xx, connection errors).
    """

    def __init__(self, message: str, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable

    def __repr__(self) -> str:
        return f"ModelError({self.message!r}, status={self.status!r}, retryable={self.retryable!r})"


class ModelRefusal(ModelError):
    """The model declined to answer (a safety refusal), so the turn ends without a reply.

    A front end that has a word for it says so (ACP's ``refusal`` stop reason);
    elsewhere it is a model failure like any other.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, status=None, retryable=False)


@runtime_checkable
class Model(Protocol):
    """A chat model: messages and tool specs in, one assistant message (text and tool calls) out."""

    @property
    def name(self) -> str: ...

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        """Answer ``request``; ``on_text`` receives text deltas as they arrive.

        Raises ``ModelError`` when the call fails for good.
        """
        ...


def _content_json(content: Content) -> str | list[dict[str, str]]:
    if isinstance(content, str):
        return content
    out: list[dict[str, str]] = []
    for block in content:
        if isinstance(block, TextBlock):
            out.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolReferenceBlock):
            out.append({"type": "tool_reference", "tool_name": block.tool_name})
        else:
            out.append({"type": "image", "media_type": block.media_type, "data": block.data})
    return out


def _message_json(message: ModelMessage) -> dict[str, Any]:
    match message:
        case UserMessage(content=content):
            return {"role": "user", "content": _content_json(content)}
        case AssistantMessage(text=text, tool_calls=calls):
            return {
                "role": "assistant",
                "text": text,
                "tool_calls": [
                    {"id": c.id, "name": c.name, "arguments": thaw_json(c.arguments)} for c in calls
                ],
            }
        case ToolResultMessage(tool_use_id=tool_use_id, content=content, is_error=is_error):
            return {
                "role": "tool",
                "tool_use_id": tool_use_id,
                "content": _content_json(content),
                "is_error": is_error,
            }
        case ContextMessage(source=source, text=text):
            return {"role": "context", "source": source, "text": text}
        case SteeringMessage(text=text):
            return {"role": "steering", "text": text}
        case SummaryMessage(text=text):
            return {"role": "summary", "text": text}
    raise TypeError(f"not a model message: {message!r}")  # pragma: no cover


def request_to_json(request: ModelRequest) -> dict[str, Any]:
    """The request as plain JSON: ``{"system", "tools": [...], "messages": [...]}``.

    Messages keep dsh's own roles (``user``, ``assistant``, ``tool``, ``context``,
    ``steering``, ``summary``), not any wire format's; images keep their base64 data, and
    tool references stay ``{"type": "tool_reference", "tool_name"}`` blocks.
    """
    out: dict[str, Any] = {
        "system": request.system,
        "tools": [
            {
                "name": t.name,
                "description": t.description,
                "input_schema": thaw_json(t.input_schema),
            }
            for t in request.tools
        ],
        "messages": [_message_json(m) for m in request.messages],
    }
    if request.output_schema is not None:
        out["output_schema"] = thaw_json(request.output_schema)
    return out


def _message_text(message: ModelMessage) -> str:
    match message:
        case UserMessage(content=content) | ToolResultMessage(content=content):
            return content_text(content)
        case (
            AssistantMessage(text=text)
            | ContextMessage(text=text)
            | SteeringMessage(text=text)
            | SummaryMessage(text=text)
        ):
            return text
    raise TypeError(f"not a model message: {message!r}")  # pragma: no cover


def request_text(request: ModelRequest) -> str:
    """All the text of a request, newline-joined: system prompt, then every message's text.

    Includes user and assistant text, tool results, context, steering and summaries;
    tool call arguments and images are left out.
    """
    parts = [request.system] if request.system else []
    parts.extend(_message_text(m) for m in request.messages)
    return "\n".join(parts)
