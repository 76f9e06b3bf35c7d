"""Slash commands over ACP: offered with ``available_commands_update``, run by dsh."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from acp.schema import AvailableCommandsUpdate

from tests.acp._harness import AgentProcess, run_agent_process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


async def _offered(agent: AgentProcess, session: str) -> AvailableCommandsUpdate:
    for _ in range(600):  # it follows session/new's answer
        found = [u for u in agent.client.of(session) if isinstance(u, AvailableCommandsUpdate)]
        if found:
            return found[0]
        await asyncio.sleep(0.05)
    raise AssertionError("no available_commands_update")


def _events(tmp_path: Path) -> list[dict[str, Any]]:
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


async def test_compact_is_offered_and_run_by_dsh_not_sent_to_the_model(
    tmp_path: Path, project: Path
) -> None:
    rules = [
        {"no_tools": True, "responses": [[{"type": "text", "text": "THE-SUMMARY"}]]},
        {"responses": [[{"type": "text", "text": "hello back"}]]},
    ]
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"anthropic": {"rules": rules}}))
    async with run_agent_process(tmp_path, script, "--no-claude-hooks") as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        offered = await _offered(agent, session)
        names = [c.name for c in offered.available_commands]
        assert names == ["compact", "init", "model", "status", "cost", "permissions", "memory"]
        [command] = [c for c in offered.available_commands if c.name == "compact"]
        assert command.input is not None
        said = await agent.conn.prompt(session_id=session, prompt=[text_block("hello")])
        assert said.stop_reason == "end_turn"
        done = await agent.conn.prompt(
            session_id=session, prompt=[text_block("/compact keep the greeting")]
        )
        assert done.stop_reason == "end_turn"
        assert "Compacted" in agent.client.text(session, notices=True)
    events = _events(tmp_path)
    users = [e["content"] for e in events if e["type"] == "user/message"]
    assert users == ["hello"]
    [start] = [e for e in events if e["type"] == "compaction/start"]
    assert start["instructions"] == "keep the greeting"
    [end] = [e for e in events if e["type"] == "compaction/end"]
    assert "THE-SUMMARY" in end["summary"]


async def test_permissions_adds_and_removes_a_rule_where_claude_code_keeps_it(
    tmp_path: Path, project: Path
) -> None:
    """``/permissions add|remove`` over ACP edits as at the terminal: the rule goes to
    ``.claude/settings.local.json`` (2.1.332's first place) and is in force at once."""
    rules = [{"responses": [[{"type": "text", "text": "never asked"}]]}]
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"anthropic": {"rules": rules}}))
    local = project / ".claude" / "settings.local.json"
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        await _offered(agent, session)
        for text in ["/permissions add deny Bash(rm *)", "/permissions"]:
            done = await agent.conn.prompt(session_id=session, prompt=[text_block(text)])
            assert done.stop_reason == "end_turn"
        said = agent.client.text(session, notices=True)
        assert "Added deny rule Bash(rm *)" in said
        assert f"deny  Bash(rm *)  [local: {local}]" in said
        assert json.loads(local.read_text()) == {"permissions": {"deny": ["Bash(rm *)"]}}
        await agent.conn.prompt(
            session_id=session, prompt=[text_block("/permissions remove deny Bash(rm *)")]
        )
        assert "Deleted deny rule Bash(rm *)" in agent.client.text(session, notices=True)
    assert json.loads(local.read_text()) == {"permissions": {"deny": []}}
    assert not [e for e in _events(tmp_path) if e["type"] == "user/message"]
