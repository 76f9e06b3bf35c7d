"""The Anthropic Messages and Responses event decoders against hostile streams.

A stream cut at any byte, garbage spliced into it, events of the wrong shape: each
ends in a reply or a ``ModelError`` that names the problem, never another exception;
and a stream longer than the reply bound is cut as the chat-completions one is.
"""

from __future__ import annotations

import asyncio
import itertools
import json

import pytest
from _anthropic_mock import sse_body as anthropic_sse
from _responses_mock import sse_body as responses_sse
from _side_cases import Reply
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.messages import AssistantMessage
from dsh.models import ModelError
from dsh.models._anthropic import AnthropicFormat
from dsh.models._provider import WireFormat
from dsh.models._responses import ResponsesFormat
from tests.wire.streams import replay

REPLY = Reply(text="hello there", bash=("echo one", "echo two"))
ANTHROPIC = anthropic_sse(REPLY, 0)
RESPONSES = responses_sse(
    [
        {"type": "text", "text": "hello there"},
        {"type": "function_call", "name": "Bash", "arguments": {"command": "echo one"}},
    ],
    {"tools": [{"type": "function", "name": "Bash"}], "input": []},
    1,
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def anthropic() -> AnthropicFormat:
    return AnthropicFormat("claude-x", api_key="k", auth_token=None)


def responses() -> ResponsesFormat:
    return ResponsesFormat("gpt-x", api_key="k")


FORMATS = [(anthropic, ANTHROPIC), (responses, RESPONSES)]


def outcome(wire: WireFormat, pieces: list[bytes]) -> AssistantMessage | ModelError:
    try:
        return asyncio.run(replay(wire, pieces))
    except ModelError as e:
        error = e
    assert error.message.strip(), "a ModelError says what went wrong"
    return error


@pytest.mark.parametrize(("make", "body"), FORMATS)
def test_the_whole_stream_is_the_reply_with_its_calls(make: type, body: bytes) -> None:
    reply = outcome(make(), [body])
    assert isinstance(reply, AssistantMessage)
    assert reply.text == "hello there"
    assert reply.tool_calls[0].name == "Bash"
    assert reply.tool_calls[0].arguments["command"] == "echo one"
    assert reply.usage is not None
    assert reply.usage.output_tokens > 0


@pytest.mark.parametrize(("make", "body"), FORMATS)
def test_a_stream_cut_at_any_byte_is_a_model_error_until_its_last_event(
    make: type, body: bytes
) -> None:
    # The whole stream is a reply; any cut before its last event is a ModelError naming the end.
    last_event = body.rstrip(b"\n").rfind(b"\n\n") + 2
    for n in range(len(body)):
        result = outcome(make(), [body[:n]])
        if n < last_event:
            assert isinstance(result, ModelError), n
            # The end came early, or the cut left half a line the event stream cannot hold.
            said = result.message
            assert "before" in said or "the event stream: line" in said, (n, said)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(FORMATS),
    st.integers(0, 10_000),
    st.binary(max_size=40),
    st.lists(st.integers(0, 10_000), max_size=6),
)
def test_garbage_spliced_anywhere_is_a_reply_or_a_model_error(
    case: tuple[type, bytes], at: int, garbage: bytes, cuts: list[int]
) -> None:
    make, body = case
    at %= len(body) + 1
    blob = body[:at] + garbage + body[at:]
    bounds = sorted({0, len(blob), *(c % (len(blob) + 1) for c in cuts)})
    outcome(make(), [blob[a:b] for a, b in itertools.pairwise(bounds)])


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FORMATS), st.lists(_JSON, min_size=1, max_size=6), st.integers(0, 20))
def test_events_of_any_json_shape_are_a_reply_or_a_model_error(
    case: tuple[type, bytes], values: list[object], at: int
) -> None:
    make, body = case
    events = body.split(b"\n\n")
    at %= len(events)
    spliced = [f"data: {json.dumps(v)}".encode() for v in values]
    outcome(make(), [b"\n\n".join([*events[:at], *spliced, *events[at:]])])


@settings(max_examples=100)
@given(st.sampled_from(FORMATS), st.text(max_size=30), st.sampled_from(["type", "index", "delta"]))
def test_a_known_event_with_a_field_of_the_wrong_kind_is_a_model_error(
    case: tuple[type, bytes], value: str, field: str
) -> None:
    make, body = case
    broken = []
    for chunk in body.split(b"\n\n"):
        if b"data: " in chunk:
            head, _, data = chunk.partition(b"data: ")
            parsed = json.loads(data)
            if field in parsed and field != "type":
                parsed[field] = [value]
            chunk = head + b"data: " + json.dumps(parsed).encode()
        broken.append(chunk)
    outcome(make(), [b"\n\n".join(broken)])


@pytest.mark.parametrize(("make", "body"), FORMATS)
def test_a_reply_over_the_bound_is_cut_with_a_model_error(make: type, body: bytes) -> None:
    with pytest.raises(ModelError, match="is over 5 characters; it was cut off"):
        asyncio.run(replay(make(), [body], max_reply_chars=5))


def test_an_anthropic_error_event_is_the_servers_message() -> None:
    error = {"type": "overloaded_error", "message": "Overloaded"}
    event = b"event: error\ndata: " + json.dumps({"type": "error", "error": error}).encode()
    first = ANTHROPIC[: ANTHROPIC.index(b"\n\n") + 2]  # message_start, whole
    with pytest.raises(ModelError, match=r"^API Error: Overloaded$"):
        asyncio.run(replay(anthropic(), [first, event + b"\n\n"]))
