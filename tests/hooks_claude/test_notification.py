"""Notification: ``permission_prompt`` when a permission question is put to a person, none
headless (as 2.1.332 in ``-p``: ``notify-permission`` in tests/fixtures/claude_events.json),
and ``idle_prompt`` from a front end (``agent/notification``); the matcher is the type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import NOTIFICATION
from dsh.hooks.claude.payloads import HOOK_INPUTS
from tests.agent.support import bash, text
from tests.hook_payloads import payload_problems
from tests.hooks_claude.bridge_support import Rig, make_rig

FIXTURE = Path(__file__).parents[1] / "fixtures" / "claude_events.json"


def _rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, attended: bool) -> Rig:
    script = {"rules": [{"responses": [[bash("echo hi > made.txt")], [text("done")]]}]}
    events: dict[str, str | None] = {"PreToolUse": None, "PermissionRequest": None}
    events["Notification"] = "permission_prompt|idle_prompt"
    return make_rig(
        tmp_path,
        monkeypatch,
        script,
        events,
        permission_mode="default",
        profile={"attended": attended},
    )


async def test_a_permission_question_put_to_a_person_notifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig(tmp_path, monkeypatch, attended=True)
    await rig.run("go")
    assert rig.order() == ["PreToolUse", "PermissionRequest", "Notification"]
    [payload] = rig.payloads("Notification")
    assert payload["message"] == "Claude needs your permission to use Bash"
    assert payload["notification_type"] == "permission_prompt"
    assert list(payload)[-3:] == ["hook_event_name", "message", "notification_type"]
    assert "permission_mode" not in payload
    assert payload_problems(payload, HOOK_INPUTS) == []


async def test_headless_nothing_notifies_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases: list[dict[str, Any]] = json.loads(FIXTURE.read_text())["cases"]
    recorded = next(c for c in cases if c["case"] == "notify-permission")
    assert "Notification" not in [h["event"] for h in recorded["hooks"]]
    rig = _rig(tmp_path, monkeypatch, attended=False)
    await rig.run("go")
    assert "Notification" not in rig.order()
    assert "PermissionRequest" in rig.order()


async def test_a_front_ends_idle_notification_reaches_the_hooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig(tmp_path, monkeypatch, attended=True)
    agent = rig.harness.agent()
    await agent.start()
    await rig.harness.ctx.emit(
        NOTIFICATION, agent, "Claude is waiting for your input", "idle_prompt"
    )
    await rig.harness.ctx.emit(NOTIFICATION, agent, "no hook matches this", "auth_success")
    await agent.close("other")
    [payload] = rig.payloads("Notification")
    assert payload["notification_type"] == "idle_prompt"
    assert payload["message"] == "Claude is waiting for your input"
