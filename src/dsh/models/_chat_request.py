"""The request body of a chat-completions call: dsh's messages and tools in the wire format.

One copy for every transport (they only send the body).

Message mapping (what the model sees):
- ``UserMessage`` → ``user`` (images become ``image_url`` parts with a data URL);
- ``AssistantMessage`` → ``assistant`` with ``tool_calls``;
- ``ToolResultMessage`` → ``tool`` with the content text verbatim (chat completions
  has no error flag, and the text of a failure already says what went wrong); images
  in tool results follow the results in a ``user`` message, since ``tool`` messages
  are text only; ``tool_reference`` blocks (a ToolSearch result) become the
  ``<functions>`` block ToolSearch's description promises, one
  ``<function>{"description", "name", "parameters"}</function>`` line per tool
  the request offers (a tool no longer registered: its name alone), since
  chat completions has no such block and the tools so loaded are offered in
  ``tools`` from this request on;
- ``ContextMessage`` → ``user`` with the text in Claude Code's framing
  (``<system-reminder>\n…\n</system-reminder>``): local chat templates (Qwen- and
  Llama-style on vLLM or Ollama) refuse a ``system`` message mid-conversation, and
  every template takes a user turn (the Messages format keeps Claude Code's
  ``system`` message, the Responses format Codex's ``developer`` one);
- ``SteeringMessage`` → ``user``;
- ``SummaryMessage`` → ``user`` "Summary of the conversation so far:\\n<summary>".
The tool results answering an assistant message stay right after it: any other
message found among them is moved after the last of them. User turns that would follow
one another (a prompt and its hook context, a tool result's images and a step's context)
are merged into one (texts joined by a blank line; parts, when one has an image, in
order): templates that insist on strict user/assistant alternation (Mistral's, Llama 2's)
refuse two user turns in a row, and every template takes one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

from dsh.base import thaw_json
from dsh.messages import (
    AssistantMessage,
    Content,
    ContextMessage,
    ImageBlock,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    TextBlock,
    ToolReferenceBlock,
    ToolResultMessage,
    UserMessage,
)
from dsh.models._types import ModelRequest, ToolSpec

__all__ = [
    "SUMMARY_PREFIX",
    "ChatLayout",
    "block_texts",
    "chat_body",
    "context_text",
    "to_chat_messages",
]

T = TypeVar("T")

SUMMARY_PREFIX = "Summary of the conversation so far:\n"


def context_text(text: str) -> str:
    """Hook or plugin context as a user turn carries it: Claude Code's reminder framing."""
    return f"<system-reminder>\n{text}\n</system-reminder>"


def _image_part(block: ImageBlock) -> dict[str, Any]:
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{block.media_type};base64,{block.data}"},
    }


def _function_line(name: str, tools: Mapping[str, ToolSpec]) -> str:
    spec = tools.get(name)
    if spec is None:
        return f"<function>{json.dumps({'name': name}, ensure_ascii=False)}</function>"
    definition = {
        "description": spec.description,
        "name": spec.name,
        "parameters": thaw_json(spec.input_schema),
    }
    return f"<function>{json.dumps(definition, ensure_ascii=False)}</function>"


def block_texts(content: Iterable[object], tools: Mapping[str, ToolSpec]) -> list[str]:
    """The text pieces of some blocks: each text block, and each run of tool references as
    one ``<functions>`` block (images are left to the caller)."""
    pieces: list[str] = []
    run: list[str] = []
    for block in (*content, None):
        if isinstance(block, ToolReferenceBlock):
            run.append(_function_line(block.tool_name, tools))
            continue
        if run:
            pieces.append("<functions>\n" + "\n".join(run) + "\n</functions>")
            run = []
        if isinstance(block, TextBlock):
            pieces.append(block.text)
    return pieces


def _user_content(content: Content, tools: Mapping[str, ToolSpec]) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    if not any(isinstance(b, ImageBlock) for b in content):
        return "\n".join(block_texts(content, tools))
    parts: list[dict[str, Any]] = []
    for b in content:
        if isinstance(b, ImageBlock):
            parts.append(_image_part(b))
        else:
            parts.extend({"type": "text", "text": text} for text in block_texts((b,), tools))
    return parts


def _tool_result(
    message: ToolResultMessage, tools: Mapping[str, ToolSpec]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ``tool`` message, and image parts that must follow in a user message."""
    content = message.content
    if isinstance(content, str):
        return {"role": "tool", "tool_call_id": message.tool_use_id, "content": content}, []
    text = "\n".join(block_texts(content, tools))
    images = [_image_part(b) for b in content if isinstance(b, ImageBlock)]
    return {"role": "tool", "tool_call_id": message.tool_use_id, "content": text}, images


def _assistant(message: AssistantMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": message.text}
    if message.tool_calls:
        out["content"] = message.text or None
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_json(call.arguments)},
            }
            for call in message.tool_calls
        ]
    return out


# json.dumps(..., ensure_ascii=False) builds an encoder per call; one made once writes the same.
_ARGUMENTS = json.JSONEncoder(ensure_ascii=False).encode


def _arguments_json(arguments: Any) -> str:
    # A call whose arguments did not parse keeps the model's raw text, sent back as it was.
    if isinstance(arguments, str):
        return arguments
    return _ARGUMENTS(thaw_json(arguments))


def _plain(message: ModelMessage, tools: Mapping[str, ToolSpec]) -> dict[str, Any]:
    match message:
        case UserMessage(content=content):
            return {"role": "user", "content": _user_content(content, tools)}
        case ContextMessage(text=text):
            return {"role": "user", "content": context_text(text)}
        case SteeringMessage(text=text):
            return {"role": "user", "content": text}
        case SummaryMessage(text=text):
            return {"role": "user", "content": SUMMARY_PREFIX + text}
    raise TypeError(f"not a plain message: {message!r}")  # pragma: no cover


def _parts(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _merged(run: list[dict[str, Any]]) -> dict[str, Any]:
    """Consecutive user turns as one."""
    if len(run) == 1:
        return run[0]
    contents = [m["content"] for m in run]
    if all(isinstance(c, str) for c in contents):
        return {"role": "user", "content": "\n\n".join(contents)}
    return {"role": "user", "content": [part for c in contents for part in _parts(c)]}


class ChatLayout(Generic[T]):
    """The chat-completions message list, built one message at a time.

    Each wire message goes through ``encode`` as it is placed (a dict as it is,
    or its JSON for a request body built once per message). ``settled`` says no
    message is held back, so the output so far stands whatever follows: an
    encoder resumes from such a point. ``tools`` are the request's, by name: what
    a ``tool_reference`` block is rendered from. User turns are held in ``run`` until
    something else follows (``finish`` ends the last), so that they go out as one.
    """

    __slots__ = ("deferred", "encode", "images", "out", "pending", "run", "tools")

    def __init__(
        self, encode: Callable[[dict[str, Any]], T], tools: Iterable[ToolSpec] = ()
    ) -> None:
        self.encode = encode
        self.tools: Mapping[str, ToolSpec] = {t.name: t for t in tools}
        self.out: list[T] = []
        self.pending: set[str] = set()  # tool call ids still awaiting their result
        self.deferred: list[dict[str, Any]] = []  # user turns held until those results are in
        self.images: list[dict[str, Any]] = []
        self.run: list[dict[str, Any]] = []  # user turns in a row, to go out as one

    @property
    def settled(self) -> bool:
        return not (self.pending or self.deferred or self.images or self.run)

    def reset(self, length: int) -> None:
        """Back to a settled point where ``out`` had ``length`` items."""
        del self.out[length:]
        self.pending.clear()
        self.deferred.clear()
        self.images.clear()
        self.run.clear()

    def flush(self) -> None:
        """The tool results' images and the user turns held for them, into the run."""
        if self.images:
            self.run.append({"role": "user", "content": list(self.images)})
            self.images.clear()
        self.run.extend(self.deferred)
        self.deferred.clear()

    def finish(self) -> None:
        """Everything held placed: the run of user turns as one."""
        self.flush()
        if self.run:
            self.out.append(self.encode(_merged(self.run)))
            self.run.clear()

    def add(self, message: ModelMessage) -> None:
        if isinstance(message, ToolResultMessage):
            if not self.pending:
                self.finish()
            tool_message, tool_images = _tool_result(message, self.tools)
            self.out.append(self.encode(tool_message))
            self.images.extend(tool_images)
            self.pending.discard(message.tool_use_id)
            if not self.pending:
                self.flush()
            return
        if isinstance(message, AssistantMessage):
            self.pending.clear()
            self.finish()
            self.out.append(self.encode(_assistant(message)))
            self.pending = {c.id for c in message.tool_calls}
            return
        if self.pending:
            self.deferred.append(_plain(message, self.tools))
        else:
            self.flush()
            self.run.append(_plain(message, self.tools))


def _as_is(message: dict[str, Any]) -> dict[str, Any]:
    return message


def to_chat_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The request's messages in chat-completions form (see the module docstring)."""
    layout = ChatLayout(_as_is, request.tools)
    if request.system:
        layout.out.append({"role": "system", "content": request.system})
    for message in request.messages:
        layout.add(message)
    layout.finish()
    return layout.out


def tool_json(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": thaw_json(spec.input_schema),
        },
    }


def chat_body(
    model: str, request: ModelRequest, *, stream: bool, max_tokens: int | None
) -> dict[str, Any]:
    """The JSON body POSTed to ``chat/completions`` for ``request``."""
    body: dict[str, Any] = {"model": model, "messages": to_chat_messages(request)}
    if request.tools:
        body["tools"] = [tool_json(t) for t in request.tools]
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if stream:
        # The usage comes in a last chunk, with no choices, only when asked for.
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body
