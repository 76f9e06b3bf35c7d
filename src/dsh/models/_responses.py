"""OpenAI's Responses API, streamed, in the shape Codex 0.171 sends it.

The request (``responses_body``): ``instructions`` (the system prompt), ``input`` items
(``message`` with ``input_text``/``input_image``/``output_text`` parts, each with
the fields the SDK's types require (``detail``, ``annotations``),
``function_call``, ``function_call_output``, and the ``reasoning`` items a reply came
with, passed back before it as Codex does), ``tools`` as ``function`` tools,
``tool_choice: "auto"``, ``parallel_tool_calls``, ``store: false``, ``stream: true``
and ``include: ["reasoning.encrypted_content"]`` (with ``store`` off, reasoning only
survives as that). No ``previous_response_id``: Codex sends the whole input each time.
Hook context (``ContextMessage``) is a ``developer`` message, as Codex's own hook
context is (the recordings' ``model_view``); a tool step's context goes before the step's
tool outputs, where Codex records it (``posttool-context``), and a compaction's summary
is framed as Codex frames it (``CODEX_SUMMARY_PREFIX``, ``auto-compact``).

The reply (``ResponsesDecoder``): ``response.output_item.added``/``.done`` per item,
``response.output_text.delta`` (text as it comes), ``response.completed`` with the usage
(``input_tokens_details.cached_tokens`` the cached part); ``response.failed``,
``response.incomplete`` and ``error`` events are failures. Event types it does not
know are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, final

from dsh import __version__
from dsh.base import thaw_json
from dsh.messages import (
    AssistantMessage,
    Content,
    ContextMessage,
    ImageBlock,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    ToolResultMessage,
    ToolUse,
    Usage,
    UserMessage,
)
from dsh.messages._messages import token_count
from dsh.models._chat_reply import parse_arguments, server_message
from dsh.models._provider import PrefixedFailures
from dsh.models._types import ModelError, ModelRequest, ToolSpec
from dsh.models._wire import StatusError

if TYPE_CHECKING:  # a request's (the body, the reply): not the model's construction
    from dsh.models._anthropic_body import ThinkingStore

__all__ = ["CODEX_SUMMARY_PREFIX", "ResponsesDecoder", "ResponsesFormat", "responses_body"]

CODEX_SUMMARY_PREFIX = (
    "Another language model started to solve this problem and produced a summary of its"
    " thinking process. You also have access to the state of the tools that were used by that"
    " language model. Use this to build on the work that has already been done and avoid"
    " duplicating work. Here is the summary produced by the other language model, use the"
    " information in this summary to assist with your own analysis:\n"
)
"""Codex 0.171's framing of a compaction summary, the summary after it (``auto-compact``)."""

_STEP_CONTEXT = "tools/post-execute"
"""The source of a tool step's context (``dsh.agent``), which Codex puts before the outputs."""

_RETRYABLE = frozenset({408, 409, 429})


def _block_texts(content: Iterable[object], tools: Mapping[str, ToolSpec]) -> list[str]:
    # Chat completions' text of blocks (``_chat_request``), imported with the first body.
    from dsh.models._chat_request import block_texts

    return block_texts(content, tools)


def _image(block: ImageBlock) -> dict[str, Any]:
    url = f"data:{block.media_type};base64,{block.data}"
    return {"type": "input_image", "image_url": url, "detail": "auto"}


def _parts(content: Content, tools: Mapping[str, ToolSpec]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "input_text", "text": content}]
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, ImageBlock):
            parts.append(_image(block))
        else:
            texts = _block_texts((block,), tools)
            parts.extend({"type": "input_text", "text": t} for t in texts)
    return parts


def _message(role: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "message", "role": role, "content": parts}


def _arguments(call: ToolUse) -> str:
    import json

    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(thaw_json(call.arguments), ensure_ascii=False)


def _items(
    message: ModelMessage, tools: Mapping[str, ToolSpec], reasoning: ThinkingStore
) -> list[dict[str, Any]]:
    match message:
        case UserMessage(content=content):
            return [_message("user", _parts(content, tools))]
        case AssistantMessage(text=text, tool_calls=calls):
            items = [dict(r) for r in reasoning.get(message)]
            if text:
                part = {"type": "output_text", "text": text, "annotations": []}
                items.append(_message("assistant", [part]))
            items += [
                {
                    "type": "function_call",
                    "name": c.name,
                    "arguments": _arguments(c),
                    "call_id": c.id,
                }
                for c in calls
            ]
            return items
        case ToolResultMessage(tool_use_id=call_id, content=content):
            if isinstance(content, str):
                return [{"type": "function_call_output", "call_id": call_id, "output": content}]
            text = "\n".join(_block_texts(content, tools))
            out = [{"type": "function_call_output", "call_id": call_id, "output": text}]
            images = [_image(b) for b in content if isinstance(b, ImageBlock)]
            return out + ([_message("user", images)] if images else [])
        case ContextMessage(text=text):
            return [_message("developer", [{"type": "input_text", "text": text}])]
        case SteeringMessage(text=text):
            return [_message("user", [{"type": "input_text", "text": text}])]
        case SummaryMessage(text=text):
            summary = CODEX_SUMMARY_PREFIX + text
            return [_message("user", [{"type": "input_text", "text": summary}])]
    raise TypeError(f"not a model message: {message!r}")  # pragma: no cover


def _codex_order(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """``messages`` with each tool step's context moved before the step's tool outputs: Codex
    records a hook's context as the hook answers, before the outputs it follows in dsh's log."""
    out: list[ModelMessage] = []
    n = 0
    while n < len(messages):
        end = n
        while end < len(messages) and isinstance(messages[end], ToolResultMessage):
            end += 1
        after = end
        while (
            end > n
            and after < len(messages)
            and isinstance(context := messages[after], ContextMessage)
            and context.source == _STEP_CONTEXT
        ):
            after += 1
        if end == n:
            out.append(messages[n])
            n += 1
            continue
        out += [*messages[end:after], *messages[n:end]]
        n = after
    return out


def responses_body(model: str, request: ModelRequest, reasoning: ThinkingStore) -> dict[str, Any]:
    """The JSON body POSTed to ``responses`` (always streamed)."""
    tools = {t.name: t for t in request.tools}
    items: list[dict[str, Any]] = []
    for message in _codex_order(request.messages):
        items += _items(message, tools, reasoning)
    return {
        "model": model,
        "instructions": request.system or "",
        "input": items,
        "tools": [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "strict": False,
                "parameters": thaw_json(t.input_schema),
            }
            for t in request.tools
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "store": False,
        "stream": True,
        "include": ["reasoning.encrypted_content"],
    }


@final
class ResponsesFormat(PrefixedFailures):
    """The Responses API as a ``WireFormat`` (``_provider``)."""

    failure_prefix = "stream error: "

    label = "OpenAI Responses"
    streamed = True

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        query: str = "",
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        self.model = model
        self.path = "/responses" + (f"?{query}" if query else "")
        self._api_key = api_key
        self._extra = dict(extra_headers or {})
        self._reasoning: ThinkingStore | None = None

    @property
    def reasoning(self) -> ThinkingStore:
        """The reasoning replies came with, to send back (made at the first request: a run
        that sends none never imports the thinking store's module, ``_anthropic_body``)."""
        if self._reasoning is None:
            from dsh.models._anthropic_body import ThinkingStore

            self._reasoning = ThinkingStore()
        return self._reasoning

    def headers(self) -> dict[str, str]:
        headers = {
            "Accept": "text/event-stream",
            "Content-Type": "application/json",
            "User-Agent": f"dsh/{__version__}",
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        headers.update(self._extra)
        return headers

    def body(self, request: ModelRequest) -> Mapping[str, Any]:
        return responses_body(self.model, request, self.reasoning)

    def decoder(self) -> ResponsesDecoder:
        return ResponsesDecoder(self.reasoning)

    def status_error(self, e: StatusError) -> ModelError:
        message = server_message(e.data, e.text)
        retryable = e.status in _RETRYABLE or e.status >= 500
        return ModelError(
            f"unexpected status {e.status}: {message}", status=e.status, retryable=retryable
        )

    def resends(self, status: int) -> int:
        return 0


def _object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} is not an object")
    return value


def _string(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} is not a string")
    return value


def _error_text(value: object, fallback: str) -> str:
    if isinstance(value, dict):
        message = value.get("message")
        if isinstance(message, str) and message:
            return message
    return fallback


@final
class ResponsesDecoder:
    """A Responses event stream read into one reply (see the module docstring)."""

    __slots__ = ("_done", "_items", "_reasoning", "_text", "_usage", "size")

    def __init__(self, reasoning: ThinkingStore) -> None:
        self._reasoning = reasoning
        self._items: dict[int, Mapping[str, Any]] = {}
        self._text: list[str] = []
        self._usage: Usage | None = None
        self._done = False
        self.size = 0

    def feed(self, event: object) -> str:
        data = _object(event, "an event")
        kind = data.get("type")
        if not isinstance(kind, str):
            raise ValueError("an event without a type")
        if kind == "response.output_text.delta":
            text = _string(data.get("delta"), "a text delta")
            self._text.append(text)
            self.size += len(text)
            return text
        if kind == "response.output_item.done":
            item = _object(data.get("item"), "an output item")
            index = data.get("output_index")
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < 4096:
                raise ValueError("an output item without a valid output_index")
            self._items[index] = item
            self.size += len(str(item.get("arguments") or ""))
        elif kind == "response.completed":
            completed = _object(data.get("response"), "the completed response")
            self._usage = _usage(completed.get("usage"))
            self._done = True
        elif kind == "response.failed":
            failed = data.get("response")
            error = failed.get("error") if isinstance(failed, dict) else None
            raise ModelError(f"stream error: {_error_text(error, 'the response failed')}")
        elif kind == "response.incomplete":
            cut = data.get("response")
            details = cut.get("incomplete_details") if isinstance(cut, dict) else None
            reason = details.get("reason") if isinstance(details, dict) else None
            raise ModelError(f"Incomplete response returned, reason: {reason or 'unknown'}")
        elif kind == "error":
            raise ModelError(f"stream error: {_error_text(data, 'an error event')}")
        return ""

    def finish(self) -> AssistantMessage:
        if not self._done:
            raise ValueError("stream closed before response.completed")
        texts: list[str] = []
        calls: list[ToolUse] = []
        reasoning: list[Mapping[str, Any]] = []
        for index in sorted(self._items):
            item = self._items[index]
            kind = item.get("type")
            if kind == "message":
                for part in item.get("content") or ():
                    if isinstance(part, dict) and part.get("type") == "output_text":
                        texts.append(_string(part.get("text"), "an output text"))
            elif kind == "function_call":
                calls.append(_call(item))
            elif kind == "reasoning":  # sent back without its id, as Codex does (store off)
                reasoning.append({k: v for k, v in item.items() if k not in ("id", "status")})
        text = "".join(texts) if texts else "".join(self._text)
        message = AssistantMessage(text=text, tool_calls=tuple(calls), usage=self._usage)
        self._reasoning.keep(message, tuple(reasoning))
        return message


def _call(item: Mapping[str, Any]) -> ToolUse:
    name = _string(item.get("name"), "a function call's name")
    if not name:
        raise ValueError("a function call without a name")
    call_id = _string(item.get("call_id"), "a function call's call_id")
    arguments = _string(item.get("arguments", ""), "a function call's arguments")
    return ToolUse(call_id, name, parse_arguments(arguments))


def _usage(value: object) -> Usage | None:
    if not isinstance(value, dict):
        return None
    details = value.get("input_tokens_details")
    prompt = token_count(value.get("input_tokens")) or 0
    cached = token_count(details.get("cached_tokens")) if isinstance(details, dict) else None
    cached = min(cached or 0, prompt)
    return Usage(
        input_tokens=prompt - cached,
        output_tokens=token_count(value.get("output_tokens")) or 0,
        cache_read_input_tokens=cached,
    )
