"""The side-by-side benchmark's Anthropic Messages mock: its event stream and its reply counting."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from _anthropic_mock import AnthropicMock, sse_body
from _side_cases import Reply, SideCase

BASH_TOOL = {"name": "Bash", "description": "run", "input_schema": {"type": "object"}}


def events(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    """Parse an SSE body strictly: every event is one ``event:`` line and one ``data:`` line."""
    assert body.endswith(b"\n\n")
    parsed = []
    for chunk in body.decode().split("\n\n")[:-1]:
        name_line, data_line = chunk.split("\n")
        assert name_line.startswith("event: ")
        assert data_line.startswith("data: ")
        data = json.loads(data_line.removeprefix("data: "))
        assert data["type"] == name_line.removeprefix("event: ")
        parsed.append((data["type"], data))
    return parsed


def assemble(stream: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Rebuild the message from its events as a client does, checking their order."""
    names = [name for name, _ in stream]
    assert names[0] == "message_start"
    assert names[-2:] == ["message_delta", "message_stop"]
    message = stream[0][1]["message"]
    assert message["role"] == "assistant"
    assert message["content"] == []
    blocks: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None  # the open block
    partial = ""
    for name, data in stream[1:-2]:
        if name == "content_block_start":
            assert current is None
            assert data["index"] == len(blocks)
            current, partial = dict(data["content_block"]), ""
            blocks.append(current)
            continue
        assert current is not None
        assert data["index"] == len(blocks) - 1
        if name == "content_block_delta" and data["delta"]["type"] == "text_delta":
            current["text"] += data["delta"]["text"]
        elif name == "content_block_delta":
            assert data["delta"]["type"] == "input_json_delta"
            partial += data["delta"]["partial_json"]
        else:
            assert name == "content_block_stop"
            if current["type"] == "tool_use":
                current["input"] = json.loads(partial)
            current = None
    assert current is None
    return {**message, "content": blocks, **stream[-2][1]["delta"]}


def test_a_text_reply_streams_as_one_text_block_ending_the_turn() -> None:
    message = assemble(events(sse_body(Reply(text="done"), 0)))
    assert message["content"] == [{"type": "text", "text": "done"}]
    assert message["stop_reason"] == "end_turn"


def test_a_bash_reply_streams_one_tool_use_per_command_with_its_input() -> None:
    message = assemble(events(sse_body(Reply(bash=("echo 1", "echo 2")), 3)))
    assert [b["type"] for b in message["content"]] == ["tool_use", "tool_use"]
    assert [b["name"] for b in message["content"]] == ["Bash", "Bash"]
    assert [b["input"]["command"] for b in message["content"]] == ["echo 1", "echo 2"]
    assert len({b["id"] for b in message["content"]}) == 2
    assert message["stop_reason"] == "tool_use"


def post(url: str, body: dict[str, Any], path: str = "/v1/messages") -> tuple[str, bytes]:
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers["Content-Type"], response.read()


def history(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for _ in range(turns):
        messages += [{"role": "assistant", "content": "x"}, {"role": "user", "content": "y"}]
    return messages


@pytest.fixture
def mock() -> Iterator[AnthropicMock]:
    with AnthropicMock() as served:
        case = SideCase("t", "go", (Reply(bash=("echo 1",)), Reply(text="second")), {})
        served.load(case)
        yield served


def reply_to(mock: AnthropicMock, turns: int, **extra: Any) -> dict[str, Any]:
    body = {"model": "m", "messages": history(turns), "tools": [BASH_TOOL], **extra}
    kind, data = post(mock.url, {"stream": True, **body})
    assert kind == "text/event-stream"
    return assemble(events(data))


def test_reply_i_answers_i_assistant_turns_and_the_last_repeats(mock: AnthropicMock) -> None:
    assert reply_to(mock, 0)["content"][0]["type"] == "tool_use"
    assert reply_to(mock, 1)["content"] == [{"type": "text", "text": "second"}]
    assert reply_to(mock, 5)["content"] == [{"type": "text", "text": "second"}]
    assert mock.main_requests == 3


def test_side_requests_are_answered_and_counted_apart(mock: AnthropicMock) -> None:
    _, data = post(mock.url, {"model": "m", "messages": history(0), "stream": True})
    assert assemble(events(data))["content"] == [{"type": "text", "text": "ok"}]
    assert (mock.main_requests, mock.side_requests) == (0, 1)
    assert reply_to(mock, 0)["content"][0]["type"] == "tool_use"


def test_a_request_without_stream_gets_the_whole_message(mock: AnthropicMock) -> None:
    kind, data = post(mock.url, {"model": "m", "messages": history(1), "tools": [BASH_TOOL]})
    assert kind == "application/json"
    message = json.loads(data)
    assert message["content"] == [{"type": "text", "text": "second"}]
    assert message["stop_reason"] == "end_turn"


def test_other_endpoints_get_harmless_answers_and_are_listed(mock: AnthropicMock) -> None:
    _, counted = post(mock.url, {"messages": history(0)}, "/v1/messages/count_tokens")
    assert json.loads(counted) == {"input_tokens": 10}
    with urllib.request.urlopen(mock.url + "/v1/models", timeout=10) as response:
        assert json.loads(response.read())["data"] == []
    _, other = post(mock.url, {}, "/api/event_logging/batch")
    assert json.loads(other) == {}
    assert mock.unknown == ["/v1/models", "/api/event_logging/batch"]
    mock.load(SideCase("u", "go", (Reply(text="a"),), {}))
    assert (mock.unknown, mock.main_requests, mock.side_requests) == ([], 0, 0)
