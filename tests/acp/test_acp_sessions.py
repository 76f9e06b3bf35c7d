"""``dsh acp`` sessions: load replaying history, several per process, clean ends, bad requests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from acp import RequestError, text_block
from acp.schema import (
    AgentMessageChunk,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from tests.acp._harness import dsh_env, gone, run_agent_process, write_script, written_pid
from tests.acp._hooks import install_hooks, seen


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


async def test_load_replays_the_history_before_answering(tmp_path: Path, project: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {
                "contains": "second question",
                "responses": [[{"type": "text", "text": "still here"}]],
            },
            {
                "responses": [
                    [{"type": "tool_use", "name": "Bash", "input": {"command": "echo 42"}}],
                    [{"type": "text", "text": "the answer is 42"}],
                ]
            },
        ],
    )
    async with run_agent_process(tmp_path, script, "--no-claude-hooks") as first:
        await first.initialize()
        session = await first.new_session(project)
        await first.conn.prompt(session_id=session, prompt=[text_block("first question")])

    async with run_agent_process(tmp_path, script, "--no-claude-hooks") as second:
        await second.initialize()
        await second.conn.load_session(cwd=str(project), session_id=session, mcp_servers=[])
        # Everything arrived before the answer (the client waits for its handlers).
        replayed = second.client.of(session)
        kinds = [u.session_update for u in replayed]
        assert kinds == [
            "user_message_chunk",
            "tool_call",
            "tool_call_update",
            "agent_message_chunk",
            "available_commands_update",  # the slash commands dsh runs, after the history
        ]
        user, call, result, reply, _commands = replayed
        assert isinstance(user, UserMessageChunk)
        assert user.content.text == "first question"
        assert isinstance(call, ToolCallStart)
        assert call.title == "`echo 42`"
        assert isinstance(result, ToolCallProgress)
        assert result.status == "completed"
        assert isinstance(reply, AgentMessageChunk)
        assert reply.content.text == "the answer is 42"
        # The loaded session goes on with its history (the model sees the first exchange).
        second.client.updates.clear()
        answer = await second.conn.prompt(
            session_id=session, prompt=[text_block("second question")]
        )
        assert answer.stop_reason == "end_turn"
        assert second.client.text(session) == "still here"


async def test_several_sessions_each_end_once_when_stdin_closes(tmp_path: Path) -> None:
    projects = [tmp_path / "one", tmp_path / "two"]
    hooks = []
    for root in projects:
        root.mkdir()
        hooks.append(install_hooks(root, {}))
    script = write_script(tmp_path / "s.json", [{"responses": [[{"type": "text", "text": "ok"}]]}])
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        ids = [await agent.new_session(root) for root in projects]
        ids.append(await agent.new_session(projects[0]))  # a second session in one project
        for session in ids:
            answer = await agent.conn.prompt(session_id=session, prompt=[text_block("hi")])
            assert answer.stop_reason == "end_turn"
        assert len(set(ids)) == 3
    # Closing stdin ended every session: SessionEnd fired exactly once for each.
    ended = [row["session_id"] for h in hooks for row in seen(h, "SessionEnd")]
    assert sorted(ended) == sorted(ids)
    assert [row["cwd"] for row in seen(hooks[1], "SessionEnd")] == [str(projects[1])]


async def test_unknown_sessions_and_bad_requests_get_clear_errors(
    tmp_path: Path, project: Path
) -> None:
    script = write_script(tmp_path / "s.json", [{"responses": [[{"type": "text", "text": "ok"}]]}])
    async with run_agent_process(tmp_path, script, "--no-claude-hooks") as agent:
        await agent.initialize()
        with pytest.raises(RequestError) as unknown:
            await agent.conn.prompt(session_id="nope", prompt=[text_block("x")])
        assert unknown.value.code == -32002
        with pytest.raises(RequestError) as missing:
            await agent.conn.load_session(cwd=str(project), session_id="0" * 32, mcp_servers=[])
        assert missing.value.code == -32002
        with pytest.raises(RequestError) as relative:
            await agent.conn.new_session(cwd="relative/dir", mcp_servers=[])
        assert relative.value.code == -32602
        assert "absolute" in str(relative.value.data)
        with pytest.raises(RequestError) as absent:
            await agent.conn.new_session(cwd=str(project / "absent"), mcp_servers=[])
        assert "not a directory" in str(absent.value.data)
        session = await agent.new_session(project)
        with pytest.raises(RequestError) as empty:
            await agent.conn.prompt(session_id=session, prompt=[])
        assert empty.value.code == -32602
        with pytest.raises(RequestError) as unknown_mode:  # modes are Claude Code's (issue 32)
            await agent.conn.set_session_mode(session_id=session, mode_id="yolo")
        assert unknown_mode.value.code == -32602
        assert "yolo" in str(unknown_mode.value.data)
        # Errors leave the session usable.
        answer = await agent.conn.prompt(session_id=session, prompt=[text_block("x")])
        assert answer.stop_reason == "end_turn"
    assert "Traceback" not in agent.stderr


async def test_closing_stdin_mid_turn_kills_the_tool_and_ends_the_session_once(
    tmp_path: Path, project: Path
) -> None:
    hooks = install_hooks(project, {})
    bash = {
        "type": "tool_use",
        "name": "Bash",
        "input": {"command": "echo $$@$(stat -Lc %i /proc/self/ns/pid) > pid.txt; sleep 60"},
    }
    script = write_script(
        tmp_path / "s.json", [{"responses": [[bash], [{"type": "text", "text": "x"}]]}]
    )
    running = asyncio.Event()
    async with run_agent_process(tmp_path, script) as agent:
        agent.client.on_update = lambda u: (
            running.set() if getattr(u, "status", None) == "in_progress" else None
        )
        await agent.initialize()
        session = await agent.new_session(project)
        turn = asyncio.ensure_future(
            agent.conn.prompt(session_id=session, prompt=[text_block("sleep")])
        )
        await running.wait()
        pid = await written_pid(project / "pid.txt")
    # The process exited 0 by itself (the harness checks): the turn was aborted, the tool
    # killed, and session-end fired once.
    turn.cancel()
    with contextlib.suppress(asyncio.CancelledError, ConnectionError, RequestError):
        await turn
    assert gone(pid)
    assert [row["session_id"] for row in seen(hooks, "SessionEnd")] == [session]
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    ends = [json.loads(x) for x in log.read_text().splitlines() if '"turn/end"' in x]
    assert [e["reason"] for e in ends] == ["aborted"]


def test_a_bad_input_line_is_answered_as_a_parse_error_with_one_log_line_and_no_traceback(
    tmp_path: Path,
) -> None:
    script = write_script(tmp_path / "s.json", [{"responses": [[{"type": "text", "text": "ok"}]]}])
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": 1},
    }
    done = subprocess.run(
        [sys.executable, "-m", "dsh", "acp", "--model", f"scripted:{script}"],
        input="this is not json\n" + json.dumps(initialize) + "\n",
        capture_output=True,
        text=True,
        env=dsh_env(tmp_path),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # JSON-RPC's answer to a line that does not parse (issue 32), then initialize's.
    parse_error, line = done.stdout.splitlines()
    assert json.loads(parse_error)["error"]["code"] == -32700
    assert json.loads(line)["result"]["agentInfo"]["name"] == "dsh"
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("dsh acp: ")


async def test_sigterm_ends_every_session_cleanly(tmp_path: Path, project: Path) -> None:
    hooks = install_hooks(project, {})
    script = write_script(tmp_path / "s.json", [{"responses": [[{"type": "text", "text": "ok"}]]}])
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        await agent.conn.prompt(session_id=session, prompt=[text_block("hi")])
        agent.proc.send_signal(signal.SIGTERM)
        assert await agent.proc.wait() == 0
    assert [row["session_id"] for row in seen(hooks, "SessionEnd")] == [session]


async def test_a_display_hook_replaces_what_the_client_sees_live_and_on_load(
    tmp_path: Path, project: Path
) -> None:
    shown = {"hookSpecificOutput": {"hookEventName": "MessageDisplay", "displayContent": "SHOWN"}}
    install_hooks(project, {"MessageDisplay": {"stdout": shown}}, events=("MessageDisplay",))
    script = write_script(
        tmp_path / "s.json", [{"responses": [[{"type": "text", "text": "ORIGINAL"}]]}]
    )
    async with run_agent_process(tmp_path, script) as first:
        await first.initialize()
        session = await first.new_session(project)
        await first.conn.prompt(session_id=session, prompt=[text_block("hi")])
        assert first.client.text(session) == "SHOWN"
    async with run_agent_process(tmp_path, script) as second:
        await second.initialize()
        await second.conn.load_session(cwd=str(project), session_id=session, mcp_servers=[])
        assert second.client.text(session) == "SHOWN"
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    assert '"text":"ORIGINAL"' in log.read_text().replace(" ", "")  # the history keeps it
