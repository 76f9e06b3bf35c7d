"""Thinking blocks (Messages) and reasoning items (Responses) go back with their reply.

Within a tool-use loop the Messages API requires the reply's thinking blocks, signature
and all, ahead of its ``tool_use``; Codex sends a reply's reasoning items (with their
encrypted content, without their ids) ahead of it. Both are kept by the model.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from dsh.messages import ToolResultMessage
from dsh.models import ModelRequest
from dsh.models._anthropic import AnthropicFormat
from dsh.models._responses import ResponsesFormat
from tests.wire.streams import REQUEST, replay


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def test_thinking_blocks_go_back_ahead_of_the_tool_use() -> None:
    thinking = {"type": "thinking", "thinking": ""}
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}
    stream = sse(
        [
            {"type": "message_start", "message": {"usage": {"input_tokens": 3}}},
            {"type": "content_block_start", "index": 0, "content_block": thinking},
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "let me run it"},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "signature_delta", "signature": "SIG"},
            },
            {"type": "content_block_start", "index": 1, "content_block": call},
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"command": "ls"}'},
            },
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
            {"type": "message_stop"},
        ]
    )
    wire = AnthropicFormat("claude-x", api_key="k", auth_token=None)
    reply = asyncio.run(replay(wire, [stream]))
    assert reply.tool_calls[0].arguments["command"] == "ls"
    later = ModelRequest((*REQUEST.messages, reply, ToolResultMessage("toolu_1", "a b")))
    assistant = wire.body(later)["messages"][1]
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "let me run it",
        "signature": "SIG",
    }
    assert assistant["content"][1]["type"] == "tool_use"


def test_reasoning_items_go_back_ahead_of_their_reply_without_ids() -> None:
    reasoning = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [],
        "encrypted_content": "ENC",
        "status": "completed",
    }
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "Bash",
        "arguments": '{"command": "ls"}',
    }
    done = {"id": "r", "usage": {"input_tokens": 5, "output_tokens": 1}}
    stream = sse(
        [
            {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
            {"type": "response.output_item.done", "output_index": 1, "item": call},
            {"type": "response.completed", "response": done},
        ]
    )
    wire = ResponsesFormat("gpt-x", api_key="k")
    reply = asyncio.run(replay(wire, [stream]))
    later = ModelRequest((*REQUEST.messages, reply, ToolResultMessage("call_1", "a b")))
    items = wire.body(later)["input"]
    assert items[1] == {"type": "reasoning", "summary": [], "encrypted_content": "ENC"}
    assert items[2]["type"] == "function_call"
    assert items[3] == {"type": "function_call_output", "call_id": "call_1", "output": "a b"}
