"""``dsh acp`` and a PreToolUse hook's ``defer``: the deferred call is put to the client as a
``session/request_permission`` (run it, or reject it) when the turn ends on it; a request the
client cancels leaves it pending in the log, and it is asked about again before the next
prompt. Run, it has the same ``tool_use_id`` (the hook is asked again)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from tests.acp._harness import run_agent_process, write_script
from tests.acp._hooks import install_hooks, pre_tool, seen


def bash(command: str) -> dict[str, Any]:
    return {"type": "tool_use", "name": "Bash", "input": {"command": command}}


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


async def test_a_deferred_call_is_put_to_the_client_and_waits_when_unanswered(
    tmp_path: Path, project: Path
) -> None:
    hooks = install_hooks(project, {"PreToolUse": pre_tool("defer", "later")})
    script = write_script(
        tmp_path / "s.json",
        [{"responses": [[bash("echo ran > ran.txt")], [text("done")], [text("and again")]]}],
    )
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        # Run it: the hook defers it again, and the second question goes unanswered.
        agent.client.answers = ["allow_once"]
        response = await agent.conn.prompt(session_id=session, prompt=[text_block("go")])
        assert response.stop_reason == "end_turn"
        assert not (project / "ran.txt").exists()
        assert len(agent.client.permissions) == 2
        (asked, options) = agent.client.permissions[0]
        assert [o.kind for o in options] == ["allow_once", "reject_once"]
        assert "deferred by claude-hooks:PreToolUse" in json.dumps(asked.model_dump(mode="json"))
        # The hook stops deferring; the next prompt first settles the waiting call.
        (hooks / "rules.json").write_text("{}")
        agent.client.answers = ["allow_once"]
        response = await agent.conn.prompt(session_id=session, prompt=[text_block("more")])
        assert response.stop_reason == "end_turn"
        assert (project / "ran.txt").read_text() == "ran\n"
    ids = {p["tool_use_id"] for p in seen(hooks, "PreToolUse")}
    assert len(seen(hooks, "PreToolUse")) == 3
    assert len(ids) == 1  # the same call, asked about three times


async def test_a_deferred_call_the_client_rejects_never_runs(tmp_path: Path, project: Path) -> None:
    install_hooks(project, {"PreToolUse": pre_tool("defer", "later")})
    script = write_script(
        tmp_path / "s.json", [{"responses": [[bash("echo ran > ran.txt")], [text("refused")]]}]
    )
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        agent.client.answers = ["reject_once"]
        response = await agent.conn.prompt(session_id=session, prompt=[text_block("go")])
        assert response.stop_reason == "end_turn"
        assert agent.client.text(session) == "refused"
    assert not (project / "ran.txt").exists()


async def test_a_permission_request_to_the_client_fires_notification(
    tmp_path: Path, project: Path
) -> None:
    events = ("PreToolUse", "Notification")
    hooks = install_hooks(project, {"PreToolUse": pre_tool("ask", "asks")}, events=events)
    script = write_script(tmp_path / "s.json", [{"responses": [[bash("echo x")], [text("ok")]]}])
    # 2.1.332 waits 6 s for an answer first; the test's wait is 0.05 s, and the client answers
    # only once the hook has run: the notification comes while the question waits.
    env = {"DSH_PERMISSION_NOTIFY_SECONDS": "0.05"}
    async with run_agent_process(tmp_path, script, env=env) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        agent.client.answers = ["allow_once"]
        agent.client.hold = asyncio.Event()
        prompt = asyncio.ensure_future(
            agent.conn.prompt(session_id=session, prompt=[text_block("go")])
        )
        while not seen(hooks, "Notification"):
            await asyncio.sleep(0.02)
        agent.client.hold.set()
        response = await prompt
        assert response.stop_reason == "end_turn"
    [notified] = seen(hooks, "Notification")
    assert notified["notification_type"] == "permission_prompt"
    assert notified["message"] == "Claude needs your permission to use Bash"
