"""``run_hook``: one payload through a bridge's real hook processes, decoded and decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh.testing import assert_allowed, assert_denied, run_hook, run_session
from dsh.testing.pytest_plugin import dsh_project  # noqa: F401  (the fixture, used below)
from dsh.tools import PreToolAllow
from tests.testing.hooks import CLAUDE_FILES, CLAUDE_SETTINGS, CODEX_FILES, CODEX_HOOKS, EXIT2


async def test_a_claude_code_command_hook_denies_a_bash_call() -> None:
    result = await run_hook(
        "PreToolUse",
        tool="Bash",
        tool_input={"command": "rm -rf /"},
        claude_settings=CLAUDE_SETTINGS,
        files=CLAUDE_FILES,
    )
    reason = assert_denied(result, reason_contains="no rm here")
    assert reason == result.model_text == "PreToolUse:Bash hook error: no rm here"
    (run,) = result.runs
    assert run.exit_code == 0
    assert run.command == 'python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/no_rm.py"'
    assert run.answer is not None
    assert run.answer["output"]["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert run.consequences == (
        "permission decision: deny no rm here",
        "model reads (tool error): PreToolUse:Bash hook error: no rm here",
    )
    assert result.payload["tool_input"] == {"command": "rm -rf /"}
    assert result.bridge == "claude"


async def test_the_hook_test_and_the_loop_give_the_model_the_same_text() -> None:
    result = await run_hook(
        "PreToolUse",
        tool="Bash",
        tool_input={"command": "rm -rf build"},
        claude_settings=CLAUDE_SETTINGS,
        files=CLAUDE_FILES,
    )
    run = await run_session(
        "clean",
        {"type": "tool_use", "name": "Bash", "input": {"command": "rm -rf build"}},
        {"type": "text", "text": "ok"},
        claude_settings=CLAUDE_SETTINGS,
        files=CLAUDE_FILES,
    )
    assert result.model_text == run.tool_call("Bash").content


async def test_a_command_the_hook_lets_through_is_allowed() -> None:
    result = await run_hook(
        "PreToolUse",
        tool="Bash",
        tool_input={"command": "ls"},
        claude_settings=CLAUDE_SETTINGS,
        files=CLAUDE_FILES,
    )
    assert_allowed(result)
    assert isinstance(result.decision, PreToolAllow)
    assert result.model_text is None
    assert result.runs[0].answer is None  # no output: no decision
    assert result.runs[0].consequences == (
        "no decision: the event goes on as if the hook were not there",
    )


async def test_exit_2_is_a_denial_with_the_hooks_stderr() -> None:
    settings = {
        "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "python3 friday.py"}]}]}
    }
    result = await run_hook(
        "PreToolUse", tool="Write", claude_settings=settings, files={"friday.py": EXIT2}
    )
    assert_denied(result, reason_contains="not on a Friday")
    assert result.model_text == "PreToolUse:Write hook error: [python3 friday.py]: not on a Friday"


async def test_a_codex_hook_denies_a_bash_call() -> None:
    result = await run_hook(
        "PreToolUse",
        tool="Bash",
        tool_input={"command": "rm -rf /"},
        codex_hooks=CODEX_HOOKS,
        files=CODEX_FILES,
    )
    assert result.bridge == "codex"
    assert_denied(result, reason_contains="no rm here")
    assert result.model_text == "Command blocked by PreToolUse hook: no rm here. Command: rm -rf /"
    assert result.runs[0].answer == {"permission": "deny", "reason": "no rm here"}
    assert result.payload["hook_event_name"] == "PreToolUse"
    assert "turn_id" in result.payload


async def test_codex_s_strict_rules_name_the_problem() -> None:
    bad = 'print(\'{"decision": "block"}\')\n'  # a block needs a reason, Codex says
    hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "python3 bad.py"}]}]}}
    result = await run_hook("Stop", codex_hooks=hooks, files={"bad.py": bad})
    (run,) = result.runs
    assert run.answer is None
    assert run.problem.startswith("failed: ")
    assert result.decision is None


async def test_a_given_payload_and_another_event(dsh_project: Path) -> None:  # noqa: F811
    writes = "import json, sys\nprint(json.load(sys.stdin)['prompt'].upper())\n"
    settings = {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "python3 up.py"}]}]
        }
    }
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": "hello", "cwd": str(dsh_project)}
    result = await run_hook(
        "UserPromptSubmit",
        payload,
        claude_settings=settings,
        files={"up.py": writes},
        project=dsh_project,
    )
    assert result.payload == payload
    assert result.decision is None
    assert result.runs[0].consequences == ("model reads (context, plain stdout): HELLO",)
    assert (dsh_project / ".claude" / "settings.json").is_file()


async def test_no_matching_hook_is_an_allowed_call_with_no_runs() -> None:
    result = await run_hook(
        "PreToolUse", tool="Read", claude_settings=CLAUDE_SETTINGS, files=CLAUDE_FILES
    )
    assert result.runs == ()
    assert_allowed(result)


async def test_a_bad_declaration_is_a_diagnostic() -> None:
    settings = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}}
    result = await run_hook("PreToolUse", claude_settings=settings)
    assert result.runs == ()
    assert result.diagnostics
    assert "command" in result.diagnostics[0]


async def test_unknown_events_and_two_bridges_are_refused() -> None:
    with pytest.raises(ValueError, match="'PreTool' is not a claude hook event"):
        await run_hook("PreTool", claude_settings=CLAUDE_SETTINGS)
    with pytest.raises(ValueError, match="'Notification' is not a codex hook event"):
        await run_hook("Notification", codex_hooks=CODEX_HOOKS)
    with pytest.raises(ValueError, match="not both"):
        await run_hook("Stop", claude_settings=CLAUDE_SETTINGS, codex_hooks=CODEX_HOOKS)
