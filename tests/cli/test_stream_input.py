"""``dsh run --input-format stream-json`` and ``/model``: the parser, and the real command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.cli._model_command import model_command
from dsh.cli._stream_input import (
    ControlLine,
    StreamInputError,
    UserLine,
    parse_stream_line,
)
from dsh.messages import TextBlock
from tests.cli.test_cli import dsh


def streamed(
    project: Path, tmp_path: Path, script: Path, stdin: str
) -> subprocess.CompletedProcess[str]:
    """``dsh run --input-format stream-json`` on ``project`` with ``stdin``."""
    args = ["--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions")]
    return dsh("run", "--input-format", "stream-json", *args, cwd=project, stdin=stdin)


def test_lines_are_parsed_as_claude_code_writes_them() -> None:
    user = parse_stream_line(json.dumps({"type": "user", "message": {"content": "hi"}}), 1)
    assert user == UserLine("hi", 1)
    blocks = {"role": "user", "content": [{"type": "text", "text": "a"}]}
    assert parse_stream_line(json.dumps({"type": "user", "message": blocks}), 2) == UserLine(
        (TextBlock("a"),), 2
    )
    control = {"type": "control_request", "request_id": "c1", "request": {"subtype": "x"}}
    parsed = parse_stream_line(json.dumps(control), 3)
    assert isinstance(parsed, ControlLine)
    assert (parsed.request_id, parsed.subtype) == ("c1", "x")
    assert parse_stream_line("   \n", 4) is None


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "stdin line 7: not JSON"),
        ("[1, 2]", "stdin line 7: a JSON object is expected"),
        ('{"type": "other"}', "unknown line type 'other'"),
        ('{"type": "user", "message": {"content": ""}}', "message content must be text"),
        ('{"type": "user", "message": {"role": "assistant", "content": "x"}}', "role user"),
        ('{"type": "control_request", "request": {"subtype": "x"}}', "needs a request_id"),
        ('{"type": "control_request", "request_id": "a", "request": {}}', "with a subtype"),
    ],
)
def test_a_bad_line_is_an_error_naming_it(line: str, problem: str) -> None:
    with pytest.raises(StreamInputError, match=problem):
        parse_stream_line(line, 7)


@given(st.text(max_size=300))
def test_any_line_parses_or_is_a_named_error(line: str) -> None:
    problem = None
    try:
        parse_stream_line(line, 1)
    except StreamInputError as exc:
        problem = str(exc)
    assert problem is None or problem.startswith("stdin line 1: ")


def test_model_commands_are_recognised() -> None:
    assert model_command("/model sonnet") == "sonnet"
    assert model_command("  /model  ") == ""
    assert model_command("/models") is None
    assert model_command("switch /model x") is None


def _script(tmp_path: Path, responses: list[Any]) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    return path


def _hooks(project: Path, tmp_path: Path, events: list[str], answers: dict[str, Any]) -> Path:
    log = tmp_path / "hooks.jsonl"
    hook = (
        f'{sys.executable} -c "import json,sys; p=json.load(sys.stdin);'
        f" open({str(log)!r},'a').write(json.dumps(p)+'\\n');"
        " a=json.loads(sys.argv[1]).get(p['hook_event_name']);"
        ' print(json.dumps(a)) if a else None" '
        f"'{json.dumps(answers)}'"
    )
    hooks = {e: [{"hooks": [{"type": "command", "command": hook}]}] for e in events}
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return log


def test_stream_json_runs_turns_and_answers_control_requests(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = _script(
        tmp_path, [[{"type": "text", "text": "first"}], [{"type": "text", "text": "second"}]]
    )
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreModelSwitch",
            "permissionDecision": "deny",
            "permissionDecisionReason": "STAY",
        }
    }
    log = _hooks(
        project,
        tmp_path,
        ["PreModelSwitch", "DirectoryAdded", "UserPromptSubmit"],
        {"PreModelSwitch": deny},
    )
    lines = [
        {
            "type": "control_request",
            "request_id": "r1",
            "request": {"subtype": "register_repo_root", "directory": "extra"},
        },
        {"type": "user", "message": {"role": "user", "content": "one"}},
        {
            "type": "control_request",
            "request_id": "r2",
            "request": {"subtype": "set_model", "model": "sonnet"},
        },
        {"type": "control_request", "request_id": "r3", "request": {"subtype": "interrupt"}},
        {"type": "user", "message": {"role": "user", "content": "two"}},
    ]
    done = streamed(project, tmp_path, script, "".join(json.dumps(x) + "\n" for x in lines))
    assert done.returncode == 0, done.stderr
    assert "first" in done.stdout
    assert "second" in done.stdout
    responses = [
        json.loads(line)
        for line in done.stdout.splitlines()
        if line.startswith('{"type": "control_response"')
    ]
    assert [r["response"]["subtype"] for r in responses] == ["success", "error", "error"]
    assert (
        responses[1]["response"]["error"] == "Model switch blocked by a PreModelSwitch hook: STAY"
    )
    assert responses[1]["response"]["error_code"] == "blocked_by_hook"
    assert "unsupported control request 'interrupt'" in responses[2]["response"]["error"]
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["hook_event_name"] for e in events] == [
        "DirectoryAdded",
        "UserPromptSubmit",
        "PreModelSwitch",
        "UserPromptSubmit",
    ]
    assert events[0]["directory"] == str(project / "extra")
    assert events[0]["source"] == "register_repo_root"
    assert events[2]["source"] == "sdk"
    assert events[2]["requested_model"] == "sonnet"


def test_a_bad_stream_line_ends_the_run_with_a_usage_error(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = _script(tmp_path, [[{"type": "text", "text": "never"}]])
    done = streamed(project, tmp_path, script, "not json\n")
    assert done.returncode == 2
    assert "dsh: stdin line 1: not JSON" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_prompt_with_stream_json_is_a_usage_error(tmp_path: Path) -> None:
    done = dsh(
        "run", "--input-format", "stream-json", "hello", "--model", "scripted:x", cwd=tmp_path
    )
    assert done.returncode == 2
    assert "reads the prompts from stdin" in done.stderr


def test_slash_model_switches_without_a_turn(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = _script(tmp_path, [[{"type": "text", "text": "never"}]])
    log = _hooks(project, tmp_path, ["PreModelSwitch", "PostModelSwitch", "UserPromptSubmit"], {})
    done = dsh(
        "run",
        "/model sonnet",
        "--model",
        f"scripted:{script}",
        "--project",
        str(project),
        "--session-dir",
        str(tmp_path / "sessions"),
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    assert f"Set model to `scripted:{script}` for this session only" in done.stdout
    assert "never" not in done.stdout
    events = [json.loads(line) for line in log.read_text().splitlines()]
    # No prompt goes to the model, and no PostModelSwitch without a next turn (2.1.332).
    assert [e["hook_event_name"] for e in events] == ["PreModelSwitch"]
    assert events[0]["source"] == "command"
    assert "prompt_id" in events[0]
