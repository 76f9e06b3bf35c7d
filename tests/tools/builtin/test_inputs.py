"""The input models: Claude Code's field names, the recorded inputs accepted, bad ones refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from dsh.tools import ToolDefinition
from dsh.tools.builtin import (
    BASH_TOOL,
    EDIT_TOOL,
    GLOB_TOOL,
    GREP_TOOL,
    MULTI_EDIT_TOOL,
    READ_TOOL,
    TASK_CREATE_TOOL,
    TASK_GET_TOOL,
    TASK_LIST_TOOL,
    TASK_UPDATE_TOOL,
    WRITE_TOOL,
    builtin_tools,
)

from ._support import conformance_payloads


def _model(tool: ToolDefinition) -> type[BaseModel]:
    model = tool.load_input_model()
    assert model is not None
    return model


def test_names_and_flags() -> None:
    tools = {t.name: t for t in builtin_tools()}
    assert list(tools) == [
        "Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep",
        "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "ToolSearch",
        "CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree", "Monitor",
        "NotebookEdit", "TaskStop", "WebFetch", "WebSearch",
    ]  # fmt: skip
    # 2.1.332 offers these deferred, loaded with ToolSearch (SendMessage, the 15th, comes with
    # the Agent tool).
    assert [n for n, t in tools.items() if t.deferred] == [
        "TaskCreate", "TaskGet", "TaskList", "TaskUpdate",
        "CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree", "Monitor",
        "NotebookEdit", "TaskStop", "WebFetch", "WebSearch",
    ]  # fmt: skip
    for name in ("Read", "Glob", "Grep", "TaskGet", "TaskList", "ToolSearch"):
        assert tools[name].read_only
        assert tools[name].concurrency_safe
    for name in ("Bash", "Write", "Edit", "MultiEdit", "TaskCreate", "TaskUpdate"):
        assert not tools[name].read_only
        assert not tools[name].concurrency_safe


@pytest.mark.parametrize(
    ("tool", "fields", "required"),
    [
        (
            BASH_TOOL,
            {"command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"},
            ["command"],
        ),
        (READ_TOOL, {"file_path", "offset", "limit"}, ["file_path"]),
        (WRITE_TOOL, {"file_path", "content"}, ["file_path", "content"]),
        (
            EDIT_TOOL,
            {"file_path", "old_string", "new_string", "replace_all"},
            ["file_path", "old_string", "new_string"],
        ),
        (MULTI_EDIT_TOOL, {"file_path", "edits"}, ["file_path", "edits"]),
        (GLOB_TOOL, {"pattern", "path"}, ["pattern"]),
        (
            GREP_TOOL,
            {
                "pattern",
                "path",
                "glob",
                "output_mode",
                "-B",
                "-A",
                "-C",
                "-n",
                "-i",
                "type",
                "head_limit",
                "offset",
                "multiline",
            },
            ["pattern"],
        ),
        (
            TASK_CREATE_TOOL,
            {"subject", "description", "activeForm", "metadata"},
            ["subject", "description"],
        ),
        (TASK_GET_TOOL, {"taskId"}, ["taskId"]),
        (TASK_LIST_TOOL, set(), None),
        (
            TASK_UPDATE_TOOL,
            {
                "taskId",
                "subject",
                "description",
                "activeForm",
                "status",
                "addBlocks",
                "addBlockedBy",
                "owner",
                "metadata",
            },
            ["taskId"],
        ),
    ],
)
def test_schema_uses_claude_code_field_names(
    tool: ToolDefinition, fields: set[str], required: list[str] | None
) -> None:
    schema = tool.input_schema
    assert set(schema["properties"]) == fields
    assert schema.get("required") == required
    assert schema["additionalProperties"] is False
    assert "title" not in schema
    assert "description" not in schema
    for prop in schema["properties"].values():
        assert "title" not in prop
        assert prop.get("default", 0) is not None


@pytest.mark.parametrize(
    "tool_name",
    ["Bash", "Write", "Read", "Edit", "MultiEdit", "Glob", "Grep", "TaskCreate", "TaskUpdate"],
)
def test_recorded_inputs_are_accepted(tool_name: str) -> None:
    tool = {t.name: t for t in builtin_tools()}[tool_name]
    payloads = conformance_payloads("PreToolUse", tool_name)
    if tool_name in ("Bash", "Write", "TaskCreate", "TaskUpdate"):
        assert payloads, f"the corpus records {tool_name} calls"
    for payload in payloads:
        _model(tool).model_validate(payload["tool_input"])


def test_grep_flag_fields_by_their_names() -> None:
    parsed = _model(GREP_TOOL).model_validate(
        {"pattern": "x", "-i": True, "-n": False, "-A": 1, "-B": 2, "-C": 3}
    )
    assert parsed.model_dump(by_alias=True, exclude_none=True) == {
        "pattern": "x", "-i": True, "-n": False, "-A": 1, "-B": 2, "-C": 3,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        (BASH_TOOL, {"command": "true", "timeout": 600_001}),
        (BASH_TOOL, {"command": "true", "timeout": 0}),
        (BASH_TOOL, {"cmd": "true"}),
        (READ_TOOL, {"file_path": "/x", "limit": 0}),
        (READ_TOOL, {"file_path": "/x", "offset": -1}),
        (MULTI_EDIT_TOOL, {"file_path": "/x", "edits": []}),
        (GREP_TOOL, {"pattern": "x", "output_mode": "lines"}),
        (GREP_TOOL, {"pattern": "x", "-C": -1}),
    ],
)
def test_bad_inputs_are_refused(tool: ToolDefinition, arguments: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        _model(tool).model_validate(arguments)


def test_bash_takes_the_fields_claude_code_offers_with_or_without_a_sandbox() -> None:
    # Recorded from Claude Code 2.1.332 (benchmarks/record_claude_sandbox.py): its Bash schema
    # has dangerouslyDisableSandbox whether the settings enable the sandbox or not.
    fixture = Path(__file__).parents[2] / "fixtures" / "claude_sandbox.json"
    recorded = json.loads(fixture.read_text())
    ours = set(BASH_TOOL.input_schema["properties"])
    for case in recorded.values():
        assert set(case["bash_input_schema"]["properties"]) == ours
