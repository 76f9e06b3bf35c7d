"""Background subagents: the Agent call returns at once; a notification turn follows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dsh.agent import background_subagents, run_notifications, subagent_plugin
from dsh.session import SubagentEnd, SubagentStart, ToolResultEvent, UserMessageEvent, content_text
from tests.agent.support import bash, make_harness, of_type, text, tool, wait_for_file

SUB = "SUBTASK-MARKER: run echo from-sub and report."


def _script(sub_first: list[dict[str, Any]]) -> dict[str, Any]:
    launch = tool("Agent", description="Run echo", prompt=SUB, run_in_background=True)
    return {
        "rules": [
            {
                "first_user_contains": "SUBTASK-MARKER",
                "responses": [sub_first, [text("subagent result: from-sub")]],
            },
            {
                "first_user_contains": "delegate",
                "responses": [[launch], [text("launched")], [text("notified")]],
            },
        ]
    }


async def test_the_call_returns_at_once_and_a_notification_turn_follows(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    h = make_harness(tmp_path, _script([bash(f"while [ ! -e {gate} ]; do sleep 0.05; done")]))
    h.ctx.plugin(subagent_plugin)
    agent = h.agent()
    agent.send("delegate")
    first = await agent.run_turn()
    assert first.final_text == "launched"
    (result,) = of_type(agent.events, ToolResultEvent)
    assert result.content.startswith("Async agent launched successfully.")
    assert result.output["status"] == "async_launched"
    (running,) = background_subagents(agent)
    assert running.description == "Run echo"
    gate.write_text("go")
    last = await run_notifications(agent)
    assert last is not None
    assert last.final_text == "notified"
    assert background_subagents(agent) == ()
    prompts = [content_text(e.content) for e in of_type(agent.events, UserMessageEvent)]
    assert prompts[0] == "delegate"
    assert prompts[1].startswith(f"<task-notification>\n<task-id>{running.agent_id}</task-id>")
    assert "<result>subagent result: from-sub</result>" in prompts[1]
    assert len(of_type(agent.events, SubagentStart)) == len(of_type(agent.events, SubagentEnd))
    await agent.close()


async def test_closing_the_parent_ends_a_background_subagent(tmp_path: Path) -> None:
    started = tmp_path / "started"
    h = make_harness(tmp_path, _script([bash(f"echo up > {started}; sleep 30")]))
    h.ctx.plugin(subagent_plugin)
    agent = h.agent()
    agent.send("delegate")
    await agent.run_turn()
    await wait_for_file(started)
    (running,) = background_subagents(agent)
    await agent.close()
    assert running.task.done()
    assert background_subagents(agent) == ()
    (end,) = of_type(agent.events, SubagentEnd)
    assert end.end_reason == "aborted"
