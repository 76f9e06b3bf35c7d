"""The trust question over ACP: a real ``dsh acp``, the SDK's client, real hooks.

A project whose own hooks are not trusted is asked about before its session opens,
with ``session/request_permission`` under the id the session then gets: accepted, the
hooks run and the trust is recorded (a second session is not asked); declined, they
are left out with a notice naming ``dsh hooks trust``; a trusted project is not asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acp._harness import RecordingClient, run_agent_process, write_script
from tests.acp._hooks import install_hooks, pre_tool, seen
from tests.acp.test_acp_turns import bash, prompt, starts, text


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    install_hooks(root, {"PreToolUse": pre_tool("deny", "rm is not allowed here")})
    return root


def script(tmp_path: Path) -> Path:
    turn = [{"responses": [[bash("rm -rf build")], [text("done")]]}]
    return write_script(tmp_path / "s.json", turn * 2)


async def test_accepting_the_trust_question_runs_the_hooks_and_records_the_trust(
    tmp_path: Path, project: Path
) -> None:
    client = RecordingClient()
    client.answers = ["allow_always"]
    async with run_agent_process(tmp_path, script(tmp_path), client=client, trust=False) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        [(question, options)] = client.permissions
        assert question.tool_call_id.startswith("dsh-trust-")
        assert str(project) in (question.title or "")
        raw = question.raw_input
        assert isinstance(raw, dict)
        assert raw["project"] == str(project)
        untrusted = "\n".join(raw["untrusted"])
        assert "claude hooks: not trusted yet: PreToolUse[0][0] in .claude/settings.json" in (
            untrusted
        )
        assert [o.kind for o in options] == ["allow_always", "reject_once"]
        assert await prompt(agent, session, "clean") == "end_turn"
        [start] = starts(agent, session)
        assert client.statuses(session, start.tool_call_id)[-1] == "failed"  # the hook denied
        assert len(seen(project / ".claude" / "hooks", "PreToolUse")) == 1
        # Recorded: the next session in the project is not asked.
        again = await agent.new_session(project)
        assert len(client.permissions) == 1
        assert await prompt(agent, again, "clean") == "end_turn"
        assert len(seen(project / ".claude" / "hooks", "PreToolUse")) == 2


async def test_declining_leaves_the_hooks_out_with_a_notice(tmp_path: Path, project: Path) -> None:
    client = RecordingClient()
    client.answers = ["reject_once"]
    async with run_agent_process(tmp_path, script(tmp_path), client=client, trust=False) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        assert len(client.permissions) == 1
        assert await prompt(agent, session, "clean") == "end_turn"
        [start] = starts(agent, session)
        assert client.statuses(session, start.tool_call_id)[-1] == "completed"
        assert seen(project / ".claude" / "hooks", "PreToolUse") == []
        notices = client.text(session, notices=True)
        assert "PreToolUse[0][0] in .claude/settings.json (not trusted yet)" in notices
        assert f"dsh hooks trust --project {project}" in notices


async def test_a_trusted_project_or_one_without_hooks_is_not_asked(
    tmp_path: Path, project: Path
) -> None:
    client = RecordingClient()
    plain = tmp_path / "plain"
    plain.mkdir()
    async with run_agent_process(
        tmp_path, script(tmp_path), "--trust-project", client=client, trust=False
    ) as agent:
        await agent.initialize()
        await agent.new_session(project)
        await agent.new_session(plain)
        assert client.permissions == []
