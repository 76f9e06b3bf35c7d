"""A background subagent's SubagentStart hooks start before its Agent call returns, as 2.1.332's.

2.1.332 spawns the child's SubagentStart hooks before the call's result, so before the call's
PostToolUse hooks (the ``subagent`` case records either of the two log lines first: two
processes started moments apart). dsh's call returns once the executor says those hooks
have started: the order is the same on every run, not a race between the child's task and
the parent's step.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import psutil
import pytest

from dsh.agent import AGENT_TOOL, run_notifications
from dsh.hook_protocol import HookInvocationEvent
from dsh.tools import TOOLS, ToolInvocation, ToolResult
from tests.agent.support import text, tool
from tests.hooks_claude.bridge_support import make_rig


async def test_subagent_start_hooks_start_before_the_agent_call_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    launch = tool("Agent", description="Run echo", prompt="SUBTASK: x", run_in_background=True)
    script = {
        "rules": [
            {"first_user_contains": "SUBTASK", "responses": [[text("sub done")]]},
            {"has_tool": "Agent", "responses": [[launch], [text("launched")], [text("told")]]},
        ]
    }
    # SubagentStart's hook ends only once the call's PostToolUse is logged: the call must
    # not wait for it to end, only to start.
    answers = {"SubagentStart": {"wait_for": {"event": "PostToolUse", "nth": 1}}}
    rig = make_rig(
        tmp_path,
        monkeypatch,
        script,
        {"PreToolUse": "Agent", "PostToolUse": "Agent", "SubagentStart": None},
        answers,
    )
    # The Agent tool, and whether the SubagentStart hook's process was running as it returned.
    running: list[bool] = []

    async def agent_call(inv: ToolInvocation) -> ToolResult:
        result = await AGENT_TOOL.run(inv)
        hooks = psutil.Process().children(recursive=True)
        running.append(any("SubagentStart" in " ".join(_cmdline(p)) for p in hooks))
        return result

    rig.harness.ctx.require(TOOLS).register(dataclasses.replace(AGENT_TOOL, run=agent_call))
    agent = rig.harness.agent()
    agent.send("delegate")
    await agent.run_turn()
    await run_notifications(agent)
    await agent.close("other")
    assert running == [True]
    fired = [e.hook_event for e in agent.events if isinstance(e, HookInvocationEvent)]
    assert fired[:3] == ["PreToolUse", "SubagentStart", "PostToolUse"]
    assert set(rig.order()) == {"PreToolUse", "SubagentStart", "PostToolUse"}


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:  # ended meanwhile
        return []
