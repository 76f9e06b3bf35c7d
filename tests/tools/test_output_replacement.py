"""A post-execute decision replacing a successful call's output (``updatedToolOutput``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from dsh.base import thaw_json
from dsh.context import Next
from dsh.messages import TextBlock
from dsh.tools import (
    POST_EXECUTE,
    OutputMismatchError,
    PostToolDecision,
    ToolCall,
    ToolDefinition,
    ToolInvocation,
    ToolRequest,
    ToolResult,
)

from .support import Host, echo


class ShoutOutput(BaseModel):
    model_config = ConfigDict(extra="ignore")
    said: str
    times: int


def present_shout(output: Any) -> str:
    return " ".join([output["said"].upper()] * output["times"])


async def shout(inv: ToolInvocation) -> ToolResult:
    output = {"said": inv.arguments["text"], "times": 2}
    if inv.arguments["text"] == "fail":
        return ToolResult.error("cannot shout that", output=output)
    return ToolResult.ok(present_shout(output), output=output)


SHOUT = ToolDefinition(
    "Shout",
    "Shout the text twice.",
    {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    shout,
    output_model=ShoutOutput,
    present=present_shout,
)


def host_replacing(decision: PostToolDecision) -> Host:
    host = Host()
    host.registry.register(SHOUT)

    @host.ctx.on(POST_EXECUTE)
    async def replace(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        return decision

    return host


def shout_request(text: str = "hi") -> ToolRequest:
    return ToolRequest("Shout", {"text": text}, "toolu_shout")


async def test_the_replacement_is_rendered_as_the_tool_renders_its_own() -> None:
    host = host_replacing(PostToolDecision.accept(output={"said": "[redacted]", "times": 1}))
    res = await host.registry.execute(shout_request("my secret"))
    assert not res.result.is_error
    assert res.result.content == "[REDACTED]"
    assert thaw_json(res.result.output) == {"said": "[redacted]", "times": 1}


async def test_unknown_keys_are_kept_as_given_and_ignored_by_the_model() -> None:
    replacement = {"said": "x", "times": 3, "note": "from a hook"}
    host = host_replacing(PostToolDecision.accept(output=replacement))
    res = await host.registry.execute(shout_request())
    assert res.result.content == "X X X"
    assert thaw_json(res.result.output) == replacement


@pytest.mark.parametrize(
    ("replacement", "named"),
    [({"said": "x"}, "times"), ({"said": 5, "times": 1}, "said"), ("just text", "ShoutOutput")],
)
async def test_a_replacement_that_does_not_match_fails_the_call_closed(
    replacement: Any, named: str
) -> None:
    host = host_replacing(PostToolDecision.accept(output=replacement))
    res = await host.registry.execute(shout_request("my secret"))
    assert res.result.is_error
    assert res.result.code == "LISTENER_ERROR"
    assert "does not match its output model (ShoutOutput)" in res.result.text
    assert named in res.result.text
    # The original output stays on record; the model never sees the secret again.
    assert thaw_json(res.result.output) == {"said": "my secret", "times": 2}
    assert "MY SECRET" not in res.result.text


async def test_a_failed_calls_output_cannot_be_replaced() -> None:
    host = host_replacing(PostToolDecision.accept(output={"said": "x", "times": 1}))
    res = await host.registry.execute(shout_request("fail"))
    assert res.result.code == "LISTENER_ERROR"
    assert "output of a failed call (TOOL_ERROR) cannot be replaced" in res.result.text
    assert res.result.info is not None
    assert res.result.info["original_code"] == "TOOL_ERROR"


async def test_content_and_feedback_apply_after_the_replacement() -> None:
    host = host_replacing(
        PostToolDecision.block("checked", output={"said": "y", "times": 1}, content="shown instead")
    )
    res = await host.registry.execute(shout_request())
    assert res.result.content == (TextBlock("shown instead"), TextBlock("checked"))
    assert thaw_json(res.result.output) == {"said": "y", "times": 1}

    host = host_replacing(PostToolDecision.block("checked", output={"said": "y", "times": 1}))
    res = await host.registry.execute(shout_request())
    assert res.result.content == (TextBlock("Y"), TextBlock("checked"))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


@given(st.one_of(st.text(max_size=10), st.dictionaries(st.text(max_size=4), json_values)))
async def test_a_tool_without_a_presenter_shows_text_as_is_and_json_as_its_text(
    replacement: Any,
) -> None:
    host = Host()  # Echo has neither an output model nor a presenter

    @host.ctx.on(POST_EXECUTE)
    async def replace(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        return PostToolDecision.accept(output=replacement)

    res = await host.registry.execute(echo())
    assert not res.result.is_error
    assert thaw_json(res.result.output) == replacement
    if isinstance(replacement, str):
        assert res.result.content == replacement
    else:
        assert json.loads(res.result.text) == replacement


def test_present_output_names_each_mismatch() -> None:
    with pytest.raises(OutputMismatchError) as caught:
        SHOUT.present_output({"said": 1})
    text = str(caught.value)
    assert "said: Input should be a valid string" in text
    assert "times: Field required" in text
    assert SHOUT.present_output({"said": "a", "times": 2}) == "A A"


def test_an_unfreezable_replacement_is_refused_where_it_is_built() -> None:
    with pytest.raises(TypeError):
        PostToolDecision.accept(output={"bad": object()})
