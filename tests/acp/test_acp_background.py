"""``dsh acp`` runs a background subagent's notification turn, as Claude Code's ACP adapter does.

An ``Agent`` call (in the background by default, as 2.1.332) answers the prompt at once;
when the child finishes, the session runs a turn the client did not prompt and streams it
as ``session/update``s: the ``<task-notification>`` prompt as a user message, then the
reply. A child that finishes while a prompt runs waits for that prompt to be answered; a
prompt sent during a notification turn waits for it. The child's Bash waits for a file the
test creates, so the order never depends on timing. A real process, the SDK's client, every
message checked against the ACP schema.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from acp.schema import ToolCallStart, UserMessageChunk

from tests.acp._harness import AgentProcess, run_agent_process, write_script

GATE_WAIT = "while [ ! -e {} ]; do sleep 0.05; done"


def bash(command: str) -> dict[str, Any]:
    return {"type": "tool_use", "name": "Bash", "input": {"command": command}}


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


LAUNCH = {
    "type": "tool_use",
    "name": "Agent",
    "input": {"description": "Wait here", "prompt": "SUBTASK: wait for the gate"},
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def _script(tmp_path: Path, gate: Path, parent: list[list[dict[str, Any]]]) -> Path:
    child = [[bash(GATE_WAIT.format(gate) + "; echo from-child")], [text("CHILD-RESULT")]]
    rules = [
        {"first_user_contains": "SUBTASK", "responses": child},
        {"first_user_contains": "delegate", "responses": parent},
    ]
    return write_script(tmp_path / "s.json", rules)


async def _prompt(agent: AgentProcess, session: str, words: str) -> str:
    response = await agent.conn.prompt(session_id=session, prompt=[text_block(words)])
    return response.stop_reason


def _notifications(agent: AgentProcess, session: str) -> list[str]:
    chunks = [u for u in agent.client.of(session) if isinstance(u, UserMessageChunk)]
    texts = [getattr(c.content, "text", "") for c in chunks]
    return [t for t in texts if t.startswith("<task-notification>")]


async def _until(agent: AgentProcess, session: str, words: str) -> None:
    """Wait until the agent's text (outside any prompt) holds ``words``."""
    async with asyncio.timeout(60):
        while words not in agent.client.text(session):
            await asyncio.sleep(0.05)


async def test_a_finished_child_starts_a_turn_the_client_sees_after_its_prompt(
    tmp_path: Path, project: Path
) -> None:
    gate = tmp_path / "gate"
    script = _script(tmp_path, gate, [[LAUNCH], [text("LAUNCHED")], [text("NOTIFIED")]])
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        assert await _prompt(agent, session, "delegate") == "end_turn"
        assert "LAUNCHED" in agent.client.text(session)
        assert not _notifications(agent, session)
        answered = len(agent.client.of(session))
        gate.touch()
        await _until(agent, session, "NOTIFIED")
        (note,) = _notifications(agent, session)
        assert "<result>CHILD-RESULT</result>" in note
        assert "<output-file>" in note
        # All of the notification turn came after the prompt's answer.
        later = agent.client.of(session)[answered:]
        assert any(isinstance(u, UserMessageChunk) for u in later)


async def test_a_child_finishing_mid_prompt_waits_and_a_prompt_mid_notification_waits(
    tmp_path: Path, project: Path
) -> None:
    gate, hold, slow = tmp_path / "gate", tmp_path / "hold", tmp_path / "slow"
    parent = [
        [LAUNCH],
        [text("LAUNCHED")],
        [bash(GATE_WAIT.format(hold))],  # the second prompt holds until the test says
        [text("HELD")],
        [bash(GATE_WAIT.format(slow))],  # the notification turn holds too
        [text("NOTIFIED")],
        [text("AFTER")],
    ]
    script = _script(tmp_path, gate, parent)
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        assert await _prompt(agent, session, "delegate") == "end_turn"
        second = asyncio.ensure_future(_prompt(agent, session, "hold on"))
        await _starts(agent, session, 2)  # the second prompt's Bash waits for `hold`
        gate.touch()  # the child finishes while the second prompt runs
        async with asyncio.timeout(60):
            while not _child_done(tmp_path):
                await asyncio.sleep(0.05)
        assert not _notifications(agent, session)
        hold.touch()
        assert await second == "end_turn"
        assert "HELD" in agent.client.text(session)
        await _starts(agent, session, 3)  # the notification turn's Bash waits for `slow`
        assert len(_notifications(agent, session)) == 1
        # A prompt sent while the notification turn runs is not refused: it waits for it.
        third = asyncio.ensure_future(_prompt(agent, session, "and then?"))
        await asyncio.sleep(0.2)
        assert not third.done()
        slow.touch()
        assert await third == "end_turn"
        words = agent.client.text(session)
        assert words.index("HELD") < words.index("NOTIFIED") < words.index("AFTER")


async def _starts(agent: AgentProcess, session: str, n: int) -> None:
    """Wait until the client has been shown ``n`` tool calls (the child's are not shown)."""
    async with asyncio.timeout(60):
        while len([u for u in agent.client.of(session) if isinstance(u, ToolCallStart)]) < n:
            await asyncio.sleep(0.05)


def _child_done(tmp_path: Path) -> bool:
    """Whether the child's session has logged its turn's end (its log holds ``turn/end``)."""
    for log in (tmp_path / "sessions").glob("*.jsonl"):
        body = log.read_text()
        if "SUBTASK" in body and '"turn/end"' in body:
            return True
    return False
