"""``tool_reference`` content blocks in the session log: typed, round-tripping, and decoded
safely from whatever a session file holds (the projection and the requests:
``tests/agent/test_tool_search.py``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.messages import ImageBlock, TextBlock, ToolReferenceBlock
from dsh.messages._messages import referenced_tools
from dsh.session import ToolResultEvent
from dsh.session._codec import decode_event, encode_event
from dsh.session._codec_values import EventDecodeError


def test_a_tool_result_of_references_is_logged_typed() -> None:
    content = (ToolReferenceBlock("TaskCreate"), ToolReferenceBlock("TaskUpdate"))
    event = ToolResultEvent(token="k1", tool_use_id="t1", content=content)
    line = encode_event(event)
    assert json.loads(line)["content"] == [
        {"type": "tool_reference", "tool_name": "TaskCreate"},
        {"type": "tool_reference", "tool_name": "TaskUpdate"},
    ]
    back = decode_event(line)
    assert back == event
    assert isinstance(back, ToolResultEvent)
    assert referenced_tools(back.content) == ("TaskCreate", "TaskUpdate")


def test_references_sit_among_text_and_images() -> None:
    content = (TextBlock("a"), ToolReferenceBlock("X"), ImageBlock("image/png", "AA=="))
    assert referenced_tools(content) == ("X",)
    assert referenced_tools("plain text") == ()
    event = ToolResultEvent(token="k", tool_use_id="t", content=content)
    assert decode_event(encode_event(event)) == event


@pytest.mark.parametrize(
    "block",
    [
        {"type": "tool_reference"},
        {"type": "tool_reference", "tool_name": 7},
        {"type": "tool_reference", "tool_name": None},
        {"type": "tool_reference", "name": "X"},
    ],
)
def test_a_bad_reference_names_the_field(block: dict[str, Any]) -> None:
    line = json.dumps({"type": "tool/result", "token": "k", "tool_use_id": "t", "content": [block]})
    with pytest.raises(EventDecodeError, match=r"field 'content'.*tool_reference block"):
        decode_event(line)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)
_blockish = st.fixed_dictionaries(
    {"type": st.sampled_from(["tool_reference", "text", "image", "other"])},
    optional={"tool_name": _json, "text": _json, "media_type": _json, "data": _json},
)


@given(st.lists(_blockish | _json, max_size=4))
def test_any_content_list_decodes_or_is_refused_with_a_decode_error(blocks: list[Any]) -> None:
    line = json.dumps({"type": "tool/result", "token": "k", "tool_use_id": "t", "content": blocks})
    try:
        event = decode_event(line)
    except EventDecodeError:
        return
    assert isinstance(event, ToolResultEvent)
    assert decode_event(encode_event(event)) == event
    for block, raw in zip(event.content, blocks, strict=True):
        if isinstance(block, ToolReferenceBlock):
            assert raw["type"] == "tool_reference"
            assert block.tool_name == raw["tool_name"]
