"""ACP session modes (Claude Code's permission modes), the ``mode`` and ``model`` options,
and the slash commands dsh answers itself (issue 32), with the SDK's client side."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import ConfigOptionUpdate, CurrentModeUpdate

from tests.acp._harness import run_agent_process, write_script
from tests.acp._hooks import install_hooks, seen

WRITE = {"type": "tool_use", "name": "Write", "input": {"file_path": "f.txt", "content": "x"}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def _option(options: Any, name: str) -> Any:
    [found] = [o.root if hasattr(o, "root") else o for o in options if _id(o) == name]
    return found


def _id(option: Any) -> str:
    return str(getattr(option, "root", option).id)


async def test_the_permission_modes_are_session_modes_the_client_sets(
    tmp_path: Path, project: Path
) -> None:
    hooks = install_hooks(project, {}, events=("PreToolUse",))
    rules = [{"responses": [[WRITE], [{"type": "text", "text": "done"}]]}]
    script = write_script(tmp_path / "s.json", rules)
    async with run_agent_process(tmp_path, script, "--permission-mode", "default") as agent:
        await agent.initialize()
        opened = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
        session = opened.session_id
        assert opened.modes is not None
        assert opened.modes.current_mode_id == "default"
        offered = [m.id for m in opened.modes.available_modes]
        assert offered == ["default", "acceptEdits", "plan", "dontAsk"]  # no bypass: not begun so
        assert _option(opened.config_options, "mode").current_value == "default"
        await agent.conn.set_session_mode(session_id=session, mode_id="plan")
        changed = [u for u in agent.client.of(session) if isinstance(u, CurrentModeUpdate)]
        assert [u.current_mode_id for u in changed] == ["plan"]
        answer = await agent.conn.prompt(session_id=session, prompt=[text_block("write it")])
        assert answer.stop_reason == "end_turn"
        assert not (project / "f.txt").exists()  # plan mode: no edits
        assert [p["permission_mode"] for p in seen(hooks, "PreToolUse")] == ["plan"]
        with pytest.raises(RequestError) as bypass:
            await agent.conn.set_session_mode(session_id=session, mode_id="bypassPermissions")
        assert bypass.value.code == -32602
        set_ = await agent.conn.set_config_option(
            config_id="mode", session_id=session, value="acceptEdits"
        )
        assert _option(set_.config_options, "mode").current_value == "acceptEdits"
        loaded = await agent.conn.load_session(cwd=str(project), session_id=session, mcp_servers=[])
        assert loaded.modes is not None
        assert loaded.modes.current_mode_id == "acceptEdits"


async def test_the_model_option_switches_through_pre_model_switch(
    tmp_path: Path, project: Path
) -> None:
    deny = {"stdout": {"decision": "block", "reason": "NOT-THIS-ONE"}}
    hooks = install_hooks(project, {"PreModelSwitch": deny}, events=("PreModelSwitch",))
    script = write_script(tmp_path / "s.json", [{"responses": [[{"type": "text", "text": "hi"}]]}])
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        opened = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
        model = _option(opened.config_options, "model")
        assert model.category == "model"
        with pytest.raises(RequestError) as refused:
            await agent.conn.set_config_option(
                config_id="model", session_id=opened.session_id, value=model.current_value
            )
        assert "NOT-THIS-ONE" in str(refused.value.data)
        assert len(seen(hooks, "PreModelSwitch")) == 1
        with pytest.raises(RequestError) as unknown:
            await agent.conn.set_config_option(
                config_id="colour", session_id=opened.session_id, value="red"
            )
        assert unknown.value.code == -32602


async def test_status_cost_and_model_are_answered_by_dsh(tmp_path: Path, project: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"responses": [[{"type": "text", "text": "hi"}]]}])
    async with run_agent_process(tmp_path, script, "--no-claude-hooks") as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        for command in ("/status", "/cost", "/model"):
            said = await agent.conn.prompt(session_id=session, prompt=[text_block(command)])
            assert said.stop_reason == "end_turn"
        await asyncio.sleep(0)
        notices = agent.client.text(session, notices=True)
        assert f"Session ID: {session}" in notices
        assert "Model replies: 0" in notices
        assert "Current model: " in notices
        assert agent.client.text(session) == ""  # the model said nothing
        options = [u for u in agent.client.of(session) if isinstance(u, ConfigOptionUpdate)]
        assert options == []
