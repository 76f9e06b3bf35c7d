"""What a session's tools leave running ends with the session (``Agent.close``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from dsh.agent import SESSION_END, Agent
from dsh.session import ToolResultEvent
from dsh.tools.builtin._bash import BackgroundShell, background_shell
from tests.agent.support import make_harness, of_type, replies, text, tool
from tests.hook_protocol.support import wait_gone


async def test_closing_the_agent_kills_a_background_shell_after_session_end(
    tmp_path: Path,
) -> None:
    script = replies(
        [tool("Bash", command="sleep 300 & sleep 300", run_in_background=True)],
        [text("started it")],
    )
    h = make_harness(tmp_path, script)
    shells: list[BackgroundShell] = []
    alive_at_session_end: list[bool] = []

    async def at_end(agent: Agent, reason: str) -> None:
        alive_at_session_end.extend(s.returncode is None for s in shells)

    h.ctx.on(SESSION_END, at_end)
    agent = h.agent()
    agent.send("start a server")
    await agent.run_turn()
    (result,) = of_type(agent.events, ToolResultEvent)
    shell = background_shell(result.output["backgroundTaskId"])
    assert shell is not None
    assert shell.returncode is None
    shells.append(shell)

    await agent.close("other")
    # Session-end listeners still saw it running; then the whole group was killed.
    assert alive_at_session_end == [True]
    assert await asyncio.wait_for(shell.wait(), 10) == -9
    assert await wait_gone(shell.pid) == []
