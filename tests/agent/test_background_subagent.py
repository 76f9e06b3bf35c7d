"""Background subagents: the Agent call returns at once; a notification turn follows.

2.1.332's default: a call that does not say ``run_in_background: false`` launches the child
in the background; its result names the output file (the child's events, private, bounded),
and the notification carries the tool-use id, the output file, the child's tool uses, tokens
and duration. A subagent's own Agent call stays in the foreground.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import (
    _task_output,
    notifications_ready,
    run_notifications,
    run_ready_notifications,
    subagent_plugin,
    watch_background,
)
from dsh.agent._background import background_subagents
from dsh.messages import content_text
from dsh.session import (
    NoticeEvent,
    SubagentEnd,
    SubagentStart,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
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
    assert content_text(result.content).startswith("Async agent launched successfully.")
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


def _usage(tokens: int) -> dict[str, Any]:
    return {"type": "usage", "input_tokens": tokens - 20, "output_tokens": 20}


def _default_script(gate: Path) -> dict[str, Any]:
    # No `run_in_background`: 2.1.332's default is the background.
    launch = tool("Agent", description="Run echo", prompt=SUB)
    wait = bash(f"while [ ! -e {gate} ]; do sleep 0.05; done; echo from-sub")
    return {
        "rules": [
            {
                "first_user_contains": "SUBTASK-MARKER",
                "responses": [[wait, _usage(90)], [text("subagent result: from-sub"), _usage(120)]],
            },
            {
                "first_user_contains": "delegate",
                "responses": [[launch], [text("launched")], [text("notified")]],
            },
        ]
    }


async def test_by_default_the_call_launches_and_the_notification_says_what_2_1_332_says(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "gate"
    h = make_harness(tmp_path, _default_script(gate))
    h.ctx.plugin(subagent_plugin)
    agent = h.agent()
    woken: list[bool] = []
    remove = watch_background(agent, lambda: woken.append(notifications_ready(agent)))
    agent.send("delegate")
    first = await agent.run_turn()
    assert first.final_text == "launched"
    (call,) = [e for e in of_type(agent.events, ToolCallEvent) if e.tool_name == "Agent"]
    (result,) = of_type(agent.events, ToolResultEvent)
    (running,) = background_subagents(agent)
    output = tmp_path / "sessions" / agent.session_id / "tasks" / f"{running.agent_id}.output"
    (block,) = result.content  # one text block, as 2.1.332's
    said = block.text
    assert said.startswith("Async agent launched successfully. (This tool result")
    assert (
        f"agentId: {running.agent_id} (internal ID - do not mention to user. Use SendMessage"
        f" with to: '{running.agent_id}', summary: '<5-10 word recap>' to continue this"
        " agent.)\n" in said
    )
    assert f"\noutput_file: {output}\n" in said
    assert result.output["outputFile"] == str(output)
    assert result.output["canContinueAgent"] is True
    assert stat.S_IMODE(os.stat(output).st_mode) == 0o600
    assert not notifications_ready(agent)
    assert await run_ready_notifications(agent) is None  # nothing finished: no turn, no wait
    gate.write_text("go")
    last = await run_notifications(agent)
    remove()
    assert woken == [True]
    assert last is not None
    assert last.final_text == "notified"
    note = content_text(of_type(agent.events, UserMessageEvent)[1].content)
    assert note.startswith(
        f"<task-notification>\n<task-id>{running.agent_id}</task-id>\n"
        f"<tool-use-id>{call.tool_use_id}</tool-use-id>\n<output-file>{output}</output-file>\n"
        '<status>completed</status>\n<summary>Agent "Run echo" finished</summary>\n<note>'
    )
    assert "<result>subagent result: from-sub</result>\n" in note
    # The last model call's tokens, one tool call, and a duration.
    assert "<usage><subagent_tokens>120</subagent_tokens><tool_uses>1</tool_uses>" in note
    assert note.endswith("</duration_ms></usage>\n</task-notification>")
    lines = [json.loads(line) for line in output.read_text().splitlines()]
    assert lines[0]["type"] == "turn/start"
    assert {"tool/call", "tool/result", "assistant/message"} <= {line["type"] for line in lines}
    await agent.close()


async def test_the_output_file_stops_at_its_bound_and_never_follows_a_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_task_output, "MAX_OUTPUT_BYTES", 600)
    gate = tmp_path / "gate"
    gate.touch()
    h = make_harness(tmp_path, _default_script(gate))
    h.ctx.plugin(subagent_plugin)
    agent = h.agent()
    agent.send("delegate")
    await agent.run_turn()
    await run_notifications(agent)
    (output,) = (tmp_path / "sessions" / agent.session_id / "tasks").iterdir()
    data = output.read_bytes()
    assert len(data) <= 600 + 100
    assert json.loads(data.splitlines()[-1]) == {"type": "dsh/output-truncated", "limit_bytes": 600}
    await agent.close()
    # A planted link where the next output file goes is refused; the child still runs.
    victim = tmp_path / "victim"
    victim.write_text("keep")
    path = tmp_path / "elsewhere" / "a.output"
    path.parent.mkdir()
    path.symlink_to(victim)
    refused = _task_output.TaskOutput(path)
    assert not refused.opened
    refused.close()
    assert victim.read_text() == "keep"


async def test_a_subagents_own_agent_call_waits_for_its_answer(tmp_path: Path) -> None:
    inner = tool("Agent", description="Inner", prompt="INNER-MARKER: answer")
    script = {
        "rules": [
            {"first_user_contains": "INNER-MARKER", "responses": [[text("inner answer")]]},
            {
                "first_user_contains": "SUBTASK-MARKER",
                "responses": [[inner], [text("outer got it")]],
            },
            {
                "first_user_contains": "delegate",
                "responses": [
                    [tool("Agent", description="Outer", prompt=SUB)],
                    [text("ok")],
                    [text("notified")],
                ],
            },
        ]
    }
    h = make_harness(tmp_path, script)
    h.ctx.plugin(subagent_plugin)
    agent = h.agent()
    agent.send("delegate")
    await agent.run_turn()
    await run_notifications(agent)
    note = content_text(of_type(agent.events, UserMessageEvent)[1].content)
    assert "<result>outer got it</result>" in note
    await agent.close()


def test_without_an_output_file_the_result_is_2_1_332s_other_wording() -> None:
    from dsh.agent._subagent_launch import launch_text

    words = launch_text("a0123456789abcdef", None, can_continue=False)
    assert "output_file" not in words
    assert words.endswith(
        "In your own words, briefly tell the user what you launched \u2014 do not echo this tool"
        " result. Agent results will arrive in a subsequent message. If the user asks for"
        " progress, say the agent is still running."
    )
    offered = launch_text("a0123456789abcdef", None, can_continue=True)
    assert "Use SendMessage with to: 'a0123456789abcdef', summary: '<5-10 word recap>'" in offered


@pytest.mark.parametrize("waiting", [True, False])
async def test_a_chain_of_notification_turns_stops_at_its_bound(
    tmp_path: Path, waiting: bool
) -> None:
    # The model launches another subagent from every notification turn.
    launch = tool("Agent", description="Again", prompt=SUB)
    script = {
        "rules": [
            {"first_user_contains": "SUBTASK-MARKER", "responses": [[text("sub")]]},
            {"first_user_contains": "delegate", "responses": [[launch], [text("ok")]] * 10},
        ]
    }
    h = make_harness(tmp_path, script)
    h.ctx.plugin(subagent_plugin)
    agent = h.agent()
    agent.send("delegate")
    await agent.run_turn()
    if waiting:
        await run_notifications(agent, max_turns=3)
    else:
        for entry in background_subagents(agent):
            await entry.task
        assert notifications_ready(agent)
        await run_ready_notifications(agent, max_turns=3)
    (warning,) = [e.text for e in of_type(agent.events, NoticeEvent)]
    assert "3 such turns ran without a prompt in between" in warning
    assert len(of_type(agent.events, UserMessageEvent)) == 4  # the prompt, 3 notifications
    assert not notifications_ready(agent)
    await agent.close()
