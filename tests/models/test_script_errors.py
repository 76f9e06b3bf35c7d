"""Bad scripts give errors naming the file and the JSON path; the decoder never fails otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.messages import AssistantMessage, UserMessage
from dsh.models import ModelRequest, ScriptedModel, ScriptError, ToolSpec

TEXT = {"type": "text", "text": "x"}


@pytest.mark.parametrize(
    ("script", "path", "problem"),
    [
        ([], "$", "a model script must be a JSON object, not an array"),
        ({}, "$", "the script has no 'rules', 'responses' or 'default'"),
        ({"model_script": 3}, "$.model_script", "must be a JSON object, not a number"),
        ({"rules": {}}, "$.rules", "must be a list of rules, not an object"),
        ({"rule": []}, "$.rule", "unknown key 'rule' in a model script"),
        ({"anthropic": {"rules": [1]}}, "$.anthropic.rules[0]", "a rule must be a JSON object"),
        ({"anthropic": {"default": TEXT}, "x": 1}, "$.x", "must have no other key"),
        ({"wire": "gemini", "default": TEXT}, "$.wire", "must be 'anthropic' or 'openai'"),
        ({"wire": "openai", "vendor": "openai", "default": TEXT}, "$.vendor", "not both"),
        ({"model": "", "default": TEXT}, "$.model", "must be a model's name"),
        ({"model": 5, "default": TEXT}, "$.model", "must be a model's name"),
        ({"rules": [{"has_tool": "Bash"}]}, "$.rules[0]", "a rule needs 'responses'"),
        ({"rules": [{"responses": []}]}, "$.rules[0].responses", "at least one reply"),
        ({"rules": [{"responses": [[]]}]}, "$.rules[0].responses[0]", "at least one block"),
        (
            {"rules": [{"has_tool": 1, "responses": [TEXT]}]},
            "$.rules[0].has_tool",
            "must be a string",
        ),
        (
            {"rules": [{"no_tools": "yes", "responses": [TEXT]}]},
            "$.rules[0].no_tools",
            "true or false",
        ),
        (
            {"rules": [{"hastool": "B", "responses": [TEXT]}]},
            "$.rules[0].hastool",
            "unknown key 'hastool' in a rule",
        ),
        (
            {"default": "hello"},
            "$.default",
            "a reply must be a list of blocks or one block, not a string",
        ),
        ({"default": {"text": "x"}}, "$.default", "a block needs a 'type'"),
        ({"default": {"type": "txt"}}, "$.default.type", "unknown block type 'txt'"),
        ({"default": {"type": "text"}}, "$.default", "a text block needs 'text'"),
        (
            {"default": [TEXT, {"type": "text", "text": 2}]},
            "$.default[1].text",
            "must be a string, not a number",
        ),
        (
            {"default": {"type": "text", "text": "x", "cache": 1}},
            "$.default.cache",
            "unknown key 'cache' in a text block",
        ),
        (
            {"default": {"type": "tool_use", "name": "B", "input": []}},
            "$.default.input",
            "must be a JSON object, not an array",
        ),
        (
            {"default": {"type": "function_call", "name": "f", "arguments": "{oops"}},
            "$.default.arguments",
            "not valid JSON",
        ),
        (
            {"default": {"type": "function_call", "name": "f", "arguments": "[1]"}},
            "$.default.arguments",
            "must be a JSON object, not an array",
        ),
        (
            {"default": {"type": "http_error", "status": 99}},
            "$.default.status",
            "must be an HTTP status",
        ),
        (
            {"default": {"type": "http_error", "status": "500"}},
            "$.default.status",
            "must be an HTTP status",
        ),
        (
            {"default": [TEXT, {"type": "http_error", "status": 500}]},
            "$.default[1]",
            "must be alone in its reply",
        ),
        (
            {"default": [TEXT, {"type": "usage", "tokens": 3}]},
            "$.default[1].tokens",
            "unknown key 'tokens' in a usage block",
        ),
        (
            {"default": {"type": "auto_shell", "command": ["ls"]}},
            "$.default.command",
            "must be a string, not an array",
        ),
        (
            {"anthropic": {"default": TEXT}, "http_hooks": []},
            "$.http_hooks",
            "the http hooks' answers must be a JSON object, not an array",
        ),
        (
            {"anthropic": {"default": TEXT}, "http_hooks": {"k": []}},
            "$.http_hooks.k",
            "needs at least one answer",
        ),
        (
            {"anthropic": {"default": TEXT}, "http_hooks": {"k": [{"body": ""}, {"status": 99}]}},
            "$.http_hooks.k[1].status",
            "must be an HTTP status (100-599), not 99",
        ),
        (
            {"anthropic": {"default": TEXT}, "http_hooks": {"k": {"headers": {}}}},
            "$.http_hooks.k.headers",
            "unknown key 'headers' in an http hook answer",
        ),
        (
            {"anthropic": {"default": TEXT}, "http_hooks": {}, "extra": 1},
            "$.extra",
            "must have no other key",
        ),
    ],
)
def test_bad_script_names_the_place(script: Any, path: str, problem: str) -> None:
    with pytest.raises(ScriptError) as caught:
        ScriptedModel(script, source="bad.json")
    assert caught.value.path == path
    assert problem in caught.value.problem
    assert str(caught.value).startswith(f"bad.json: {path}: ")


def test_a_file_that_is_not_json_gives_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text('{"default":\n  {"type": "text", "text": "x",}}')
    with pytest.raises(ScriptError, match=r"script\.json: line 2 column \d+: invalid JSON"):
        ScriptedModel.from_file(path)


def test_a_missing_file_is_a_script_error(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match=r"nope\.json: cannot read the script"):
        ScriptedModel.from_file(tmp_path / "nope.json")


def test_errors_inside_a_case_file_carry_the_case_path(tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    path.write_text(
        json.dumps(
            {
                "prompt": "p",
                "model_script": {
                    "openai": {
                        "rules": [
                            {"responses": [[{"type": "function_call", "name": 3, "arguments": {}}]]}
                        ]
                    }
                },
            }
        )
    )
    with pytest.raises(ScriptError) as caught:
        ScriptedModel.from_file(path)
    assert caught.value.path == "$.model_script.openai.rules[0].responses[0][0].name"
    assert str(caught.value).startswith(str(path))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "text",
                    "rules",
                    "default",
                    "responses",
                    "status",
                    "name",
                    "input",
                    "anthropic",
                    "has_tool",
                    "x",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_either_decodes_or_raises_a_script_error(data: Any) -> None:
    error: ScriptError | None = None
    try:
        ScriptedModel(data, source="fuzz.json")
    except ScriptError as e:
        error = e
    if error is not None:
        assert str(error).startswith("fuzz.json: $")
        assert error.path.startswith("$")


texts = st.text(min_size=1, max_size=6)


@settings(max_examples=100, deadline=None)
@given(
    replies=st.lists(texts, min_size=1, max_size=5),
    turns=st.integers(min_value=0, max_value=8),
)
async def test_reply_index_is_the_assistant_turn_count_capped_at_the_last(
    replies: list[str], turns: int
) -> None:
    model = ScriptedModel(
        {"rules": [{"has_tool": "T", "responses": [{"type": "text", "text": t} for t in replies]}]}
    )
    history: list[Any] = [UserMessage("start")]
    for n in range(turns):
        history += [AssistantMessage(f"a{n}"), UserMessage(f"u{n}")]
    tools = (ToolSpec("T", "", {"type": "object"}),)
    reply = await model.complete(ModelRequest(tuple(history), tools))
    assert reply.text == replies[min(turns, len(replies) - 1)]


@pytest.mark.parametrize("kind", [["text"], {"t": 1}, 3, None])
def test_a_block_type_that_is_not_a_string_is_a_script_error(kind: object) -> None:
    script = {"rules": [], "responses": [[{"type": kind, "text": "hi"}]]}
    with pytest.raises(ScriptError, match="unknown block type"):
        ScriptedModel(script)


def test_a_script_names_the_model_it_stands_for() -> None:
    assert ScriptedModel({"model": "claude-sonnet-4-5", "default": TEXT}).name == (
        "claude-sonnet-4-5"
    )
    assert ScriptedModel({"default": TEXT}, source="s.json").name == "scripted:s.json"
