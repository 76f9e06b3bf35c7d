"""SessionStart ``resume``: the four keys 2.1.332 adds, computed from the resumed session's log."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from dsh.hooks.claude.transcript._resume import resume_fields
from dsh.session import AssistantMessageEvent, UserMessageEvent, project
from tests.agent.support import replies, text
from tests.hooks_claude.bridge_support import make_rig


async def test_a_resumed_session_start_carries_the_resume_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(tmp_path, monkeypatch, replies([text("first answer")]), ["SessionStart"])
    agent, _ = await rig.run("hello")
    agent.session.close()
    resumed = rig.harness.agent(session=rig.harness.store.open(agent.session_id))
    resumed.send("again")
    await resumed.run_turn()
    await resumed.close("other")
    startup, resume = rig.payloads("SessionStart")
    assert startup["source"] == "startup"
    assert "context_tokens" not in startup
    assert resume["source"] == "resume"
    assert isinstance(resume["seconds_since_last_response"], int)
    assert 0 <= resume["seconds_since_last_response"] < 60
    assert isinstance(resume["context_tokens"], int)
    assert resume["context_tokens"] > 0
    assert resume["prompt_cache_likely_expired"] is False
    assert resume["estimated_cache_write_usd"] == pytest.approx(resume["context_tokens"] * 5e-6)


def test_the_figures_come_from_the_last_response_and_the_projection() -> None:
    prompt = UserMessageEvent(content="x" * 40)
    answer = AssistantMessageEvent(text="y" * 40, time=1000.0)
    fields = resume_fields([prompt, answer], system="s" * 20, now=1000.0 + 301.5)
    assert fields == {
        "seconds_since_last_response": 301,
        "context_tokens": math.ceil(100 / 4),
        "prompt_cache_likely_expired": True,  # past the 5-minute cache
        "estimated_cache_write_usd": 25 * 5e-6,
    }
    fresh = resume_fields([prompt, answer], system=None, now=1000.0 + 299)
    assert fresh["prompt_cache_likely_expired"] is False
    assert fresh["context_tokens"] == 20


def test_a_session_without_a_response_has_no_figures() -> None:
    assert resume_fields([UserMessageEvent(content="hi")], system=None, now=0.0) == {}


def test_the_agents_view_gives_the_same_figures_as_projecting_the_log() -> None:
    events = [
        UserMessageEvent(content="x" * 40),
        AssistantMessageEvent(text="y" * 40, time=1000.0),
        UserMessageEvent(content="z" * 12),
    ]
    given = resume_fields(events, system="s", now=1100.0, messages=project(events))
    assert given == resume_fields(events, system="s", now=1100.0)
    assert resume_fields(events, system="s", now=1100.0, messages=())["context_tokens"] == 1
