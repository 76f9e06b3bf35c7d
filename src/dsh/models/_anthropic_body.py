"""The request body of an Anthropic Messages call, as Claude Code 2.1.332 lays it out.

Message mapping (what the model sees):
- ``UserMessage`` → ``user`` text blocks; images as ``image`` blocks with a base64
  ``source``;
- ``AssistantMessage`` → ``assistant``: the thinking blocks the reply came with (kept
  by the model, see ``ThinkingStore``), its text, then a ``tool_use`` block per call;
- ``ToolResultMessage`` → a ``tool_result`` block with its ``is_error``
  in a ``user`` message; the results of one assistant message share that message;
- ``ContextMessage`` → a ``system`` message in ``messages`` (as Claude Code sends hook
  context mid-conversation: the recordings' ``model_view``);
- ``SteeringMessage`` → ``user`` text; ``SummaryMessage`` → ``user`` text after
  ``Summary of the conversation so far:``.
Consecutive ``user`` messages are merged into one (the API would merge them anyway; a
``tool_result`` block must lead the message that answers a ``tool_use``, and does), and
consecutive ``system`` messages into one text joined by a blank line, as 2.1.332 folds
them: the hook contexts of one step (PreToolUse, PostToolUse, PostToolBatch), or
SessionStart's and UserPromptSubmit's, are one message (``context-joined`` in
tests/fixtures/claude_strict.json).
``tool_reference`` blocks (a ToolSearch result) are native ``tool_reference`` blocks for
an offered tool, and a loaded deferred tool is offered with ``defer_loading: true``, as
2.1.332 sends them (with the ``advanced-tool-use`` beta, ``_anthropic``); a reference to a
tool the request does not offer is the ``<functions>`` text chat completions get.

Degraded, as 2.1.332 resends a request the API refused (``_anthropic``): without tool search
(``tool_search=False``: no ``defer_loading``, a ``tool_reference`` as the ``<functions>`` text),
and without system turns (``system_turns=False``: a ``ContextMessage`` as ``user`` text inside
``<system-reminder>`` tags, 2.1.332's ``[mid-conv-system]`` fallback).

Prompt caching as Claude Code places it: the system prompt is one text block with
``cache_control: {"type": "ephemeral"}``, and the last content block of the last
message carries the same breakpoint (the request before it then reads the cache up to
its own last message).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, final

from dsh._frozen import frozen
from dsh.base import thaw_json
from dsh.messages import (
    AssistantMessage,
    Content,
    ContextMessage,
    ImageBlock,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    ToolReferenceBlock,
    ToolResultMessage,
    UserMessage,
)
from dsh.models._chat_request import SUMMARY_PREFIX, block_texts
from dsh.models._types import ModelRequest, ToolSpec

__all__ = ["CACHE", "Degraded", "ThinkingStore", "messages_body", "reply_key"]

CACHE: Mapping[str, str] = {"type": "ephemeral"}
_MAX_KEPT = 256


def reply_key(message: AssistantMessage) -> str:
    """What identifies a reply across requests: its first call's id, else its text."""
    if message.tool_calls:
        return "call:" + message.tool_calls[0].id
    return "text:" + message.text


@final
class ThinkingStore:
    """The reasoning a reply came with, to send back with it (bounded: the latest 256).

    Kept by the model, not in the session log: the API needs it back only within a
    tool-use loop, which a process runs whole; a resumed session sends none.
    """

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: OrderedDict[str, tuple[Mapping[str, Any], ...]] = OrderedDict()

    def keep(self, message: AssistantMessage, blocks: tuple[Mapping[str, Any], ...]) -> None:
        if not blocks:
            return
        self._kept[reply_key(message)] = blocks
        while len(self._kept) > _MAX_KEPT:
            self._kept.popitem(last=False)

    def get(self, message: AssistantMessage) -> tuple[Mapping[str, Any], ...]:
        return self._kept.get(reply_key(message), ())


def _blocks(
    content: Content, tools: Mapping[str, ToolSpec], references: bool = True
) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    out: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, ImageBlock):
            source = {"type": "base64", "media_type": block.media_type, "data": block.data}
            out.append({"type": "image", "source": source})
        elif isinstance(block, ToolReferenceBlock) and references and block.tool_name in tools:
            out.append({"type": "tool_reference", "tool_name": block.tool_name})
        else:
            out.extend({"type": "text", "text": t} for t in block_texts((block,), tools) if t)
    return out


def _tool_result(
    message: ToolResultMessage, tools: Mapping[str, ToolSpec], references: bool
) -> dict[str, Any]:
    content: Any = message.content
    if not isinstance(content, str):
        content = _blocks(content, tools, references)
    # is_error always, false too: as Claude Code sends it (the fixture tests/wire keeps).
    return {
        "type": "tool_result",
        "tool_use_id": message.tool_use_id,
        "content": content,
        "is_error": message.is_error,
    }


def _assistant(message: AssistantMessage, thinking: ThinkingStore) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [dict(b) for b in thinking.get(message)]
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    for call in message.tool_calls:
        arguments = thaw_json(call.arguments)
        blocks.append(
            {
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": arguments if isinstance(arguments, dict) else {},
            }
        )
    return blocks


@final
@frozen
class Degraded:
    """What a resend leaves out (``messages_body``): tool search, system turns."""

    tool_search: bool = True
    system_turns: bool = True


_WHOLE = Degraded()


def _wire_message(
    message: ModelMessage, tools: Mapping[str, ToolSpec], thinking: ThinkingStore, form: Degraded
) -> tuple[str, list[dict[str, Any]]]:
    match message:
        case ContextMessage(text=text) if not form.system_turns:
            return "user", [
                {"type": "text", "text": f"<system-reminder>\n{text}\n</system-reminder>"}
            ]
        case UserMessage(content=content):
            return "user", _blocks(content, tools, form.tool_search)
        case AssistantMessage():
            return "assistant", _assistant(message, thinking)
        case ToolResultMessage():
            return "user", [_tool_result(message, tools, form.tool_search)]
        case ContextMessage(text=text):
            return "system", [{"type": "text", "text": text}]
        case SteeringMessage(text=text):
            return "user", [{"type": "text", "text": text}]
        case SummaryMessage(text=text):
            return "user", [{"type": "text", "text": SUMMARY_PREFIX + text}]
    raise TypeError(f"not a model message: {message!r}")  # pragma: no cover


def _messages(
    request: ModelRequest, thinking: ThinkingStore, form: Degraded
) -> list[dict[str, Any]]:
    tools = {t.name: t for t in request.tools}
    out: list[dict[str, Any]] = []
    for message in request.messages:
        role, blocks = _wire_message(message, tools, thinking, form)
        if not blocks:
            continue
        if out and role == "user" and out[-1]["role"] == "user":
            out[-1]["content"].extend(blocks)
        elif out and role == "system" and out[-1]["role"] == "system":
            # 2.1.332 folds consecutive system texts into one, a blank line between.
            folded = out[-1]["content"][-1]
            folded["text"] = f"{folded['text']}\n\n{blocks[0]['text']}"
        else:
            out.append({"role": role, "content": blocks})
    if out:
        last = out[-1]["content"][-1]
        last["cache_control"] = dict(CACHE)
    return out


def _tool(tool: ToolSpec, search: bool) -> dict[str, Any]:
    spec = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": thaw_json(tool.input_schema),
    }
    return {**spec, "defer_loading": True} if tool.deferred and search else spec


def messages_body(
    model: str,
    request: ModelRequest,
    *,
    max_tokens: int,
    thinking: ThinkingStore,
    thinking_budget: int | None = None,
    form: Degraded = _WHOLE,
) -> dict[str, Any]:
    """The JSON body POSTed to ``/v1/messages`` (always streamed); ``form``: what a degraded
    resend leaves out."""
    body: dict[str, Any] = {"model": model, "messages": _messages(request, thinking, form)}
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": dict(CACHE)}]
    if request.tools:
        body["tools"] = [_tool(t, form.tool_search) for t in request.tools]
    body["max_tokens"] = max_tokens
    if request.output_schema is not None:
        schema = thaw_json(request.output_schema)
        body["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
    if thinking_budget:
        body["thinking"] = {"type": "enabled", "budget_tokens": thinking_budget}
    body["stream"] = True
    return body
