"""CLAUDE_ENV_FILE through the bridge: what SessionStart and CwdChanged hooks export reaches
every later Bash command of the session (also after ``cd``), never another hook."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import subagent_plugin
from tests.agent.support import bash, foreground_agent, replies, text
from tests.hooks_claude.bridge_support import Rig, make_rig

EVENTS = ["SessionStart", "PreToolUse", "CwdChanged", "PostToolUse", "Stop"]
SCRIPT = replies(
    [bash('echo "A=$CLAUDE_CASE_A"')],
    [bash("mkdir -p sub && cd sub && echo moved")],
    [bash('echo "A=$CLAUDE_CASE_A B=$CLAUDE_CASE_B"')],
    [text("Done.")],
)
# Named CLAUDE_* so the recording hook logs them if a hook's environment had them.
ANSWERS = {
    "SessionStart": {"env_file": "export CLAUDE_CASE_A=bar\n"},
    "CwdChanged": {"env_file": "export CLAUDE_CASE_B=moved\n"},
}


def tool_results(rig: Rig) -> list[Any]:
    last = rig.requests()[-1]
    return [m["content"] for m in last["messages"] if m["role"] == "tool"]


async def test_exports_reach_later_bash_commands_and_no_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(tmp_path, monkeypatch, SCRIPT, EVENTS, ANSWERS)
    await rig.run("Please echo")
    results = [str(r) for r in tool_results(rig)]
    assert "A=bar" in results[0]
    assert "A=bar B=moved" in results[2]
    entries = rig.entries()
    assert all("CLAUDE_CASE_A" not in e["env"] and "CLAUDE_CASE_B" not in e["env"] for e in entries)
    assert "CLAUDE_CASE_A" not in os.environ
    with_file = {e["event"]: e for e in entries if "CLAUDE_ENV_FILE" in e["env"]}
    assert sorted(with_file) == ["CwdChanged", "SessionStart"]
    session = entries[0]["payload"]["session_id"]
    # Beside the transcripts (dsh's data dir by default), not in Claude Code's config dir.
    folder = rig.transcripts.parent / "claude-session-env" / session
    start = with_file["SessionStart"]
    assert start["env"]["CLAUDE_ENV_FILE"] == str(folder / "sessionstart-hook-0.sh")
    # The hook's to create: it did not exist when the hook ran.
    assert start["env_paths"]["CLAUDE_ENV_FILE"]["exists"] is False
    cwd = with_file["CwdChanged"]["env"]["CLAUDE_ENV_FILE"]
    assert cwd == str(folder / "cwdchanged-hook-0.sh")


async def test_without_an_env_file_hook_bash_sees_nothing_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(tmp_path, monkeypatch, SCRIPT, ["PreToolUse"], ANSWERS)
    await rig.run("Please echo")
    assert "A= B=" in str(tool_results(rig)[2])
    assert all("CLAUDE_ENV_FILE" not in e["env"] for e in rig.entries())


async def test_a_subagents_bash_sees_the_sessions_exports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = {
        "rules": [
            {
                "first_user_contains": "SUBTASK",
                "responses": [[bash('echo "child A=$CLAUDE_CASE_A"')], [text("sub done")]],
            },
            {
                "has_tool": "Agent",
                "responses": [
                    [foreground_agent("SUBTASK: echo", subagent_type="general-purpose")],
                    [text("parent done")],
                ],
            },
        ]
    }
    rig = make_rig(tmp_path, monkeypatch, script, ["SessionStart", "PreToolUse"], ANSWERS)
    rig.harness.ctx.plugin(subagent_plugin)
    await rig.run("delegate")

    def first_user(request: dict[str, Any]) -> str:
        return str(next(m["content"] for m in request["messages"] if m["role"] == "user"))

    child = [r for r in rig.requests() if "SUBTASK" in first_user(r)][-1]
    child_results = [m["content"] for m in child["messages"] if m["role"] == "tool"]
    assert "child A=bar" in str(child_results)
