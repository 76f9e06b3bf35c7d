"""PreToolUse ``permissionDecision: "defer"``, against a recording of 2.1.332 (``claude -p``
then ``claude -p --resume``: ``tests/fixtures/claude_defer.json``, made by
``benchmarks/record_claude_defer.py``).

The deferred call does not run and the turn ends ``deferred`` (no PostToolBatch, no Stop);
the log keeps it pending across a restart; settled, it runs with the same ``tool_use_id``
after PreToolUse fires again (which may deny it now), and the session goes on with
``Continue from where you left off.`` (UserPromptSubmit after the call, as recorded). dsh's
own rejection answers it without running it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import Agent
from dsh.session import ToolDeferredEvent, ToolResultEvent, TurnEndReason
from tests.agent.support import bash, text
from tests.hooks_claude.bridge_support import Rig, make_rig

FIXTURE = Path(__file__).parents[1] / "fixtures" / "claude_defer.json"
EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch"]
EVENTS += ["Stop", "SessionEnd"]
DEFER = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}


def _recorded(name: str) -> dict[str, Any]:
    cases = json.loads(FIXTURE.read_text())["cases"]
    case: dict[str, Any] = next(c for c in cases if c["case"] == name)
    return case


def _rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, commands: list[str]) -> Rig:
    calls = [bash(c) for c in commands]
    script = {"rules": [{"responses": [calls, [text("done")]]}]}
    answers = {"PreToolUse": {"stdout": DEFER, "times": 1}}
    return make_rig(tmp_path, monkeypatch, script, EVENTS, answers)


def _order(rig: Rig, start: int) -> list[str]:
    return rig.order()[start:]


def _view(request: dict[str, Any]) -> list[dict[str, Any]]:
    """What 2.1.332's recorded view keeps of a request: tool results, then the user's text."""
    items: list[dict[str, Any]] = []
    for m in request["messages"][1:]:
        if m["role"] == "tool":
            content = m["content"]
            if isinstance(content, list):
                content = "".join(b["text"] for b in content)
            items.append({"tool_result": content, "is_error": m["is_error"]})
        elif m["role"] == "user":
            items.append({"role": "user", "text": m["content"]})
    return items


async def _first_run(rig: Rig) -> Agent:
    agent = rig.harness.agent()
    agent.send("run it")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason.deferred
    await agent.close("other")
    agent.session.close()
    return agent


async def test_a_deferred_call_waits_then_runs_with_its_id_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = _recorded("defer-single")
    rig = _rig(tmp_path, monkeypatch, ["echo deferred-call"])
    first = await _first_run(rig)
    assert rig.order() == [h["event"] for h in recorded["runs"][0]["hooks"]]
    [deferred] = [e for e in first.events if isinstance(e, ToolDeferredEvent)]
    assert not [e for e in first.events if isinstance(e, ToolResultEvent)]
    # After a restart: the log still has it pending.
    agent = rig.harness.agent(session=rig.harness.store.open(first.session_id))
    [pending] = agent.pending_calls
    assert pending.tool_use_id == deferred.tool_use_id
    assert pending.tool_name == "Bash"
    before = len(rig.order())
    result = await agent.settle_deferred(pending.tool_use_id, "approved", by="resume")
    await agent.close("other")
    assert result.end_reason == TurnEndReason.completed
    resumed = recorded["runs"][1]
    assert _order(rig, before) == [h["event"] for h in resumed["hooks"]]
    pre = rig.payloads("PreToolUse")
    assert pre[0]["tool_use_id"] == pre[1]["tool_use_id"] == deferred.tool_use_id
    assert rig.payloads("PostToolUse")[0]["tool_use_id"] == deferred.tool_use_id
    prompts = [p["prompt"] for p in rig.payloads("UserPromptSubmit")]
    assert prompts == ["run it", "Continue from where you left off."]
    assert _view(rig.requests()[-1]) == resumed["model_view"][0]
    assert agent.pending_calls == ()
    [settled] = [e for e in agent.events if isinstance(e, ToolResultEvent)]
    assert settled.approval == {"asked": "deferred", "outcome": "approved", "by": "resume"}


async def test_a_resumed_call_the_hook_now_denies_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = _recorded("defer-then-deny")
    rig = _rig(tmp_path, monkeypatch, ["echo deferred-call"])
    first = await _first_run(rig)
    deny = recorded["answers"][1]
    (tmp_path / "answers.json").write_text(json.dumps({"PreToolUse": {"stdout": deny}}))
    agent = rig.harness.agent(session=rig.harness.store.open(first.session_id))
    before = len(rig.order())
    [pending] = agent.pending_calls
    await agent.settle_deferred(pending.tool_use_id, "approved", by="resume")
    await agent.close("other")
    resumed = recorded["runs"][1]
    assert _order(rig, before) == [h["event"] for h in resumed["hooks"]]
    assert _view(rig.requests()[-1]) == resumed["model_view"][0]


async def test_with_two_calls_the_other_runs_and_the_deferred_one_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = _recorded("defer-two-calls")
    rig = _rig(tmp_path, monkeypatch, ["echo one", "echo two"])
    first = await _first_run(rig)
    assert sorted(rig.order()) == sorted(h["event"] for h in recorded["runs"][0]["hooks"])
    agent = rig.harness.agent(session=rig.harness.store.open(first.session_id))
    before = len(rig.order())
    [pending] = agent.pending_calls
    assert pending.arguments["command"] == "echo one"  # the first call's hook deferred it
    await agent.settle_deferred(pending.tool_use_id, "approved", by="resume")
    await agent.close("other")
    resumed = recorded["runs"][1]
    assert _order(rig, before) == [h["event"] for h in resumed["hooks"]]
    # Both results, in either order (2.1.332's varied between recordings), then the prompt.
    view = _view(rig.requests()[-1])
    want = resumed["model_view"][0]
    assert view[-1] == want[-1]
    assert sorted(json.dumps(v) for v in view[:-1]) == sorted(json.dumps(v) for v in want[:-1])


async def test_a_rejected_deferred_call_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig(tmp_path, monkeypatch, ["echo deferred-call"])
    first = await _first_run(rig)
    agent = rig.harness.agent(session=rig.harness.store.open(first.session_id))
    before = len(rig.order())
    [pending] = agent.pending_calls
    await agent.settle_deferred(pending.tool_use_id, "rejected", by="terminal", reason="not now")
    await agent.close("other")
    # No PreToolUse or PostToolUse: the call never ran.
    assert _order(rig, before) == ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]
    assert _view(rig.requests()[-1]) == [
        {"tool_result": "The deferred call was rejected by terminal: not now", "is_error": True},
        {"role": "user", "text": "Continue from where you left off."},
    ]
    with pytest.raises(KeyError, match="no deferred call"):
        await agent.settle_deferred(pending.tool_use_id, "approved", by="terminal")
