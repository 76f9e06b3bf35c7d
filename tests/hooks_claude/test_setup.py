"""Setup hooks on ``agent/setup``: real hook processes, the real loop.

Setup fires only when asked (``Agent.setup``: ``dsh run --init``, ``--init-only``,
``--maintenance``), before SessionStart, matched on its trigger. Its
``additionalContext`` reaches the model with the session-start context; plain
stdout does not; exit 2 cannot block and is shown as a hook-error notice;
``continue: false`` halts the next turn before its model call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dsh.agent import SETUP, Agent
from dsh.session import ContextMessageEvent, NoticeEvent, TurnEnd
from tests.agent.support import make_harness, of_type, replies, text
from tests.hooks_claude.bridge_support import Rig, hook_command, make_rig


def context_answer(event: str, value: str) -> dict[str, Any]:
    return {"stdout": {"hookSpecificOutput": {"hookEventName": event, "additionalContext": value}}}


def rig(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answers: dict[str, Any],
    setup_matcher: str | None = None,
) -> Rig:
    return make_rig(
        tmp_path,
        monkeypatch,
        replies([text("hello")]),
        {"Setup": setup_matcher, "SessionStart": None, "UserPromptSubmit": None},
        answers,
    )


async def run_with_setup(r: Rig, trigger: Any, prompt: str | None = "hi") -> Agent:
    agent = r.harness.agent()
    await agent.setup(trigger)
    if prompt is None:
        await agent.start()
    else:
        agent.send(prompt)
        await agent.run_turn()
    await agent.close("other")
    return agent


def contexts(agent: Agent) -> list[str]:
    return [e.text for e in of_type(agent.events, ContextMessageEvent)]


async def test_setup_fires_first_with_its_trigger_and_its_context_reaches_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = {
        "Setup": context_answer("Setup", "CASE-SETUP"),
        "SessionStart": context_answer("SessionStart", "CASE-START"),
    }
    r = rig(tmp_path, monkeypatch, answers)
    agent = await run_with_setup(r, "init")

    assert r.order() == ["Setup", "SessionStart", "UserPromptSubmit"]
    (payload,) = r.payloads("Setup")
    assert payload["trigger"] == "init"
    assert payload["hook_event_name"] == "Setup"
    assert sorted(payload) == sorted(
        ["session_id", "transcript_path", "cwd", "hook_event_name", "trigger"]
    )
    assert contexts(agent) == [
        "Setup hook additional context: CASE-SETUP",
        "SessionStart hook additional context: CASE-START",
    ]
    messages = str(r.requests()[0]["messages"])
    assert messages.index("CASE-SETUP") < messages.index("CASE-START")


async def test_the_matcher_selects_the_trigger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {}, setup_matcher="maintenance")
    await run_with_setup(r, "init")
    assert "Setup" not in r.order()

    (tmp_path / "again").mkdir()
    r = rig(tmp_path / "again", monkeypatch, {}, setup_matcher="maintenance")
    await run_with_setup(r, "maintenance")
    assert r.order()[0] == "Setup"
    assert r.payloads("Setup")[0]["trigger"] == "maintenance"


async def test_plain_stdout_is_not_context_and_exit_2_is_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"Setup": {"stdout": "CASE-PLAIN"}})
    agent = await run_with_setup(r, "init")
    assert contexts(agent) == []
    assert "CASE-PLAIN" not in str(r.requests())

    (tmp_path / "again").mkdir()
    r = rig(tmp_path / "again", monkeypatch, {"Setup": {"exit": 2, "stderr": "CASE-NO"}})
    agent = await run_with_setup(r, "init")
    warnings = [n.text for n in of_type(agent.events, NoticeEvent) if n.level == "warning"]
    assert len(warnings) == 1
    assert warnings == [f"Setup hook error: [{hook_command('Setup')}]: CASE-NO"]
    assert r.order() == ["Setup", "SessionStart", "UserPromptSubmit"]  # not blocked
    assert len(r.requests()) == 1


async def test_continue_false_halts_the_first_turn_before_its_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = {"stdout": {"continue": False, "stopReason": "CASE-STOP"}}
    r = rig(tmp_path, monkeypatch, {"Setup": answer})
    agent = await run_with_setup(r, "init")
    assert r.requests() == []
    (end,) = of_type(agent.events, TurnEnd)
    assert end.reason == "aborted"
    assert end.cause is not None
    assert end.cause.reason == "CASE-STOP"


async def test_setup_without_a_prompt_starts_and_ends_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = make_rig(
        tmp_path, monkeypatch, replies([text("hello")]), ["Setup", "SessionStart", "SessionEnd"]
    )
    await run_with_setup(r, "init", prompt=None)
    assert r.order() == ["Setup", "SessionStart", "SessionEnd"]
    assert r.requests() == []
    assert "prompt_id" not in r.payloads("SessionEnd")[0]


async def test_setup_is_refused_where_it_cannot_run(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("hello")]))
    seen: list[str] = []

    @h.ctx.on(SETUP)
    async def record(agent: Agent, trigger: str) -> None:
        seen.append(trigger)

    agent = h.agent()
    with pytest.raises(ValueError, match="trigger must be one of init, maintenance"):
        await agent.setup("startup")  # type: ignore[arg-type]
    await agent.start()
    with pytest.raises(RuntimeError, match="setup runs before the session starts"):
        await agent.setup("init")
    assert seen == []
    await agent.close("other")
