"""The incremental request body equals the body built from scratch, request after request.

A sequence of requests grows, shrinks, is compacted (a summary in place of its
start) and changes its system prompt and tools, as a session's do; every body
``ChatBodyEncoder`` gives must be byte for byte what encoding ``chat_body``
gives, and read as a mapping it is that body.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.base import freeze_json
from dsh.messages import (
    AssistantMessage,
    ContextMessage,
    ImageBlock,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    TextBlock,
    ToolResultMessage,
    ToolUse,
    UserMessage,
)
from dsh.models import ModelRequest, ToolSpec
from dsh.models._chat_body import ChatBodyEncoder, EncodedBody, compact_json
from dsh.models._chat_request import chat_body

ids = st.sampled_from(["a", "b", "c"])
text = st.text(max_size=6)
blocks = st.builds(TextBlock, text) | st.builds(ImageBlock, st.just("image/png"), text)
content = text | st.lists(blocks, max_size=3).map(tuple)
arguments = text | st.dictionaries(text, st.integers() | text, max_size=2).map(freeze_json)
messages: st.SearchStrategy[ModelMessage] = st.one_of(
    st.builds(UserMessage, content),
    st.builds(
        AssistantMessage,
        text,
        st.lists(st.builds(ToolUse, ids, text, arguments), max_size=2).map(tuple),
    ),
    st.builds(ToolResultMessage, ids, content, st.booleans()),
    st.builds(ToolResultMessage, ids, text),
    st.builds(ContextMessage, text, text),
    st.builds(SteeringMessage, text),
    st.builds(SummaryMessage, text),
)
tools = st.lists(
    st.builds(ToolSpec, st.sampled_from(["Read", "Bash"]), text, st.just(freeze_json({}))),
    max_size=2,
).map(tuple)
# What the next request does to the history: grow, cut back, or compact.
edits = st.one_of(
    st.tuples(st.just("grow"), st.lists(messages, max_size=6)),
    st.tuples(st.just("cut"), st.integers(0, 8)),
    st.tuples(st.just("compact"), st.integers(0, 8)),
)
requests = st.tuples(edits, st.none() | st.sampled_from(["sys", "other"]), tools, st.booleans())


@settings(max_examples=200)
@given(st.lists(requests, min_size=1, max_size=12), st.none() | st.integers(1, 100))
def test_every_body_equals_one_built_from_scratch(
    steps: list[tuple[tuple[str, object], str | None, tuple[ToolSpec, ...], bool]],
    max_tokens: int | None,
) -> None:
    encoder = ChatBodyEncoder("m")
    history: tuple[ModelMessage, ...] = ()
    given_out: list[tuple[EncodedBody, bytes]] = []
    for (kind, arg), system, offered, stream in steps:
        if kind == "grow":
            assert isinstance(arg, list)
            history = (*history, *arg)
        elif kind == "cut":
            assert isinstance(arg, int)
            history = history[: max(0, len(history) - arg)]
        else:
            assert isinstance(arg, int)
            history = (SummaryMessage("s"), *history[arg:])
        request = ModelRequest(messages=history, tools=offered, system=system)
        body = encoder.encode(request, stream=stream, max_tokens=max_tokens)
        expected = chat_body("m", request, stream=stream, max_tokens=max_tokens)
        assert body.data == compact_json(expected)
        assert body.length == len(body.data)  # summed as messages are placed, not per request
        assert b"".join(body.parts()) == b"".join(body.chunks(7)) == body.data
        assert dict(body) == expected
        given_out.append((body, body.data))
    # A body already given is never changed by a later request (a rewind gets a new buffer).
    for body, data in given_out:
        assert body.data == data


def test_a_body_whose_history_a_write_still_holds_stays_whole_as_the_next_one_grows() -> None:
    encoder = ChatBodyEncoder("m")
    history: tuple[ModelMessage, ...] = tuple(
        m for i in range(5) for m in (UserMessage(f"{i}"), AssistantMessage(f"a{i}"))
    )
    first = encoder.encode(ModelRequest(history), stream=True, max_tokens=None)
    held = first.parts()  # as a transport that has not written it all keeps a view of it
    before = b"".join(held)
    history += (AssistantMessage("a"), UserMessage("more"))
    second = encoder.encode(ModelRequest(history), stream=True, max_tokens=None)
    expected = chat_body("m", ModelRequest(history), stream=True, max_tokens=None)
    assert second.data == compact_json(expected)
    assert b"".join(held) == before == first.data
    assert len(held) == 3
    assert isinstance(held[1], memoryview)


def test_the_mapping_view_decodes_once_and_reads_as_the_body() -> None:
    body = EncodedBody(b'{"model":"m","messages":[],"stream":true}')
    assert repr(body) == "EncodedBody(41 bytes)"
    assert list(body) == ["model", "messages", "stream"]
    assert len(body) == 3
    assert body["stream"] is True
    assert {**body} == json.loads(body.data)


@given(
    st.binary(max_size=5),
    st.lists(st.binary(max_size=9), max_size=30),
    st.binary(max_size=5),
    st.integers(1, 40),
)
def test_the_chunks_are_the_body(head: bytes, pieces: list[bytes], tail: bytes, size: int) -> None:
    body = EncodedBody(head, tuple(pieces), tail)
    assert body.data == head + b",".join(pieces) + tail
    assert body.length == len(body.data)
    chunks = list(body.chunks(size))
    assert b"".join(chunks) == body.data
    assert all(chunks) or not body.data  # no empty write
    assert len(chunks) <= max(len(pieces), 1)


@given(
    st.binary(max_size=5),
    st.lists(st.binary(min_size=1, max_size=9), max_size=30),
    st.binary(max_size=4),
    st.lists(st.binary(max_size=9), max_size=5),
    st.binary(max_size=5),
    st.integers(1, 40),
)
def test_a_body_over_a_settled_history_is_the_history_joined_once(
    head: bytes, settled: list[bytes], after: bytes, pieces: list[bytes], tail: bytes, size: int
) -> None:
    # ``after``: what the encoder's buffer holds past this body's end (a later request's).
    history = b",".join(settled)
    body = EncodedBody(
        head,
        tuple(pieces),
        tail,
        settled=bytearray(history + after),
        settled_length=len(history),
    )
    wire = [*([history] if history else []), *pieces]
    assert body.data == head + b",".join(wire) + tail
    assert body.length == len(body.data)
    assert b"".join(body.parts()) == body.data
    assert len(body.parts()) <= 3
    chunks = list(body.chunks(size))
    assert b"".join(chunks) == body.data
    assert all(chunks) or not body.data
