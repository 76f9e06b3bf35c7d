"""SubagentStop on the child's continuation seam: a block keeps the subagent running."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh.agent import run_notifications, subagent_plugin
from dsh.session import TurnEndReason
from tests.agent.support import bash, foreground_agent, text, tool
from tests.hooks_claude.bridge_support import make_rig


async def test_a_json_block_gives_the_subagent_another_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = {
        "rules": [
            {
                "first_user_contains": "SUBTASK",
                "responses": [[bash("echo from-sub")], [text("sub done")], [text("sub again")]],
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
    block = {"decision": "block", "reason": "KEEP-GOING"}
    rig = make_rig(
        tmp_path,
        monkeypatch,
        script,
        ["SubagentStop", "Stop"],
        {"SubagentStop": {"stdout": block, "times": 1}},
    )
    rig.harness.ctx.plugin(subagent_plugin)
    _, result = await rig.run("delegate")
    assert result.end_reason == TurnEndReason.COMPLETED
    assert rig.order() == ["SubagentStop", "SubagentStop", "Stop"]
    first, second = rig.payloads("SubagentStop")
    assert (first["stop_hook_active"], second["stop_hook_active"]) == (False, True)
    assert (first["last_assistant_message"], second["last_assistant_message"]) == (
        "sub done",
        "sub again",
    )
    users = [[m for m in r["messages"] if m["role"] == "user"] for r in rig.requests()]
    child = [r for r, u in zip(rig.requests(), users, strict=True) if "SUBTASK" in json.dumps(u)]
    assert len(child) == 3
    last = child[-1]["messages"][-1]
    assert last["role"] == "steering"
    assert "Stop hook feedback:\nKEEP-GOING" in last["text"]
    assert rig.payloads("Stop")[0]["last_assistant_message"] == "parent done"


async def test_stop_lists_a_running_background_subagent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "gate"
    launch = tool("Agent", description="Run echo", prompt="SUBTASK: x", run_in_background=True)
    script = {
        "rules": [
            {
                "first_user_contains": "SUBTASK",
                "responses": [
                    [bash(f"while [ ! -e {gate} ]; do sleep 0.05; done")],
                    [text("sub done")],
                ],
            },
            {"has_tool": "Agent", "responses": [[launch], [text("launched")], [text("told")]]},
        ]
    }
    rig = make_rig(tmp_path, monkeypatch, script, ["Stop", "SubagentStop", "UserPromptSubmit"])
    rig.harness.ctx.plugin(subagent_plugin)
    agent = rig.harness.agent()
    agent.send("delegate")
    await agent.run_turn()
    (stop,) = rig.payloads("Stop")
    (task,) = stop["background_tasks"]
    assert (task["type"], task["status"], task["description"]) == (
        "subagent",
        "running",
        "Run echo",
    )
    gate.write_text("go")
    await run_notifications(agent)
    await agent.close("other")
    assert rig.order() == ["UserPromptSubmit", "Stop", "SubagentStop", "UserPromptSubmit", "Stop"]
    (sub_stop,) = rig.payloads("SubagentStop")
    assert sub_stop["agent_id"] == task["id"]
    assert rig.payloads("UserPromptSubmit")[1]["prompt"].startswith("<task-notification>")
    assert rig.payloads("Stop")[1]["background_tasks"] == []
