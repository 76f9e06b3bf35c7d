"""dsh's request bodies against the official SDKs building the same request.

The same conversation (system prompt, a user turn with an image, a reply with text and
a tool call, an error tool result, hook context) is written once as dsh's messages and
once in each SDK's typed parameters (mypy checks those against the SDK's types); the
SDK's body, caught on an in-memory transport, must equal dsh's. Also the recorded
Claude Code 2.1.332 request's shape (``fixtures/claude-code-requests.json``): where the
cache breakpoints sit, ``is_error`` on every tool result, the API version header.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
from anthropic.types import MessageParam, SystemMessageParam, TextBlockParam, ToolParam
from openai.types.responses import FunctionToolParam, ResponseInputParam

from dsh.messages import (
    AssistantMessage,
    ContextMessage,
    ImageBlock,
    TextBlock,
    ToolResultMessage,
    ToolUse,
    UserMessage,
)
from dsh.models import ModelRequest, ToolSpec
from dsh.models._anthropic import AnthropicFormat
from dsh.models._responses import ResponsesFormat

PIXEL = "iVBORw0KGgo="
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"command": {"type": "string"}},
    "required": ["command"],
}
REQUEST = ModelRequest(
    (
        UserMessage((TextBlock("what is in this picture?"), ImageBlock("image/png", PIXEL))),
        AssistantMessage("Let me look.", (ToolUse("toolu_1", "Bash", {"command": "file x"}),)),
        ToolResultMessage("toolu_1", "no such file", is_error=True),
        ContextMessage("hook", "PostToolUse hook additional context: C"),
    ),
    (ToolSpec("Bash", "Run a command", SCHEMA),),
    "You are dsh.",
)
FIXTURE = Path(__file__).parent / "fixtures" / "claude-code-requests.json"


def caught(send: Any) -> tuple[dict[str, Any], httpx2.Headers]:
    """The body and headers of the one request ``send(http_client)`` makes."""
    seen: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(400, json={"error": {"message": "caught"}})

    with (
        httpx2.Client(transport=httpx2.MockTransport(answer)) as client,
        contextlib.suppress(anthropic.APIError, openai.APIError),
    ):
        send(client)
    [request] = seen
    return json.loads(request.content), request.headers


def test_the_messages_body_is_the_anthropic_sdks() -> None:
    system: list[TextBlockParam] = [
        {"type": "text", "text": "You are dsh.", "cache_control": {"type": "ephemeral"}}
    ]
    messages: list[MessageParam] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is in this picture?"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": PIXEL},
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Bash",
                    "input": {"command": "file x"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": "no such file",
                    "is_error": True,
                }
            ],
        },
    ]
    tools: list[ToolParam] = [
        {"name": "Bash", "description": "Run a command", "input_schema": SCHEMA}
    ]

    # Hook context mid-conversation is a system message, as Claude Code 2.1.332 sends it
    # (the SDK types it: SystemMessageParam).
    context: SystemMessageParam = {
        "role": "system",
        "content": [
            {
                "type": "text",
                "text": "PostToolUse hook additional context: C",
                "cache_control": {"type": "ephemeral"},
            }
        ],
    }

    def send(client: httpx2.Client) -> None:
        sdk = anthropic.Anthropic(
            api_key="k", base_url="http://sdk", http_client=client, max_retries=0
        )
        sdk.messages.create(
            model="claude-opus-5-5",
            max_tokens=32_000,
            system=system,
            messages=[*messages, context],
            tools=tools,
            stream=True,
        )

    expected, _ = caught(send)
    wire = AnthropicFormat("claude-opus-5-5", api_key="k", auth_token=None)
    assert dict(wire.body(REQUEST)) == expected


def test_the_responses_body_is_the_openai_sdks() -> None:
    items: ResponseInputParam = [
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "what is in this picture?"},
                {
                    "type": "input_image",
                    "image_url": f"data:image/png;base64,{PIXEL}",
                    "detail": "auto",
                },
            ],
        },
        # Codex's assistant item: output_text parts, without the id and status the SDK's
        # output-message type asks for (the API takes it so; Codex sends it so).
        {  # type: ignore[list-item, misc]
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Let me look.", "annotations": []}],
        },
        {
            "type": "function_call",
            "name": "Bash",
            "arguments": '{"command": "file x"}',
            "call_id": "toolu_1",
        },
        {"type": "function_call_output", "call_id": "toolu_1", "output": "no such file"},
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "PostToolUse hook additional context: C"}],
        },
    ]
    tools: list[FunctionToolParam] = [
        {
            "type": "function",
            "name": "Bash",
            "description": "Run a command",
            "strict": False,
            "parameters": SCHEMA,
        }
    ]

    def send(client: httpx2.Client) -> None:
        sdk = openai.OpenAI(
            api_key="k", base_url="http://sdk/v1", http_client=client, max_retries=0
        )
        sdk.responses.create(
            model="gpt-5.5",
            instructions="You are dsh.",
            input=items,
            tools=tools,
            tool_choice="auto",
            parallel_tool_calls=True,
            store=False,
            stream=True,
            include=["reasoning.encrypted_content"],
        )

    expected, headers = caught(send)
    wire = ResponsesFormat("gpt-5.5", api_key="k")
    assert dict(wire.body(REQUEST)) == expected
    assert wire.headers()["Authorization"] == headers["authorization"]


def _marks(body: dict[str, Any]) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, message in enumerate(body["messages"])
        if isinstance(message["content"], list)
        for j, block in enumerate(message["content"])
        if "cache_control" in block
    ]


def test_cache_breakpoints_and_tool_results_are_placed_as_claude_code_places_them() -> None:
    recorded = json.loads(FIXTURE.read_text())
    wire = AnthropicFormat("claude-opus-5-5", api_key="k", auth_token=None)
    for shape in recorded["requests"]:
        messages = shape["messages"]
        # Recorded: one breakpoint, on the last block of the last message; the system
        # prompt's last block marked too.
        assert _marks(shape) == [(len(messages) - 1, len(messages[-1]["content"]) - 1)]
        assert "cache_control" in shape["system"][-1]
    body = dict(wire.body(REQUEST))
    last = len(body["messages"]) - 1
    assert _marks(body) == [(last, len(body["messages"][last]["content"]) - 1)]
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    # Every tool result carries is_error, false ones too.
    recorded_results = [
        b
        for m in recorded["requests"][-1]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    assert recorded_results
    assert all("is_error" in b for b in recorded_results)
    ok = ModelRequest((*REQUEST.messages[:2], ToolResultMessage("toolu_1", "fine")))
    [result] = [b for b in wire.body(ok)["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert result["is_error"] is False
    headers = wire.headers()
    assert headers["anthropic-version"] == recorded["headers"]["anthropic-version"]
    assert "x-api-key" in recorded["header_names"]
    assert headers["x-api-key"] == "k"


def test_consecutive_contexts_are_one_system_message_as_claude_code_folds_them() -> None:
    """2.1.332 folds consecutive system texts into one, a blank line between (the
    ``context-joined`` recordings; the whole step is in tests/hooks_claude/test_context_joined);
    a context after a user message starts a new one."""
    wire = AnthropicFormat("claude-opus-5-5", api_key="k", auth_token=None)
    request = ModelRequest(
        (
            *REQUEST.messages,
            ContextMessage("hook", "PostToolBatch hook additional context: B"),
            UserMessage("next"),
            ContextMessage("hook", "UserPromptSubmit hook additional context: U"),
        ),
        REQUEST.tools,
        REQUEST.system,
    )
    messages = wire.body(request)["messages"]
    systems = [m["content"] for m in messages if m["role"] == "system"]
    assert [[b["text"] for b in content] for content in systems] == [
        ["PostToolUse hook additional context: C\n\nPostToolBatch hook additional context: B"],
        ["UserPromptSubmit hook additional context: U"],
    ]
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "user",
        "system",
        "user",
        "system",
    ]
