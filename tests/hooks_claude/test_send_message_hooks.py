"""SendMessage's tool hooks as 2.1.332's (``tests/fixtures/claude_send_message.json``).

PreToolUse gets the input with the keys 2.1.332 adds (``type``, ``recipient``,
``recipient_kind``, ``content``); PostToolUse gets it as the model gave it. An
``updatedInput`` that echoes the added keys is applied without them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh.agent import _subagent, run_notifications, subagent_plugin
from tests.agent.support import text, tool
from tests.hooks_claude.bridge_support import make_rig

AGENT_ID = "a561921ec13a1680c"  # the recording's, so its payloads compare whole
FIXTURE = Path(__file__).parents[1] / "fixtures" / "claude_send_message.json"


async def test_pre_tool_use_gets_2_1_332s_added_keys_and_post_tool_use_the_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_subagent, "new_agent_id", lambda: AGENT_ID)
    recorded = json.loads(FIXTURE.read_text())
    sends = [h for h in recorded["hooks"] if h.get("tool_name") == "SendMessage"]
    pre, post = sends
    given = post["tool_input"]
    launch = tool("Agent", description="Report once", prompt="SUBTASK-MARKER: report.")
    send = tool("SendMessage", **given)
    script = {
        "rules": [
            {"first_user_contains": "SUBTASK-MARKER", "responses": [[text("r1")], [text("r2")]]},
            {"has_tool": "Agent", "responses": [[launch], [send], [text("sent")], [text("ok")]]},
        ]
    }
    long = "L" * 60
    echo = {**pre["tool_input"], "message": long, "content": "stale"}
    allow = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": echo,
        }
    }
    rig = make_rig(
        tmp_path,
        monkeypatch,
        script,
        {"PreToolUse": "SendMessage", "PostToolUse": "SendMessage"},
        {"PreToolUse": {"stdout": allow}},
    )
    rig.harness.ctx.plugin(subagent_plugin)
    agent = rig.harness.agent()
    agent.send("delegate")
    await agent.run_turn()
    await run_notifications(agent)
    await agent.close("other")
    (ours_pre,) = rig.payloads("PreToolUse")
    (ours_post,) = rig.payloads("PostToolUse")
    assert ours_pre["tool_input"] == pre["tool_input"]
    assert list(ours_pre["tool_input"]) == list(pre["tool_input"])
    # The hook's input applied without the keys PreToolUse showed: the message it set.
    assert ours_post["tool_input"] == {**given, "message": long}
    subagent = [r for r in rig.requests() if "SUBTASK-MARKER" in json.dumps(r["messages"][:1])]
    assert long in json.dumps(subagent[-1]["messages"][-1])


def test_content_is_cut_to_50_columns_and_kinds_follow_the_recipient() -> None:
    from dsh.hooks.claude.runtime._tool_input import pre_tool_input

    shown = pre_tool_input(
        "SendMessage", {"to": "main", "message": "x" * 51, "type": "forged"}, Path("/")
    )
    assert (shown["type"], shown["recipient_kind"]) == ("message", "main")
    assert shown["content"] == "x" * 49 + "\u2026"
    named = pre_tool_input("SendMessage", {"to": "reviewer", "message": "hi"}, Path("/"))
    assert (named["recipient_kind"], named["content"]) == ("name", "hi")
