"""ToolSearch on the Anthropic wire as 2.1.332 sends it (recorded with the binary:
``tests/fixtures/claude_tool_search_wire.json``): the ``advanced-tool-use`` beta, a loaded
deferred tool offered with ``defer_loading: true``, the ToolSearch result as native
``tool_reference`` blocks."""

from __future__ import annotations

import json

from dsh.messages import (
    AssistantMessage,
    ToolReferenceBlock,
    ToolResultMessage,
    ToolUse,
    UserMessage,
)
from dsh.models import ModelRequest, ToolSpec
from dsh.models._anthropic import AnthropicFormat
from dsh.models._anthropic_body import ThinkingStore, messages_body
from tests.shared_paths import ROOT

RECORDED = json.loads((ROOT / "tests" / "fixtures" / "claude_tool_search_wire.json").read_text())
SCHEMA = {"type": "object", "properties": {}}


def request(referenced: str) -> ModelRequest:
    call = ToolUse("toolu_ts1", "ToolSearch", {"query": f"select:{referenced}"})
    return ModelRequest(
        messages=(
            UserMessage("Load WebFetch"),
            AssistantMessage("", (call,)),
            ToolResultMessage("toolu_ts1", (ToolReferenceBlock(referenced),)),
        ),
        tools=(
            ToolSpec("Bash", "run", SCHEMA),
            ToolSpec("ToolSearch", "search", SCHEMA),
            ToolSpec("WebFetch", "fetch", SCHEMA, deferred=True),
        ),
    )


def test_the_result_and_the_loaded_tool_are_as_recorded() -> None:
    second = RECORDED["requests"][1]
    body = messages_body("claude-x", request("WebFetch"), max_tokens=10, thinking=ThinkingStore())
    (result,) = [b for m in body["messages"] for b in m["content"] if b["type"] == "tool_result"]
    (want,) = second["tool_results"]
    assert result["content"] == want["content"]
    recorded = {t["name"]: t["defer_loading"] for t in second["tools"]}
    sent = {t["name"]: t.get("defer_loading") for t in body["tools"]}
    assert {name: sent[name] for name in sent} == {name: recorded[name] for name in sent}


def test_the_beta_is_sent_as_recorded() -> None:
    headers = AnthropicFormat("claude-x", api_key="k", auth_token=None).headers()
    assert headers["anthropic-beta"] in RECORDED["requests"][0]["beta"]


def test_a_reference_to_a_tool_not_offered_stays_text() -> None:
    body = messages_body("claude-x", request("Missing"), max_tokens=10, thinking=ThinkingStore())
    (result,) = [b for m in body["messages"] for b in m["content"] if b["type"] == "tool_result"]
    assert [b["type"] for b in result["content"]] == ["text"]
