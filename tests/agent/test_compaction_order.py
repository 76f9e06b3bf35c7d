"""Compaction fires its seams in Claude Code's recorded order.

pre-compact, then session-start (compact), then post-compact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dsh.agent import (
    POST_COMPACT,
    PRE_COMPACT,
    SESSION_START,
    Agent,
    CompactRequest,
    PreCompactDecision,
    SessionStartSource,
)
from dsh.context import Next
from dsh.session import CompactionEnd, ContextMessageEvent
from tests.agent.support import make_harness, text, types


def _script() -> dict[str, Any]:
    return {
        "rules": [{"no_tools": True, "responses": [[text("THE-SUMMARY")]]}],
        "responses": [[text("one")], [text("two")]],
    }


async def test_auto_compaction_fires_session_start_before_post_compact(tmp_path: Path) -> None:
    h = make_harness(tmp_path, _script())
    trail: list[str] = []

    async def pre(
        agent: Agent, request: CompactRequest, nxt: Next[PreCompactDecision]
    ) -> PreCompactDecision:
        trail.append(f"pre:{request.trigger}")
        return await nxt()

    async def start(agent: Agent, source: SessionStartSource) -> None:
        trail.append(f"start:{source}")
        # The summary is already logged when the re-seeding session-start runs.
        if source == "compact":
            assert isinstance(agent.events[-1], CompactionEnd)
            agent.inject("SEED", "plugin:seed")

    async def post(agent: Agent, summary: str) -> None:
        trail.append(f"post:{summary}")
        agent.inject("AFTER", "plugin:post")

    h.ctx.on(PRE_COMPACT, pre)
    h.ctx.on(SESSION_START, start)
    h.ctx.on(POST_COMPACT, post)
    agent = h.agent(compact_budget=50)
    agent.send("x" * 80)
    await agent.run_turn()
    agent.send("again")
    await agent.run_turn()
    assert trail == ["start:startup", "pre:auto", "start:compact", "post:THE-SUMMARY"]
    # Both seams' context lands right after the summary, in firing order, before the prompt.
    i = types(agent.events).index("compaction/end")
    after = agent.events[i + 1 : i + 3]
    assert [e.text for e in after if isinstance(e, ContextMessageEvent)] == ["SEED", "AFTER"]
    assert types(agent.events)[i + 3] == "user/message"
