"""``dsh acp`` turns end to end: a real process, the SDK's client, real tools and real hooks.

Every agent→client message of every test is checked against the ACP schema
(``_harness.WireCheck``), and every process must exit 0 once stdin closes.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import (
    AgentPlanUpdate,
    ContentToolCallContent,
    FileEditToolCallContent,
    ImageContentBlock,
    McpServerStdio,
    TextContentBlock,
    ToolCallStart,
)

from tests.acp._harness import (
    AgentProcess,
    content_text,
    gone,
    run_agent_process,
    write_script,
    written_pid,
)
from tests.acp._hooks import install_hooks, pre_tool, seen
from tests.nspids import SHELL_PID


def bash(command: str, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": "Bash", "input": {"command": command, **extra}}


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


async def prompt(agent: AgentProcess, session_id: str, words: str) -> str:
    response = await agent.conn.prompt(session_id=session_id, prompt=[text_block(words)])
    return response.stop_reason


def starts(agent: AgentProcess, session_id: str) -> list[ToolCallStart]:
    return [u for u in agent.client.of(session_id) if isinstance(u, ToolCallStart)]


async def test_initialize_advertises_load_prompt_kinds_and_mcp(
    tmp_path: Path, project: Path
) -> None:
    echo = {"type": "tool_use", "name": "mcp__sample__echo", "input": {"message": "via acp"}}
    script = write_script(tmp_path / "s.json", [{"responses": [[echo], [text("hi")]]}])
    async with run_agent_process(tmp_path, script) as agent:
        init = await agent.initialize()
        caps = init.agent_capabilities
        assert init.protocol_version == 1
        assert caps.load_session is True
        assert caps.prompt_capabilities.image is True
        assert caps.prompt_capabilities.embedded_context is True
        assert caps.prompt_capabilities.audio is False
        assert caps.mcp_capabilities.http is True
        assert caps.mcp_capabilities.sse is True
        assert init.agent_info.name == "dsh"
        # A session given an MCP server starts it: its tool runs.
        server = str(Path(__file__).parents[1] / "mcp" / "sample_server.py")
        stdio_server = McpServerStdio(name="sample", command=sys.executable, args=[server], env=[])
        new = await agent.conn.new_session(cwd=str(project), mcp_servers=[stdio_server])
        assert await prompt(agent, new.session_id, "hello") == "end_turn"
        assert agent.client.text(new.session_id) == "hi"
        assert "Echo: via acp" in json.dumps(
            [u.model_dump(mode="json") for u in agent.client.of(new.session_id)]
        )


async def test_an_ask_is_a_permission_request_allowed_then_rejected(
    tmp_path: Path, project: Path
) -> None:
    hooks = install_hooks(project, {"PreToolUse": pre_tool("ask", "writes a file")})
    script = write_script(
        tmp_path / "s.json",
        [
            {
                "first_user_contains": "allow",
                "responses": [[bash("echo ok > allowed.txt")], [text("did it")]],
            },
            {
                "first_user_contains": "reject",
                "responses": [[bash("echo no > rejected.txt")], [text("was refused")]],
            },
        ],
    )
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        allowed = await agent.new_session(project)
        agent.client.answers = ["allow_once"]
        assert await prompt(agent, allowed, "allow it") == "end_turn"
        assert (project / "allowed.txt").read_text() == "ok\n"
        [(asked, options)] = agent.client.permissions
        [start] = starts(agent, allowed)
        assert asked.tool_call_id == start.tool_call_id
        assert asked.title == start.title == "`echo ok > allowed.txt`"
        # Why dsh asks reaches the editor: the asking hook's reason, with the call.
        [why] = asked.content or []
        assert isinstance(why, ContentToolCallContent)
        assert isinstance(why.content, TextContentBlock)
        assert why.content.text.endswith("Asked because: writes a file")
        assert asked.field_meta == {"dsh": {"reason": "writes a file"}}
        assert start.kind == "execute"
        assert [o.kind for o in options] == [
            "allow_once",
            "allow_always",
            "reject_once",
            "reject_always",
        ]
        statuses = agent.client.statuses(allowed, start.tool_call_id)
        assert statuses == ["pending", "in_progress", "completed"]
        assert agent.client.text(allowed) == "did it"

        rejected = await agent.new_session(project)
        agent.client.answers = ["reject_once"]
        assert await prompt(agent, rejected, "reject it") == "end_turn"
        assert not (project / "rejected.txt").exists()
        [start] = starts(agent, rejected)
        assert agent.client.statuses(rejected, start.tool_call_id) == ["pending", "failed"]
        [final] = [u for u in agent.client.tool_updates(rejected) if u.status == "failed"]
        assert "rejected" in content_text(final)
        assert agent.client.text(rejected) == "was refused"
    assert len(seen(hooks, "PreToolUse")) == 2


async def test_allow_always_and_reject_always_are_remembered_for_the_session(
    tmp_path: Path, project: Path
) -> None:
    install_hooks(project, {"PreToolUse": pre_tool("ask", "asks every time")})
    twice = [[bash("echo a >> a.txt")], [bash("echo a >> a.txt")], [text("twice")]]
    script = write_script(tmp_path / "s.json", [{"responses": twice}])
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        always = await agent.new_session(project)
        agent.client.answers = ["allow_always"]
        assert await prompt(agent, always, "go") == "end_turn"
        assert (project / "a.txt").read_text() == "a\na\n"
        assert len(agent.client.permissions) == 1
        never = await agent.new_session(project)
        agent.client.answers = ["reject_always"]
        assert await prompt(agent, never, "go") == "end_turn"
        assert len(agent.client.permissions) == 2  # the second identical call was not asked
        failed = [u for u in agent.client.tool_updates(never) if u.status == "failed"]
        assert len(failed) == 2
        assert (project / "a.txt").read_text() == "a\na\n"


async def test_cancel_mid_tool_kills_it_and_the_prompt_answers_cancelled(
    tmp_path: Path, project: Path
) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {
                "responses": [
                    [bash(f"echo {SHELL_PID} > pid.txt; sleep 60; echo late > late.txt")],
                    [text("x")],
                ]
            }
        ],
    )
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        running = asyncio.Event()
        agent.client.on_update = lambda u: (
            running.set() if getattr(u, "status", None) == "in_progress" else None
        )
        turn = asyncio.ensure_future(prompt(agent, session, "sleep"))
        await running.wait()
        pid = await written_pid(project / "pid.txt")
        # A second prompt while this one runs is refused, clearly.
        with pytest.raises(RequestError) as refused:
            await prompt(agent, session, "another")
        assert "already answering a prompt" in str(refused.value)
        await agent.conn.cancel(session_id=session)
        assert await turn == "cancelled"
        [start] = starts(agent, session)
        assert agent.client.statuses(session, start.tool_call_id)[-1] == "failed"
        assert gone(pid)
        assert not (project / "late.txt").exists()
        # The session goes on: the next prompt runs.
        assert await prompt(agent, session, "again") in ("end_turn", "cancelled")


async def test_cancel_resolves_a_pending_permission_request_as_cancelled(
    tmp_path: Path, project: Path
) -> None:
    install_hooks(project, {"PreToolUse": pre_tool("ask", "needs a person")})
    script = write_script(
        tmp_path / "s.json", [{"responses": [[bash("echo no > never.txt")], [text("x")]]}]
    )
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        agent.client.hold = asyncio.Event()  # the client never answers before the cancel
        turn = asyncio.ensure_future(prompt(agent, session, "go"))
        await agent.client.asked.wait()
        await agent.conn.cancel(session_id=session)
        assert await turn == "cancelled"
        agent.client.hold.set()  # a late answer changes nothing
        assert not (project / "never.txt").exists()
        [start] = starts(agent, session)
        assert agent.client.statuses(session, start.tool_call_id)[-1] == "failed"
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    results = [json.loads(x) for x in log.read_text().splitlines() if '"tool/result"' in x]
    assert results[0]["approval"]["outcome"] == "cancelled"


async def test_a_blocked_prompt_ends_cancelled_with_its_reason_as_a_notice(
    tmp_path: Path, project: Path
) -> None:
    install_hooks(project, {"UserPromptSubmit": {"exit": 2, "stderr": "no secrets in prompts"}})
    script = write_script(tmp_path / "s.json", [{"responses": [[text("should not run")]]}])
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        assert await prompt(agent, session, "my password is hunter2") == "cancelled"
        assert "no secrets in prompts" in agent.client.text(session, notices=True)
        assert agent.client.text(session) == ""


async def test_a_claude_code_deny_is_a_failed_tool_call_with_the_reason(
    tmp_path: Path, project: Path
) -> None:
    install_hooks(project, {"PreToolUse": pre_tool("deny", "rm is not allowed here")})
    script = write_script(
        tmp_path / "s.json", [{"responses": [[bash("rm -rf build")], [text("ok, not removed")]]}]
    )
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        assert await prompt(agent, session, "clean") == "end_turn"
        [start] = starts(agent, session)
        assert agent.client.statuses(session, start.tool_call_id) == ["pending", "failed"]
        final = agent.client.tool_updates(session)[-1]
        assert "rm is not allowed here" in content_text(final)
        assert agent.client.permissions == []


async def test_untrusted_project_hooks_are_left_out_with_a_notice_naming_the_remedy(
    tmp_path: Path, project: Path
) -> None:
    install_hooks(project, {"PreToolUse": pre_tool("deny", "rm is not allowed here")})
    script = write_script(
        tmp_path / "s.json", [{"responses": [[bash("echo kept")], [text("ran it")]]}]
    )
    async with run_agent_process(tmp_path, script, trust=False) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        assert await prompt(agent, session, "go") == "end_turn"
        [start] = starts(agent, session)
        assert agent.client.statuses(session, start.tool_call_id)[-1] == "completed"
        notices = agent.client.text(session, notices=True)
        assert "dsh hooks trust" in notices
        assert "rm is not allowed here" not in agent.client.text(session, notices=None)


async def test_hook_messages_and_errors_are_notices_the_model_never_sees(
    tmp_path: Path, project: Path
) -> None:
    rules = {
        "PostToolUse": {"stdout": {"systemMessage": "lint: 3 warnings in out.txt"}},
        "SessionStart": {"exit": 2, "stderr": "env check failed"},  # a hook error
    }
    install_hooks(project, rules)
    script = write_script(
        tmp_path / "s.json",
        [
            {"contains": "lint: 3 warnings", "responses": [[text("LEAKED")]]},
            {"contains": "env check failed", "responses": [[text("LEAKED")]]},
            {"responses": [[bash("echo x > out.txt")], [text("clean")]]},
        ],
    )
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        assert await prompt(agent, session, "write") == "end_turn"
        assert "lint: 3 warnings in out.txt" in agent.client.text(session, notices=True)
        assert agent.client.text(session) == "clean"
        assert "SessionStart hook error" in agent.client.text(session, notices=True)
        notices = [u.field_meta["dsh"]["notice"] for u in agent.client.of(session) if u.field_meta]
        assert [(n["source"], n["level"]) for n in notices] == [
            ("claude-hooks:SessionStart", "warning"),
            ("claude-hooks:PostToolUse", "info"),
        ]


async def test_a_rewritten_input_is_what_the_client_is_shown(tmp_path: Path, project: Path) -> None:
    rewrite = pre_tool("allow", "safer", updatedInput={"command": "echo safe > out.txt"})
    install_hooks(project, {"PreToolUse": rewrite})
    script = write_script(
        tmp_path / "s.json", [{"responses": [[bash("echo risky > out.txt")], [text("done")]]}]
    )
    async with run_agent_process(tmp_path, script) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        assert await prompt(agent, session, "go") == "end_turn"
        [start] = starts(agent, session)
        assert start.raw_input == {"command": "echo safe > out.txt"}
        assert start.title == "`echo safe > out.txt`"
        assert (project / "out.txt").read_text() == "safe\n"


async def test_edits_show_locations_and_diffs_and_tasks_show_a_plan(
    tmp_path: Path, project: Path
) -> None:
    (project / "notes.txt").write_text("alpha\nbeta\n")
    edit = {
        "type": "tool_use",
        "name": "Edit",
        "input": {"file_path": "notes.txt", "old_string": "beta", "new_string": "gamma"},
    }
    task = {
        "type": "tool_use",
        "name": "TaskCreate",
        "input": {"subject": "Rename beta", "description": "in notes.txt"},
    }
    script = write_script(tmp_path / "s.json", [{"responses": [[task], [edit], [text("done")]]}])
    async with run_agent_process(tmp_path, script, "--no-claude-hooks") as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        assert await prompt(agent, session, "edit") == "end_turn"
        [plan] = [u for u in agent.client.of(session) if isinstance(u, AgentPlanUpdate)]
        assert [(e.content, e.status) for e in plan.entries] == [("Rename beta", "pending")]
        edit_start = next(u for u in starts(agent, session) if u.kind == "edit")
        assert edit_start.title == "Edit notes.txt"
        assert [loc.path for loc in edit_start.locations or ()] == [str(project / "notes.txt")]
        [diff] = edit_start.content or []
        assert isinstance(diff, FileEditToolCallContent)
        assert (diff.old_text, diff.new_text) == ("alpha\nbeta\n", "alpha\ngamma\n")
        assert (project / "notes.txt").read_text() == "alpha\ngamma\n"


async def test_stop_reasons_refusal_and_max_turn_requests(tmp_path: Path, project: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {"first_user_contains": "refuse", "responses": [[{"type": "refusal"}]]},
            {"first_user_contains": "loop", "responses": [[bash("true")]]},
            {"first_user_contains": "fail", "responses": [[{"type": "http_error", "status": 400}]]},
        ],
    )
    args = ("--no-claude-hooks", "--max-steps", "2")
    async with run_agent_process(tmp_path, script, *args) as agent:
        await agent.initialize()
        assert await prompt(agent, await agent.new_session(project), "refuse") == "refusal"
        assert await prompt(agent, await agent.new_session(project), "loop") == "max_turn_requests"
        with pytest.raises(RequestError) as failed:
            await prompt(agent, await agent.new_session(project), "fail")
        assert "HTTP 400" in str(failed.value)


def test_stdout_carries_only_protocol_messages(tmp_path: Path) -> None:
    # What anything else in the process writes to fd 1 (a print, a child that inherits
    # it) lands on stderr; a child reading fd 0 reads nothing of the protocol's input.
    code = (
        "import os, sys\n"
        "from dsh.acp._stdio import _take_stdio\n"
        "source, sink = _take_stdio()\n"
        "print('NOISE-PRINT', flush=True)\n"
        "os.system('echo NOISE-CHILD; cat > /dev/null')\n"
        "sink.write(source.readline())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=b'{"jsonrpc":"2.0"}\n',
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b'{"jsonrpc":"2.0"}\n'
    assert b"NOISE-PRINT" in done.stderr
    assert b"NOISE-CHILD" in done.stderr


async def test_text_streams_in_chunks_and_images_reach_the_session(
    tmp_path: Path, project: Path
) -> None:
    script = write_script(
        tmp_path / "s.json", [{"responses": [[text("first part"), text("second")]]}]
    )
    async with run_agent_process(tmp_path, script, "--no-claude-hooks") as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        image = ImageContentBlock(type="image", data="iVBORw0KGgo=", mime_type="image/png")
        answer = await agent.conn.prompt(
            session_id=session, prompt=[text_block("what is this?"), image]
        )
        assert answer.stop_reason == "end_turn"
        chunks = [u for u in agent.client.of(session) if u.session_update == "agent_message_chunk"]
        assert [c.content.text for c in chunks] == ["first part", "\n\nsecond"]
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    [user] = [json.loads(x) for x in log.read_text().splitlines() if '"user/message"' in x]
    assert [b["type"] for b in user["content"]] == ["text", "image"]
    assert user["content"][1]["media_type"] == "image/png"
