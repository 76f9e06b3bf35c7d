"""Compaction: pre-compact (vetoable), the summary call, post-compact, session-start compact."""

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
from dsh.messages import SummaryMessage
from dsh.session import CompactionEnd, CompactionStart, TurnEndReason, project
from tests.agent.support import Harness, make_harness, of_type, text, types


def _script() -> dict[str, Any]:
    return {
        "rules": [
            {"no_tools": True, "responses": [[text("SUMMARY: the user said hello twice")]]},
        ],
        "responses": [[text("one")], [text("two")], [text("three")]],
    }


async def test_manual_compaction_replaces_the_history_with_the_summary(tmp_path: Path) -> None:
    h = make_harness(tmp_path, _script())
    trail: list[str] = []

    async def pre(
        agent: Agent, request: CompactRequest, next: Next[PreCompactDecision]
    ) -> PreCompactDecision:
        trail.append(f"pre-compact:{request.trigger}:{request.instructions}")
        return await next()

    async def post(agent: Agent, summary: str) -> None:
        trail.append(f"post-compact:{summary}")

    async def start(agent: Agent, source: SessionStartSource) -> None:
        trail.append(f"session-start:{source}")
        if source == "compact":
            agent.inject("RE-SEEDED", "plugin:seed")

    h.ctx.on(PRE_COMPACT, pre)
    h.ctx.on(POST_COMPACT, post)
    h.ctx.on(SESSION_START, start)
    agent = h.agent()
    for prompt in ("hello", "hello again"):
        agent.send(prompt)
        await agent.run_turn()
    summary = await agent.compact("keep it short")
    assert summary == "SUMMARY: the user said hello twice"
    assert trail == [
        "session-start:startup",
        "pre-compact:manual:keep it short",
        "session-start:compact",
        "post-compact:SUMMARY: the user said hello twice",
    ]
    assert types(agent.events)[-3:] == ["compaction/start", "compaction/end", "context/message"]
    start_ev = of_type(agent.events, CompactionStart)[0]
    assert (start_ev.trigger, start_ev.instructions) == ("manual", "keep it short")
    # The summarization call offered no tools and carried the instructions.
    summarize = h.requests()[-1]
    assert summarize["tools"] == []
    assert "keep it short" in summarize["messages"][-1]["content"]
    # Afterwards the model sees the summary instead of the older history.
    projected = project(agent.events)
    assert isinstance(projected[0], SummaryMessage)
    assert projected[0].text == summary
    agent.send("and now?")
    await agent.run_turn()
    roles = [m["role"] for m in h.requests()[-1]["messages"]]
    assert roles == ["summary", "context", "user"]


async def test_a_vetoed_compaction_records_a_notice_and_changes_nothing(tmp_path: Path) -> None:
    h = make_harness(tmp_path, _script())

    async def veto(
        agent: Agent, request: CompactRequest, next: Next[PreCompactDecision]
    ) -> PreCompactDecision:
        return PreCompactDecision.veto("KEEP-EVERYTHING")

    h.ctx.on(PRE_COMPACT, veto)
    agent = h.agent()
    agent.send("hello")
    await agent.run_turn()
    before = len(h.requests())
    assert await agent.compact() is None
    assert of_type(agent.events, CompactionStart) == []
    assert types(agent.events)[-1] == "notice"
    assert "KEEP-EVERYTHING" in getattr(agent.events[-1], "text", "")
    assert len(h.requests()) == before


async def test_the_loop_compacts_when_the_projection_exceeds_the_budget(tmp_path: Path) -> None:
    h = make_harness(tmp_path, _script())
    triggers: list[str] = []

    async def pre(
        agent: Agent, request: CompactRequest, next: Next[PreCompactDecision]
    ) -> PreCompactDecision:
        triggers.append(request.trigger)
        return await next()

    h.ctx.on(PRE_COMPACT, pre)
    agent = h.agent(compact_budget=200)
    agent.send("x" * 250)
    first = await agent.run_turn()
    assert first.end_reason == TurnEndReason("completed")
    assert triggers == []
    agent.send("NEW-PROMPT")
    second = await agent.run_turn()
    assert second.end_reason == TurnEndReason("completed")
    assert triggers == ["auto"]
    turn = [e for e in agent.events if e.turn_id == agent.events[-1].turn_id]
    # Compaction runs in the open turn before its prompts, so the new prompt stays verbatim.
    assert types(turn) == [
        "turn/start",
        "compaction/start",
        "compaction/end",
        "user/message",
        "assistant/message",
        "turn/end",
    ]
    assert of_type(agent.events, CompactionEnd)[0].summary.startswith("SUMMARY")
    model_saw = h.requests()[-1]["messages"]
    assert [m["role"] for m in model_saw] == ["summary", "user"]
    assert model_saw[1]["content"] == "NEW-PROMPT"


async def _compacted(tmp_path: Path, answer: str) -> tuple[Harness, Agent, str | None]:
    """One turn, then a manual compaction whose summarization call is answered ``answer``."""
    script = {
        "rules": [{"no_tools": True, "responses": [[text(answer)]]}],
        "responses": [[text("one")]],
    }
    h = make_harness(tmp_path, script)
    agent = h.agent()
    agent.send("hello")
    await agent.run_turn()
    return h, agent, await agent.compact()


async def test_an_answer_without_summary_tags_is_asked_for_once_more(tmp_path: Path) -> None:
    # Claude Code 2.1.332 retries such an answer once, then keeps it (compact-bad-summary).
    h, _, summary = await _compacted(tmp_path, "Done: printed hi.")
    assert summary == "Done: printed hi."
    summarizing = [r for r in h.requests() if r["tools"] == []]
    assert len(summarizing) == 2
    assert summarizing[0] == summarizing[1]
    assert "<summary></summary>" in summarizing[0]["messages"][-1]["content"]


async def test_an_answer_with_summary_tags_is_kept_as_it_is(tmp_path: Path) -> None:
    h, agent, summary = await _compacted(tmp_path, "<summary>CASE-SUMMARY</summary>")
    assert summary == "<summary>CASE-SUMMARY</summary>"
    assert len([r for r in h.requests() if r["tools"] == []]) == 1
    (end,) = of_type(agent.events, CompactionEnd)
    assert end.summary == "<summary>CASE-SUMMARY</summary>"
