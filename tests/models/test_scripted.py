"""The scripted model replaying the recorded conformance cases' ``model_script``s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.base import freeze_json
from dsh.messages import (
    AssistantMessage,
    ContextMessage,
    ImageBlock,
    SteeringMessage,
    SummaryMessage,
    TextBlock,
    ToolResultMessage,
    ToolUse,
    Usage,
    UserMessage,
)
from dsh.models import Model, ModelError, ModelRequest, ScriptedModel, ToolSpec
from dsh.models._types import request_to_json
from tests.shared_paths import CONFORMANCE as SHARED_CONFORMANCE

CONFORMANCE = SHARED_CONFORMANCE

needs_corpus = pytest.mark.skipif(
    not CONFORMANCE.is_dir(), reason=f"conformance corpus not found at {CONFORMANCE}"
)


def case(name: str) -> Path:
    return CONFORMANCE / name / "case.json"


def tool(name: str, schema: dict[str, Any] | None = None) -> ToolSpec:
    return ToolSpec(name, f"the {name} tool", schema or {"type": "object", "properties": {}})


BASH = tool("Bash", {"type": "object", "properties": {"command": {"type": "string"}}})
CLAUDE_TOOLS = (BASH, tool("Read"), tool("Agent"))


def request(*messages: Any, tools: tuple[ToolSpec, ...] = CLAUDE_TOOLS) -> ModelRequest:
    return ModelRequest(messages=tuple(messages), tools=tools, system="You are a test.")


def after_call(first: AssistantMessage, content: str = "hi\n") -> tuple[Any, ...]:
    """A history with ``first`` answered by one tool result per call."""
    results = tuple(ToolResultMessage(c.id, content) for c in first.tool_calls)
    return (first, *results)


@needs_corpus
async def test_basic_case_plays_its_rule_by_assistant_turns() -> None:
    model = ScriptedModel.from_file(case("claude/basic"))
    assert isinstance(model, Model)
    prompt = UserMessage("Please run echo hi")

    first = await model.complete(request(prompt))
    assert first.text == "I'll run it."
    assert first.tool_calls == (
        ToolUse("toolu_1", "Bash", freeze_json({"command": "echo hi", "description": "Print hi"})),
    )

    second = await model.complete(request(prompt, *after_call(first)))
    assert second == AssistantMessage("Done: printed hi.")


@needs_corpus
async def test_the_last_reply_repeats_past_the_end() -> None:
    model = ScriptedModel.from_file(case("claude/basic"))
    history: list[Any] = [UserMessage("go")]
    for _ in range(4):
        history.append(AssistantMessage("earlier"))
        history.append(UserMessage("more"))
    reply = await model.complete(request(*history))
    assert reply == AssistantMessage("Done: printed hi.")


@needs_corpus
async def test_default_answers_a_request_no_rule_matches() -> None:
    model = ScriptedModel.from_file(case("claude/basic"))
    # Claude Code's side calls (titles, summaries) offer no Bash tool.
    reply = await model.complete(request(UserMessage("title this"), tools=(tool("Read"),)))
    assert reply == AssistantMessage("side-answer")


@needs_corpus
async def test_compact_case_summarizes_when_no_tools_are_offered() -> None:
    model = ScriptedModel.from_file(case("claude/compact"))
    history = (UserMessage("Please run echo hi"), AssistantMessage("Done: printed hi."))
    summary = await model.complete(request(*history, UserMessage("Summarize."), tools=()))
    assert summary.text == "<summary>CASE-SUMMARY of the conversation</summary>"
    # first_user_contains and has_tool must both hold: a different first prompt falls through.
    other = await model.complete(request(UserMessage("something else")))
    assert other.text == "<summary>CASE-SUMMARY of the conversation</summary>"
    third = await model.complete(
        request(
            UserMessage("Please run echo hi"),
            AssistantMessage("a"),
            UserMessage("b"),
            AssistantMessage("c"),
            UserMessage("again"),
        )
    )
    assert third.text == "Done again."


@needs_corpus
async def test_subagent_case_routes_by_first_user_message_before_has_tool() -> None:
    model = ScriptedModel.from_file(case("claude/subagent"))
    parent = await model.complete(request(UserMessage("Use a subagent to run echo")))
    (call,) = parent.tool_calls
    assert call.name == "Agent"
    prompt = call.arguments["prompt"]
    assert "SUBTASK-MARKER" in prompt
    # The child's own conversation starts from the Agent tool's prompt.
    child = await model.complete(request(UserMessage(prompt)))
    assert child.tool_calls[0].arguments["command"] == "echo from-sub"
    assert child.tool_calls[0].id != call.id
    child_done = await model.complete(request(UserMessage(prompt), *after_call(child)))
    assert child_done.text == "subagent result: from-sub"
    parent_done = await model.complete(
        request(UserMessage("Use a subagent to run echo"), *after_call(parent, "from-sub"))
    )
    assert parent_done.text == "Subagent finished."


@needs_corpus
async def test_http_error_raises_a_model_error_with_the_status() -> None:
    model = ScriptedModel.from_file(case("claude/api-error"))
    with pytest.raises(ModelError) as caught:
        await model.complete(request(UserMessage("go")))
    assert caught.value.status == 400
    assert caught.value.retryable is False
    assert "CASE-MOCK-400" in str(caught.value)
    assert "400" in caught.value.message


@pytest.mark.parametrize(
    ("status", "retryable"), [(429, True), (500, True), (529, True), (404, False)]
)
async def test_http_error_retryable_follows_the_status(status: int, retryable: bool) -> None:
    model = ScriptedModel({"default": {"type": "http_error", "status": status, "body": "nope"}})
    with pytest.raises(ModelError) as caught:
        await model.complete(request(UserMessage("go")))
    assert (caught.value.status, caught.value.retryable) == (status, retryable)
    assert model.requests == 1  # the scripted model never retries


@needs_corpus
async def test_codex_auto_compact_uses_no_tools_contains_and_auto_shell() -> None:
    model = ScriptedModel.from_file(case("codex/auto-compact"))
    first = await model.complete(request(UserMessage("run echo hi")))
    assert first.tool_calls == (ToolUse("call_1", "Bash", freeze_json({"command": "echo hi"})),)

    summary = await model.complete(request(UserMessage("run echo hi"), tools=()))
    assert summary.text == "CASE-SUMMARY: ran echo hi."

    handoff = SummaryMessage("Another language model started to solve this problem")
    after = await model.complete(request(handoff, UserMessage("continue")))
    assert after.text == "Continuing after compaction: done."


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        ((BASH, tool("exec_command")), ("Bash", {"command": "echo hi"})),
        ((tool("exec_command"),), ("exec_command", {"cmd": "echo hi"})),
        (
            (tool("shell", {"properties": {"command": {"type": "array"}}}),),
            ("shell", {"command": ["bash", "-lc", "echo hi"]}),
        ),
        ((tool("shell_command"),), ("shell_command", {"command": "echo hi"})),
        ((tool("Read"),), ("Bash", {"command": "echo hi"})),
    ],
)
async def test_auto_shell_calls_the_shell_tool_the_request_offers(
    tools: tuple[ToolSpec, ...], expected: tuple[str, dict[str, Any]]
) -> None:
    model = ScriptedModel({"default": {"type": "auto_shell", "command": "echo hi"}})
    (call,) = (await model.complete(request(UserMessage("go"), tools=tools))).tool_calls
    assert (call.name, call.arguments) == (expected[0], freeze_json(expected[1]))


async def test_function_call_arguments_may_be_a_json_string_or_an_object() -> None:
    model = ScriptedModel(
        {
            "openai": {
                "default": [
                    {"type": "function_call", "name": "exec_command", "arguments": '{"cmd": "ls"}'},
                    {"type": "function_call", "name": "exec_command", "arguments": {"cmd": "pwd"}},
                    {"type": "function_call", "name": "x", "arguments": {}, "call_id": "mine"},
                ]
            }
        }
    )
    assert model.wire == "openai"
    reply = await model.complete(request(UserMessage("go")))
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_1", "exec_command", {"cmd": "ls"}),
        ("call_2", "exec_command", {"cmd": "pwd"}),
        ("mine", "x", {}),
    ]


async def test_tool_use_ids_continue_after_those_in_the_history() -> None:
    script = {"default": {"type": "tool_use", "name": "Bash", "input": {"command": "true"}}}
    # A fresh model (as after a resume in a new process) never reuses an id of the history.
    history = (
        UserMessage("go"),
        AssistantMessage("", (ToolUse("toolu_5", "Bash", freeze_json({})),)),
        ToolResultMessage("toolu_5", "ok"),
    )
    ids = []
    for model in (ScriptedModel(script), ScriptedModel(script)):
        ids.append((await model.complete(request(*history))).tool_calls[0].id)
        ids.append((await model.complete(request(*history))).tool_calls[0].id)
    assert ids == ["toolu_6", "toolu_7", "toolu_6", "toolu_7"]


async def test_text_deltas_add_up_to_the_text() -> None:
    model = ScriptedModel(
        {"default": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}
    )
    deltas: list[str] = []
    reply = await model.complete(request(UserMessage("go")), on_text=deltas.append)
    assert reply.text == "one\n\ntwo"
    assert "".join(deltas) == reply.text
    assert len(deltas) == 2


async def test_contains_and_not_contains_read_the_whole_request() -> None:
    model = ScriptedModel(
        {
            "rules": [
                {
                    "contains": "CTX-MARK",
                    "not_contains": "VETO",
                    "responses": [{"type": "text", "text": "ctx"}],
                },
                {"contains": "TOOL-OUT", "responses": [{"type": "text", "text": "tool"}]},
                {"contains": "SYSTEM-MARK", "responses": [{"type": "text", "text": "system"}]},
            ],
            "default": {"type": "text", "text": "none"},
        }
    )

    async def answer(*messages: Any, system: str | None = None) -> str:
        req = ModelRequest(messages=tuple(messages), tools=(), system=system)
        return (await model.complete(req)).text

    call = AssistantMessage("", (ToolUse("t1", "Bash", freeze_json({})),))
    assert await answer(UserMessage("a"), ContextMessage("plugin:x", "CTX-MARK")) == "ctx"
    assert await answer(UserMessage("a"), SteeringMessage("CTX-MARK VETO")) == "none"
    assert await answer(UserMessage("a"), call, ToolResultMessage("t1", "TOOL-OUT", True)) == "tool"
    blocks = (TextBlock("x"), ImageBlock("image/png", "AAAA"), TextBlock("TOOL-OUT"))
    assert await answer(UserMessage(blocks)) == "tool"
    assert await answer(UserMessage("a"), system="SYSTEM-MARK") == "system"
    assert await answer(UserMessage("a")) == "none"


async def test_no_tools_false_needs_some_tool_offered() -> None:
    model = ScriptedModel(
        {
            "rules": [{"no_tools": False, "responses": [{"type": "text", "text": "tools"}]}],
            "default": {"type": "text", "text": "bare"},
        }
    )
    assert (await model.complete(request(UserMessage("x")))).text == "tools"
    assert (await model.complete(request(UserMessage("x"), tools=()))).text == "bare"


async def test_no_rule_and_no_default_is_a_model_error() -> None:
    model = ScriptedModel(
        {"rules": [{"has_tool": "Nope", "responses": [{"type": "text", "text": "x"}]}]},
        source="my-script.json",
    )
    with pytest.raises(ModelError, match=r"my-script\.json: no rule of the script matched"):
        await model.complete(request(UserMessage("x")))


@needs_corpus
@pytest.mark.parametrize(
    "shape",
    ["case", "model_script", "vendor-key", "wire-key", "vendor-field", "top-responses"],
)
async def test_script_shapes_are_equivalent(shape: str, tmp_path: Path) -> None:
    whole = json.loads(case("claude/basic").read_text())
    inner = whole["model_script"]["anthropic"]
    data: Any = {
        "case": whole,
        "model_script": whole["model_script"],
        "vendor-key": {"anthropic": inner},
        "wire-key": {"wire": "anthropic", **inner},
        "vendor-field": {"vendor": "anthropic", **inner},
        "top-responses": {
            "wire": "anthropic",
            "rules": [
                {
                    "has_tool": "Read",
                    "not_contains": "Please",
                    "responses": [{"type": "text", "text": "x"}],
                }
            ],
            "responses": inner["rules"][0]["responses"],
        },
    }[shape]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(data))
    model = ScriptedModel.from_file(path)
    assert model.wire == "anthropic"
    first = await model.complete(request(UserMessage("Please run echo hi")))
    second = await model.complete(request(UserMessage("Please run echo hi"), *after_call(first)))
    assert (first.text, first.tool_calls[0].name, second.text) == (
        "I'll run it.",
        "Bash",
        "Done: printed hi.",
    )


@needs_corpus
async def test_every_recorded_case_script_loads() -> None:
    paths = sorted(CONFORMANCE.glob("*/*/case.json"))
    assert len(paths) >= 40
    for path in paths:
        model = ScriptedModel.from_file(path)
        assert model.wire in ("anthropic", "openai"), path


@needs_corpus
async def test_a_case_with_http_hook_answers_loads_them_beside_the_vendor_script() -> None:
    model = ScriptedModel.from_file(CONFORMANCE / "claude-next" / "http-hook-mixed" / "case.json")
    answers = model.script.http_hooks
    assert model.wire == "anthropic"
    assert sorted(answers) == ["post", "stop", "ups"]
    assert [(a.status, a.body) for a in answers["post"]] == [(500, "CASE-HTTP-500-BODY")]
    assert [a.status for a in answers["stop"]] == [200, 200]
    assert answers["stop"][0].body == {"decision": "block", "reason": "CASE-HTTP-STOP-BLOCK"}


async def test_recording_appends_every_request_as_a_json_line(tmp_path: Path) -> None:
    record = tmp_path / "logs" / "requests.jsonl"
    model = ScriptedModel(
        {
            "rules": [
                {
                    "has_tool": "Bash",
                    "responses": [
                        [{"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}],
                        [
                            {
                                "type": "http_error",
                                "status": 503,
                                "body": {"error": {"message": "busy"}},
                            }
                        ],
                    ],
                }
            ],
        },
        record_to=record,
    )
    prompt = UserMessage((TextBlock("look"), ImageBlock("image/png", "iVBORw0K")))
    first_request = request(prompt)
    first = await model.complete(first_request)
    second_request = request(
        prompt,
        first,
        ToolResultMessage("toolu_1", "Exit code 2\nno such dir", is_error=True),
        ContextMessage("hook:claude:PostToolUse", "CASE-CONTEXT"),
    )
    with pytest.raises(ModelError, match="busy"):
        await model.complete(second_request)

    lines = record.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        request_to_json(first_request),
        request_to_json(second_request),
    ]
    seen = json.loads(lines[1])
    assert seen["system"] == "You are a test."
    assert [t["name"] for t in seen["tools"]] == ["Bash", "Read", "Agent"]
    assert seen["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image", "media_type": "image/png", "data": "iVBORw0K"},
            ],
        },
        {
            "role": "assistant",
            "text": "",
            "tool_calls": [{"id": "toolu_1", "name": "Bash", "arguments": {"command": "ls"}}],
        },
        {
            "role": "tool",
            "tool_use_id": "toolu_1",
            "content": "Exit code 2\nno such dir",
            "is_error": True,
        },
        {"role": "context", "source": "hook:claude:PostToolUse", "text": "CASE-CONTEXT"},
    ]


def test_request_to_json_covers_steering_and_summary() -> None:
    req = ModelRequest((SummaryMessage("earlier"), SteeringMessage("keep going")))
    assert request_to_json(req) == {
        "system": None,
        "tools": [],
        "messages": [
            {"role": "summary", "text": "earlier"},
            {"role": "steering", "text": "keep going"},
        ],
    }


@needs_corpus
async def test_substitutions_fill_the_recorded_placeholders(tmp_path: Path) -> None:
    model = ScriptedModel.from_file(
        case("claude/write-tool"), substitutions={"__PROJ__": str(tmp_path)}
    )
    write = tool("Write")
    (call,) = (await model.complete(request(UserMessage("write it"), tools=(write,)))).tool_calls
    assert call.arguments == {"file_path": f"{tmp_path}/hello.txt", "content": "hello\n"}


async def test_usage_blocks_give_the_replys_usage_summed() -> None:
    script = {
        "responses": [
            [
                {"type": "usage", "input_tokens": 10, "output_tokens": 2},
                {"type": "text", "text": "hi"},
                {"type": "usage", "output_tokens": 3, "cache_read_input_tokens": -7},
            ],
            {"type": "text", "text": "again"},
        ]
    }
    model = ScriptedModel(script, source="usage.json")
    first = await model.complete(ModelRequest((UserMessage("q"),)))
    assert first == AssistantMessage("hi", usage=Usage(input_tokens=10, output_tokens=5))
    history = (UserMessage("q"), first, UserMessage("more"))
    second = await model.complete(ModelRequest(history))
    assert second.usage is None
