"""The side-by-side cases: consistent with what each run is checked against, and hooks that do it.

The last test runs the real Claude Code against the Anthropic mock, opt-in: only
with ``$DSH_CLAUDE`` naming the CLI (it is never part of the default run).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from _anthropic_mock import AnthropicMock
from _claude_side import claude_invocation
from _side_cases import CASES, EVENTS, EXPECT, HOOK_LOG, TOOL_LOG, SideCase
from bench_side_by_side import ChatMock, Tool, problems, run_once

BY_NAME = {case.name: case for case in CASES}


def test_the_cases_are_the_issues_seven_each_with_its_expectation() -> None:
    assert list(BY_NAME) == [
        "no-hooks",
        "one-bash",
        "pretool-deny",
        "posttool-block",
        "stop-block-once",
        "prompt-block",
        "three-tools",
    ]
    assert set(EXPECT) == set(BY_NAME)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_case_is_consistent_with_its_expectation(case: SideCase) -> None:
    expect = EXPECT[case.name]
    assert set(case.hooks) <= set(EVENTS)
    assert case.replies
    assert all(not (r.text and r.bash) for r in case.replies)
    commands = [c for r in case.replies for c in r.bash]
    assert expect.tools <= len(commands)
    hooked = {e for e, c in case.hooks.items() if c}
    assert hooked in (set(), set(EVENTS))
    assert all(n == 0 for e, n in expect.hooks.items() if e not in hooked)
    prompt_blocked = '"block"' in case.hooks.get("UserPromptSubmit", "")
    assert expect.requests == (0 if prompt_blocked else len(case.replies))
    if not prompt_blocked and hooked:
        assert expect.hooks["PreToolUse"] == len(commands)
    assert expect.seen in "".join(case.hooks.values())


def sh(command: str, cwd: Path) -> str:
    done = subprocess.run(
        ["sh", "-c", command], cwd=cwd, capture_output=True, check=True, text=True
    )
    return done.stdout


@pytest.mark.parametrize("case", [c for c in CASES if c.name != "no-hooks"], ids=lambda c: c.name)
def test_every_hook_logs_its_event_and_exits_0(case: SideCase, tmp_path: Path) -> None:
    for event in EVENTS:
        sh(case.hooks[event], tmp_path)
    assert (tmp_path / HOOK_LOG).read_text().split() == list(EVENTS)


def test_the_answers_are_json_decisions_and_stop_blocks_only_once(tmp_path: Path) -> None:
    deny = json.loads(sh(BY_NAME["pretool-deny"].hooks["PreToolUse"], tmp_path))
    assert deny["hookSpecificOutput"]["permissionDecision"] == "deny"
    block = json.loads(sh(BY_NAME["posttool-block"].hooks["PostToolUse"], tmp_path))
    assert block["decision"] == "block"
    stop = BY_NAME["stop-block-once"].hooks["Stop"]
    assert json.loads(sh(stop, tmp_path))["decision"] == "block"
    assert sh(stop, tmp_path) == ""
    for command in (c for r in BY_NAME["three-tools"].replies for c in r.bash):
        sh(command, tmp_path)
    assert (tmp_path / TOOL_LOG).read_text().split() == ["1", "2", "3"]


def test_a_run_that_did_not_do_its_case_is_reported(tmp_path: Path) -> None:
    """The check is what keeps the benchmark from timing a failing run: ``true`` does nothing."""
    with AnthropicMock() as mock:
        tool = Tool("nothing", mock, lambda case, workdir: (["true"], dict(os.environ)))
        *_, found = run_once(tool, BY_NAME["pretool-deny"], tmp_path)
    assert "PreToolUse hook ran 0 times, expected 1" in found
    assert "0 model requests, expected 2" in found
    (tmp_path / TOOL_LOG).write_text("1\n")
    with AnthropicMock() as mock:
        tool = Tool("nothing", mock, lambda case, workdir: (["false"], dict(os.environ)))
        *_, found = run_once(tool, BY_NAME["no-hooks"], tmp_path)
    assert "exit status 1" in found
    assert not (tmp_path / TOOL_LOG).exists()  # a run starts from a clean work directory


def test_a_run_whose_model_never_saw_the_hooks_answer_is_reported(tmp_path: Path) -> None:
    case = BY_NAME["posttool-block"]
    (tmp_path / HOOK_LOG).write_text("\n".join(EVENTS))
    (tmp_path / TOOL_LOG).write_text("1\n")
    mock = ChatMock()
    mock.main_requests, mock.bodies = 2, [b'{"messages": []}', b'{"messages": ["done"]}']
    done = subprocess.CompletedProcess[bytes](["dsh"], 0, b"", b"")
    found = problems(case, tmp_path, done, mock)
    assert found[0] == "the model never saw the hook's answer 'blocked by the case'"
    mock.bodies.append(b'{"messages": ["blocked by the case"]}')
    assert problems(case, tmp_path, done, mock) == []


@pytest.mark.skipif(
    not os.environ.get("DSH_CLAUDE"), reason="set DSH_CLAUDE to the claude CLI to run"
)
@pytest.mark.parametrize("name", ["pretool-deny", "stop-block-once"])
def test_the_real_claude_code_does_the_case_against_the_mock(name: str, tmp_path: Path) -> None:
    program = str(Path(os.environ["DSH_CLAUDE"]).absolute())
    with AnthropicMock() as mock:

        def invocation(case: SideCase, workdir: Path) -> tuple[list[str], dict[str, str]]:
            return claude_invocation(case, workdir, tmp_path / "config", mock.url, program)

        (tmp_path / "project").mkdir()
        *_, found = run_once(Tool("claude", mock, invocation), BY_NAME[name], tmp_path / "project")
    assert found == []
