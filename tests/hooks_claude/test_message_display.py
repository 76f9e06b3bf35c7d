"""MessageDisplay through the bridge: real hook processes on ``agent/message-display``."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

from dsh.hooks.claude import claude_hooks_plugin, load_catalog
from dsh.session import AssistantDisplayEvent, AssistantMessageEvent, NoticeEvent, TurnStart
from tests.agent.support import bash, http_error, make_harness, replies, text
from tests.hooks_claude.bridge_support import make_rig

SCRIPT = replies([text("I'll run it."), bash("echo hi")], [text("Done: SECRET-42.")])

SHOWN = {"hookSpecificOutput": {"hookEventName": "MessageDisplay", "displayContent": "SHOWN"}}


async def test_payload_fields_and_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events = ["UserPromptSubmit", "MessageDisplay", "PreToolUse", "Stop"]
    rig = make_rig(tmp_path, monkeypatch, SCRIPT, events)
    agent, _ = await rig.run("Please run echo hi")
    assert rig.order() == [
        "UserPromptSubmit",
        "MessageDisplay",
        "PreToolUse",
        "MessageDisplay",
        "Stop",
    ]
    first, second = rig.payloads("MessageDisplay")
    assert list(first) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "hook_event_name",
        "turn_id",
        "message_id",
        "index",
        "final",
        "delta",
    ]
    messages = [e for e in agent.events if isinstance(e, AssistantMessageEvent)]
    (turn,) = [e for e in agent.events if isinstance(e, TurnStart)]
    assert first["turn_id"] == str(uuid.UUID(hex=turn.turn_id))
    assert [p["message_id"] for p in (first, second)] == [
        str(uuid.UUID(hex=m.id)) for m in messages
    ]
    assert [(p["index"], p["final"], p["delta"]) for p in (first, second)] == [
        (0, True, "I'll run it."),
        (0, True, "Done: SECRET-42."),
    ]
    assert first["prompt_id"] == rig.payloads("PreToolUse")[0]["prompt_id"]


async def test_display_content_replaces_what_the_user_sees_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path, monkeypatch, SCRIPT, ["MessageDisplay"], {"MessageDisplay": {"stdout": SHOWN}}
    )
    agent, result = await rig.run("Please run echo hi")
    shown = [e for e in agent.events if isinstance(e, AssistantDisplayEvent)]
    messages = [e for e in agent.events if isinstance(e, AssistantMessageEvent)]
    assert [(e.message_id, e.text) for e in shown] == [(m.id, "SHOWN") for m in messages]
    # The model, the turn's result and the hooks' transcript keep the original text.
    assert result.final_text == "Done: SECRET-42."
    assert "I'll run it." in str(rig.requests()[-1])
    assert "SHOWN" not in str(rig.requests())
    (transcript,) = rig.transcripts.rglob("*.jsonl")
    assert "SECRET-42" in transcript.read_text()
    assert "SHOWN" not in transcript.read_text()


@pytest.mark.parametrize(
    "answer",
    [
        {"exit": 2, "stderr": "no", "stdout": SHOWN},
        {"exit": 1, "stdout": "not json"},
        {"stdout": "{broken"},
    ],
    ids=["exit-2", "exit-1", "bad-json"],
)
async def test_a_failing_hook_shows_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: dict[str, object]
) -> None:
    rig = make_rig(tmp_path, monkeypatch, SCRIPT, ["MessageDisplay"], {"MessageDisplay": answer})
    agent, result = await rig.run("Please run echo hi")
    assert result.final_text == "Done: SECRET-42."
    assert len(rig.payloads("MessageDisplay")) == 2
    assert not [e for e in agent.events if isinstance(e, AssistantDisplayEvent)]


async def test_system_message_and_continue_are_discarded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = {"stdout": {"continue": False, "systemMessage": "IGNORED-NOTICE"}}
    rig = make_rig(tmp_path, monkeypatch, SCRIPT, ["MessageDisplay"], {"MessageDisplay": answer})
    agent, result = await rig.run("Please run echo hi")
    assert result.end_reason.value == "completed"
    assert result.steps == 2
    assert not [e for e in agent.events if isinstance(e, NoticeEvent)]


async def test_the_last_replacement_in_declaration_order_wins(tmp_path: Path) -> None:
    harness = make_harness(tmp_path, replies([text("hello")]))
    hooks = []
    # Declared first, answers last (slow); declared last, answers first.
    for word, delay in (("DECLARED-FIRST", 0.0), ("DECLARED-LAST", 0.3)):
        out = json.dumps(
            {"hookSpecificOutput": {"hookEventName": "MessageDisplay", "displayContent": word}}
        )
        code = f"import time,sys; sys.stdin.read(); time.sleep({delay}); print({out!r})"
        hooks.append({"type": "command", "command": f"{sys.executable} -c {json.dumps(code)}"})
    settings = harness.project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"MessageDisplay": [{"hooks": hooks}]}}))
    (tmp_path / "home").mkdir()
    catalog = load_catalog(
        harness.project,
        home=tmp_path / "home",
        managed_path=tmp_path / "none.json",
        env={},
        discover_installed_plugins=False,
    )
    assert catalog.ok, catalog.diagnostics
    harness.ctx.plugin(claude_hooks_plugin(catalog, transcript_dir=tmp_path / "t"))
    agent = harness.agent()
    agent.send("hi")
    await agent.run_turn()
    (shown,) = [e for e in agent.events if isinstance(e, AssistantDisplayEvent)]
    assert shown.text == "DECLARED-LAST"


async def test_a_failed_turn_shows_its_api_error_to_message_display_before_stop_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        replies([http_error(400, "CASE-MOCK-400")]),
        ["MessageDisplay", "StopFailure"],
    )
    await rig.run("Please run echo hi")
    assert rig.order() == ["MessageDisplay", "StopFailure"]
    (display,) = rig.payloads("MessageDisplay")
    (failure,) = rig.payloads("StopFailure")
    assert display["delta"] == failure["last_assistant_message"] == "API Error: 400 CASE-MOCK-400"
    assert (display["index"], display["final"]) == (0, True)
