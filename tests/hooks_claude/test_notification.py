"""Notification: ``permission_prompt`` when a front end's permission question has waited
2.1.332's 6 s (``notify_later``), none headless (as 2.1.332 in ``-p``: ``notify-permission``
in tests/fixtures/claude_events.json), and ``idle_prompt`` from a front end
(``agent/notification``); the matcher is the type."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import (
    NOTIFICATION,
    PERMISSION_NOTIFY_SECONDS,
    dialog_notify_delay,
    notify_later,
    notify_when_idle,
    permission_notify_delay,
)
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


async def test_a_front_ends_permission_notification_reaches_the_hooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The front end that puts a question says it waits (``notify_later``: after 2.1.332's
    6 s, here at once); the bridge runs the hooks with 2.1.332's payload."""
    rig = _rig(tmp_path, monkeypatch, attended=True)
    agent = rig.harness.agent()
    await agent.start()
    fired: list[Callable[[], None]] = []

    def later(delay: float, callback: Callable[[], None]) -> Callable[[], None]:
        assert delay == PERMISSION_NOTIFY_SECONDS == 6.0
        fired.append(callback)
        return lambda: None

    message = "Claude needs your permission to use Bash"
    notify_later(agent, message, "permission_prompt", 6.0, later=later)
    assert rig.payloads("Notification") == []  # not before the wait is over
    fired[0]()
    while not rig.payloads("Notification"):
        await asyncio.sleep(0.01)
    await agent.close("other")
    [payload] = rig.payloads("Notification")
    assert payload["message"] == "Claude needs your permission to use Bash"
    assert payload["notification_type"] == "permission_prompt"
    assert list(payload)[-3:] == ["hook_event_name", "message", "notification_type"]
    assert "permission_mode" not in payload
    assert payload_problems(payload, HOOK_INPUTS) == []


async def test_a_question_answered_within_the_wait_notifies_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig(tmp_path, monkeypatch, attended=True)
    agent = rig.harness.agent()
    await agent.start()
    handle: list[asyncio.Handle] = []

    def later(delay: float, callback: Callable[[], None]) -> Callable[[], None]:
        handle.append(asyncio.get_running_loop().call_soon(callback))
        return handle[0].cancel

    cancel = notify_later(
        agent, "Claude needs your permission", "permission_prompt", 6.0, later=later
    )
    cancel()  # answered before the timer ran: 2.1.332's clearTimeout
    for _ in range(5):
        await asyncio.sleep(0)
    assert handle[0].cancelled()
    assert notify_later(agent, "x", "permission_prompt", None, later=later)() is None
    assert len(handle) == 1  # turned off (None): no timer at all
    await agent.close("other")
    assert rig.payloads("Notification") == []


def test_the_wait_is_2_1_332s_and_can_be_changed_or_turned_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DSH_PERMISSION_NOTIFY_SECONDS", raising=False)
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_PERMISSION_PROMPT_NOTIFY_HOOKS", raising=False)
    assert permission_notify_delay() == 6.0
    monkeypatch.setenv("DSH_PERMISSION_NOTIFY_SECONDS", "0.5")
    assert permission_notify_delay() == 0.5
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_PERMISSION_PROMPT_NOTIFY_HOOKS", "1")
    assert permission_notify_delay() is None


async def test_at_the_terminal_the_wait_runs_from_the_last_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2.1.332's terminal checks every 6 s from when the question is shown and notifies at
    the first check where nothing was typed for 6 s (``Date.now() - Math.max(
    lastInteractionTime, shownAt) >= 6000``): a key at 4 s puts it off to the check at 12 s;
    one at 13 s changes nothing once it has fired; the timer the answer stops is the latest."""
    rig = _rig(tmp_path, monkeypatch, attended=True)
    agent = rig.harness.agent()
    await agent.start()
    now, last_key = [100.0], [-1.0]
    timers: list[tuple[float, Callable[[], None], list[bool]]] = []

    def later(delay: float, callback: Callable[[], None]) -> Callable[[], None]:
        stopped = [False]
        timers.append((now[0] + delay, callback, stopped))
        return lambda: stopped.__setitem__(0, True)

    def run_until(t: float) -> None:
        while (due := [x for x in timers if x[0] <= t and not x[2][0]]) and now[0] <= t:
            when, callback, _ = due[0]
            timers.remove(due[0])
            now[0] = when
            callback()
        now[0] = t

    stop = notify_when_idle(
        agent, "Claude needs your permission", "permission_prompt", 6.0,
        lambda: last_key[0], later=later, clock=lambda: now[0],
    )  # fmt: skip
    now[0], last_key[0] = 104.0, 104.0  # a key, 4 s after the question
    run_until(106.0)  # the first check: idle 2 s, not yet
    for _ in range(5):
        await asyncio.sleep(0)
    assert rig.payloads("Notification") == []
    assert [t[0] for t in timers] == [112.0]  # the next check, 6 s on
    run_until(112.0)  # idle 8 s: notifies
    while not rig.payloads("Notification"):
        await asyncio.sleep(0.01)
    stop()  # answered afterwards: nothing more
    assert timers == []
    # Another question answered while still typing: its rescheduled check is stopped.
    last_key[0] = 113.0
    stop = notify_when_idle(
        agent, "x", "permission_prompt", 6.0, lambda: last_key[0], later=later,
        clock=lambda: now[0],
    )  # fmt: skip
    last_key[0] = 117.0
    run_until(118.0)
    stop()
    assert [t[2][0] for t in timers] == [True]
    assert notify_when_idle(agent, "x", "permission_prompt", None, lambda: 0.0)() is None
    await agent.close("other")
    [payload] = rig.payloads("Notification")
    assert payload["message"] == "Claude needs your permission"


def test_an_elicitation_dialogs_wait_is_the_same_and_not_turned_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DSH_PERMISSION_NOTIFY_SECONDS", raising=False)
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_PERMISSION_PROMPT_NOTIFY_HOOKS", "1")
    assert dialog_notify_delay() == PERMISSION_NOTIFY_SECONDS
    monkeypatch.setenv("DSH_PERMISSION_NOTIFY_SECONDS", "0.5")
    assert dialog_notify_delay() == 0.5


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
