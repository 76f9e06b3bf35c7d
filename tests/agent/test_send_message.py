"""SendMessage: continuing a subagent as 2.1.332 does (``fixtures/claude_send_message.json``).

A finished subagent is resumed in the background from its own session with the message as its
next user message, and the caller is notified when it stops again (the notification names the
SendMessage call); a running one gets the message at its next step; any other name is not
addressable. While SendMessage is registered, Agent results offer it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import _subagent, run_notifications, subagent_plugin
from dsh.agent._send_message import delivered_text
from dsh.messages import content_text
from dsh.session import SubagentStart, ToolResultEvent, UserMessageEvent
from tests.agent.support import bash, make_harness, of_type, text, tool

AGENT_ID = "a0123456789abcdef"
FIXTURE = Path(__file__).parents[1] / "fixtures" / "claude_send_message.json"


@pytest.fixture(autouse=True)
def _fixed_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_subagent, "new_agent_id", lambda: AGENT_ID)


def _send(message: str, to: str = AGENT_ID) -> dict[str, Any]:
    return tool("SendMessage", to=to, summary="Ask again", message=message)


def _sub_texts(requests: list[dict[str, Any]]) -> list[str]:
    """The last user-side text of each subagent request."""
    subs = [r for r in requests if "SUBTASK-MARKER" in json.dumps(r["messages"][:1])]
    return [json.dumps(r["messages"][-1]) for r in subs]


async def test_a_finished_agent_is_resumed_with_the_message_and_notifies(tmp_path: Path) -> None:
    launch = tool("Agent", description="Report", prompt="SUBTASK-MARKER", run_in_background=False)
    script = {
        "rules": [
            {
                "first_user_contains": "SUBTASK-MARKER",
                "responses": [[text("report 1")], [text("report 2")]],
            },
            {
                "first_user_contains": "delegate",
                "responses": [[launch], [_send("CONTINUE-MARKER")], [text("sent")], [text("ok")]],
            },
        ]
    }
    h = make_harness(tmp_path, script)
    h.ctx.plugin(subagent_plugin)
    agent = h.agent()
    agent.send("delegate")
    assert (await agent.run_turn()).final_text == "sent"
    first, second = of_type(agent.events, ToolResultEvent)
    assert first.output["canContinueAgent"] is True
    offer = f"agentId: {AGENT_ID} (use SendMessage with to: '{AGENT_ID}', summary: '<5-10"
    assert f"\n{offer} word recap>' to continue this agent)\n<usage>" in content_text(first.content)
    assert isinstance(first.content, tuple)
    assert len(first.content) == 1  # one text block
    # 2.1.332's keys, in its order: the model's text, the hooks' tool_response.
    recorded = json.loads(FIXTURE.read_text())
    (theirs,) = [h for h in recorded["hooks"] if h.get("tool_name") == "SendMessage"][1:]
    said = json.loads(recorded["requests"][-1]["tool_results"][-1]["content"][0]["text"])
    assert list(json.loads(content_text(second.content))) == list(said)
    assert list(second.output) == list(theirs["tool_response"])
    assert json.loads(content_text(second.content)) == {
        "success": True,
        "message": f"Resuming agent {AGENT_ID[:7]}",
        "resumedAgentId": AGENT_ID,
        "pin": second.output["pin"],
    }
    assert second.output["revivedAgentId"] == AGENT_ID
    last = await run_notifications(agent)
    assert last is not None
    assert last.final_text == "ok"
    assert len(of_type(agent.events, SubagentStart)) == 2
    notification = content_text(of_type(agent.events, UserMessageEvent)[-1].content)
    assert "<result>report 2</result>" in notification
    assert f"<tool-use-id>{second.tool_use_id}</tool-use-id>" in notification
    resumed = _sub_texts(h.requests())[-1]
    assert json.dumps(delivered_text("CONTINUE-MARKER"))[1:-1] in resumed


async def test_a_running_agent_gets_the_message_at_its_next_step(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    launch = tool("Agent", description="Wait", prompt="SUBTASK-MARKER", run_in_background=True)
    script = {
        "rules": [
            {
                "first_user_contains": "SUBTASK-MARKER",
                "responses": [
                    [bash(f"while [ ! -e {gate} ]; do sleep 0.05; done")],
                    [text("saw it")],
                ],
            },
            {
                "first_user_contains": "delegate",
                "responses": [[launch], [_send("LIVE-MARKER")], [text("sent")], [text("ok")]],
            },
        ]
    }
    h = make_harness(tmp_path, script)
    h.ctx.plugin(subagent_plugin)
    agent = h.agent()
    agent.send("delegate")
    await agent.run_turn()
    sent = of_type(agent.events, ToolResultEvent)[-1]
    assert json.loads(content_text(sent.content)) == {
        "success": True,
        "message": f"Message queued for delivery to {AGENT_ID} at its next tool round. If it"
        " finishes first, it is resumed with the message and notifies again, so wait for that"
        " notification before resending.",
    }
    gate.write_text("go")
    await run_notifications(agent)
    assert len(of_type(agent.events, SubagentStart)) == 1
    assert json.dumps(delivered_text("LIVE-MARKER"))[1:-1] in _sub_texts(h.requests())[-1]


async def test_a_name_no_agent_has_is_not_addressable(tmp_path: Path) -> None:
    script = {"rules": [{"responses": [[_send("hello", to="nobody")], [text("done")]]}]}
    h = make_harness(tmp_path, script)
    h.ctx.plugin(subagent_plugin)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    (result,) = of_type(agent.events, ToolResultEvent)
    assert not result.is_error
    assert json.loads(content_text(result.content)) == {
        "success": False,
        "message": "No agent named 'nobody' is currently addressable. Spawn a new one or use the"
        " agent ID.",
    }


def test_the_pin_ref_is_2_1_332s() -> None:
    from dsh.agent._send_message import resumed

    recorded = json.loads(FIXTURE.read_text())
    (theirs,) = [h for h in recorded["hooks"] if h.get("tool_name") == "SendMessage"][1:]
    pin = theirs["tool_response"]["pin"]
    assert resumed(pin["id"]).output["pin"] == pin


async def test_a_resumed_agent_continues_its_output_file(tmp_path: Path) -> None:
    launch = tool("Agent", description="Report", prompt="SUBTASK-MARKER", run_in_background=True)
    script = {
        "rules": [
            {
                "first_user_contains": "SUBTASK-MARKER",
                "responses": [[text("report 1")], [text("report 2")]],
            },
            {
                "first_user_contains": "delegate",
                "responses": [
                    [launch],
                    [text("launched")],
                    [_send("CONTINUE-MARKER")],
                    [text("ok")],
                ],
            },
        ]
    }
    h = make_harness(tmp_path, script)
    h.ctx.plugin(subagent_plugin)
    agent = h.agent()
    agent.send("delegate")
    await agent.run_turn()
    await run_notifications(agent)  # the first report's turn sends the message
    await run_notifications(agent)
    await agent.close("other")
    output = tmp_path / "sessions" / agent.session_id / "tasks" / f"{AGENT_ID}.output"
    said = output.read_text()
    # Both runs' events, the first run's first: the resume appended to the file.
    assert said.index("report 1") < said.index("CONTINUE-MARKER") < said.index("report 2")
