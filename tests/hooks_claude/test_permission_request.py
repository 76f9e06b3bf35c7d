"""PermissionRequest on ``approval/request``: real hook processes through the real loop.

These tests drive it with a PreToolUse ``ask`` in ``default`` permission mode in an
attended session (headless, 2.1.332 refuses a hook's ask without PermissionRequest:
``perm-ask-default``; the mode's own asks are the ``perm-*-touch`` cases and
``test_permissions_flow``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.approval import ApprovalDecision, ApprovalRequest
from dsh.context import Next
from dsh.hook_protocol import HookResultEvent
from dsh.hooks.claude import (
    HOOK_EVENT_HOST_SUPPORT,
    PermissionMode,
    load_catalog,
)
from dsh.session import AbortCause, NoticeEvent, ToolResultEvent, TurnEndReason
from dsh.tools import APPROVAL_REQUEST, ToolCall
from tests.agent.support import bash, make_harness, of_type, replies, text
from tests.hooks_claude.bridge_support import Rig, hook_command, make_rig, mount_hooks

ASK = {
    "stdout": {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "CASE-ASK",
        }
    }
}


def decision(behavior: str, **more: Any) -> dict[str, Any]:
    return {
        "stdout": {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": behavior, **more},
            }
        }
    }


def rig(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answers: dict[str, Any],
    *,
    script: dict[str, Any] | None = None,
    matcher: str = "Bash",
    mode: PermissionMode = "default",
) -> Rig:
    return make_rig(
        tmp_path,
        monkeypatch,
        script or replies([bash("echo CASE-RAN")], [text("done")]),
        {"PreToolUse": "Bash", "PermissionRequest": matcher, "PostToolUse": None},
        {"PreToolUse": ASK, **answers},
        permission_mode=mode,
        profile={"attended": True},
    )


def tool_results(rig: Rig, request: int) -> list[tuple[str, bool]]:
    return [
        (m["content"], m["is_error"])
        for m in rig.requests()[request]["messages"]
        if m["role"] == "tool"
    ]


async def test_allow_runs_the_asked_call_headless(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PermissionRequest": decision("allow")})
    agent, result = await r.run("run it")
    assert result.end_reason == TurnEndReason("completed")
    assert r.order() == ["PreToolUse", "PermissionRequest", "PostToolUse"]
    ((content, is_error),) = tool_results(r, 1)
    assert (content.strip(), is_error) == ("CASE-RAN", False)
    (payload,) = r.payloads("PermissionRequest")
    assert payload["hook_event_name"] == "PermissionRequest"
    assert payload["tool_name"] == "Bash"
    assert payload["tool_input"] == {"command": "echo CASE-RAN", "description": "run it"}
    assert payload["permission_mode"] == "default"
    assert payload["session_id"] == agent.session_id
    assert "tool_use_id" not in payload
    assert "permission_suggestions" not in payload
    # Common fields in the order the other tool events send them, then the event's own.
    assert list(payload) == [*list(r.payloads("PreToolUse")[0])[:-3], "tool_name", "tool_input"]


async def test_deny_gives_the_model_the_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PermissionRequest": decision("deny", message="CASE-NO")})
    agent, result = await r.run("run it")
    assert result.end_reason == TurnEndReason("completed")
    assert tool_results(r, 1) == [("CASE-NO", True)]
    assert r.order() == ["PreToolUse", "PermissionRequest"]  # a refused call fires no PostToolUse
    (logged,) = of_type(agent.events, ToolResultEvent)
    assert (logged.code, logged.info["by"], logged.info["channel"]) == (
        "DENIED",
        "approval",
        "approval/request",
    )


async def test_deny_without_a_message_says_a_hook_denied_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2.1.332's every PermissionRequest path: `message || "Permission denied by hook"`.
    r = rig(tmp_path, monkeypatch, {"PermissionRequest": decision("deny")})
    await r.run("run it")
    assert tool_results(r, 1) == [("Permission denied by hook", True)]


async def test_deny_with_interrupt_ends_the_turn_after_the_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = replies([bash("echo CASE-RAN"), bash("echo SECOND")], [text("never")])
    r = rig(
        tmp_path,
        monkeypatch,
        {
            "PermissionRequest": {
                **decision("deny", message="CASE-STOP", interrupt=True),
                "times": 1,
            }
        },
        script=script,
    )
    agent, result = await r.run("run both")
    assert result.end_reason == TurnEndReason("aborted")
    assert result.cause == AbortCause(kind="hook", reason="CASE-STOP")
    assert len(r.requests()) == 1  # no model call after the step
    denied, second = of_type(agent.events, ToolResultEvent)
    assert (denied.content, denied.info["interrupt"]) == ("CASE-STOP", True)
    # The step's other call still went through its own approval (no decision: denied headless).
    assert (second.code, second.content) == ("DENIED", "CASE-ASK")


async def test_exit_2_is_not_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = rig(
        tmp_path,
        monkeypatch,
        {"PermissionRequest": {"exit": 2, "stderr": "CASE-EXIT2", **decision("allow")}},
    )
    agent, _ = await r.run("run it")
    # The flow is unchanged: nobody can answer the ask (the approval service, as in
    # `dsh run`, has no channel), so the call is denied with its reason.
    assert tool_results(r, 1) == [("CASE-ASK", True)]
    (logged,) = of_type(agent.events, ToolResultEvent)
    assert logged.info["outcome"] == "no-channel"
    assert not [e for e in agent.events if isinstance(e, NoticeEvent) and "CASE-EXIT2" in e.text]


async def test_no_decision_falls_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = rig(tmp_path, monkeypatch, {})
    await r.run("run it")
    assert r.order() == ["PreToolUse", "PermissionRequest"]
    assert tool_results(r, 1) == [("CASE-ASK", True)]


async def test_the_matcher_is_the_tool_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PermissionRequest": decision("allow")}, matcher="Write|Edit")
    await r.run("run it")
    assert r.order() == ["PreToolUse"]
    assert tool_results(r, 1) == [("CASE-ASK", True)]


async def test_bypass_mode_fires_no_permission_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As recorded (`pretool-ask-json`): an ask in bypass mode is denied without a prompt.
    r = rig(
        tmp_path,
        monkeypatch,
        {"PermissionRequest": decision("allow")},
        mode="bypassPermissions",
    )
    await r.run("run it")
    assert r.order() == ["PreToolUse"]
    assert tool_results(r, 1) == [("CASE-ASK", True)]


async def test_a_rewriting_allow_is_not_taken_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rewrite = decision("allow", updatedInput={"command": "echo OTHER"})
    r = rig(tmp_path, monkeypatch, {"PermissionRequest": rewrite})
    agent, _ = await r.run("run it")
    assert tool_results(r, 1) == [("CASE-ASK", True)]
    (notice,) = [e for e in agent.events if isinstance(e, NoticeEvent)]
    assert "`updatedInput` is not applied" in notice.text
    assert notice.level == "warning"


async def test_an_allow_echoing_the_input_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    echo = decision(
        "allow",
        updatedInput={"command": "echo CASE-RAN", "description": "run it"},
        updatedPermissions=[{"type": "setMode", "mode": "acceptEdits", "destination": "session"}],
    )
    r = rig(tmp_path, monkeypatch, {"PermissionRequest": echo})
    agent, _ = await r.run("run it")
    ((content, is_error),) = tool_results(r, 1)
    assert (content.strip(), is_error) == ("CASE-RAN", False)
    # `updatedPermissions` is applied to the session: the mode is acceptEdits from now on.
    assert [e.text for e in agent.events if isinstance(e, NoticeEvent)] == []
    assert [p["permission_mode"] for p in r.payloads("PostToolUse")] == ["acceptEdits"]


async def test_system_message_and_continue_false(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = decision("allow")
    answer["stdout"] = {**answer["stdout"], "systemMessage": "CASE-NOTE", "continue": False}
    r = rig(tmp_path, monkeypatch, {"PermissionRequest": answer})
    agent, result = await r.run("run it")
    assert result.end_reason == TurnEndReason("aborted")
    assert "CASE-NOTE" in [e.text for e in agent.events if isinstance(e, NoticeEvent)]
    (logged,) = of_type(agent.events, ToolResultEvent)
    assert not logged.is_error  # the call ran; the turn halted after the step


def several_hooks_rig(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers: dict[str, Any]
) -> Rig:
    """Two PermissionRequest hooks, labelled PermA and PermB, in that declaration order."""
    return custom_rig(
        tmp_path,
        monkeypatch,
        [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": hook_command("PermA")}]},
            {"hooks": [{"type": "command", "command": hook_command("PermB")}]},
        ],
        answers,
    )


def custom_rig(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    groups: list[dict[str, Any]],
    answers: dict[str, Any],
) -> Rig:
    """A PreToolUse hook that asks, and ``groups`` as the PermissionRequest declarations."""
    harness = make_harness(tmp_path, replies([bash("echo CASE-RAN")], [text("done")]))
    hooks = {
        "PreToolUse": [{"hooks": [{"type": "command", "command": hook_command("PreToolUse")}]}],
        "PermissionRequest": groups,
    }
    return mount_hooks(
        tmp_path,
        monkeypatch,
        harness,
        hooks,
        {"PreToolUse": ASK, **answers},
        permission_mode="default",
        profile={"attended": True},
    )


async def test_several_hooks_deny_wins_over_allow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = several_hooks_rig(
        tmp_path,
        monkeypatch,
        {"PermA": decision("allow"), "PermB": decision("deny", message="CASE-B-NO")},
    )
    await r.run("run it")
    assert sorted(r.order()) == ["PermA", "PermB", "PreToolUse"]
    assert tool_results(r, 1) == [("CASE-B-NO", True)]


async def test_of_several_denials_the_first_to_finish_reaches_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2.1.332 takes the first deny its hooks give, in the order they finish: the first
    declared answering last, the model reads the second's message alone
    (``permission-two-denies`` in tests/fixtures/claude_fail_wordings.json)."""
    slow = decision("deny", message="CASE-A-NO")
    slow.update(sleep=1, wait_for={"event": "PermB", "nth": 1})
    r = several_hooks_rig(
        tmp_path, monkeypatch, {"PermA": slow, "PermB": decision("deny", message="CASE-B-NO")}
    )
    await r.run("run it")
    assert tool_results(r, 1) == [("CASE-B-NO", True)]


async def test_a_failing_on_failure_block_hook_denies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler = {"type": "command", "command": hook_command("PermA"), "onFailure": "block"}
    r = custom_rig(
        tmp_path,
        monkeypatch,
        [{"hooks": [handler]}],
        {"PermA": {"exit": 1, "stderr": "CASE-CRASH"}},
    )
    await r.run("run it")
    ((content, is_error),) = tool_results(r, 1)
    assert is_error
    # The bare reason: 2.1.332 makes it the denial's message (`permissionRequestResult`), with
    # no `PermissionRequest:Bash hook error: ` before it.
    assert (
        content
        == f'[{hook_command("PermA")}]: failed; blocking because onFailure is "block"\nCASE-CRASH'
    )


async def test_a_native_denial_after_the_bridge_wins_over_a_hook_allow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PermissionRequest": decision("allow")})

    async def native(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        return ApprovalDecision.deny("CASE-NATIVE-NO")

    r.harness.ctx.on(APPROVAL_REQUEST, native)
    await r.run("run it")
    assert tool_results(r, 1) == [("CASE-NATIVE-NO", True)]


async def test_a_malformed_decision_is_a_non_blocking_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PermissionRequest": decision("maybe")})
    agent, _ = await r.run("run it")
    assert tool_results(r, 1) == [("CASE-ASK", True)]
    (logged,) = [
        e
        for e in agent.events
        if isinstance(e, HookResultEvent) and e.hook_event == "PermissionRequest"
    ]
    assert logged.no_decision == "undecodable"
    assert "hookSpecificOutput.decision.behavior" in (logged.reason or "")


def test_the_catalog_admits_permission_request(tmp_path: Path) -> None:
    assert HOOK_EVENT_HOST_SUPPORT["PermissionRequest"].seam == APPROVAL_REQUEST.name
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    hooks = {
        "PermissionRequest": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}
        ]
    }
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    catalog = load_catalog(
        project,
        home=tmp_path / "home",
        managed_path=tmp_path / "none",
        env={},
        discover_installed_plugins=False,
    )
    assert catalog.ok
    assert catalog.diagnostics == ()
    assert [h.declared_command for h in catalog.for_event("PermissionRequest")] == ["true"]
    env = {**os.environ, "HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    (tmp_path / "home").mkdir()
    checked = subprocess.run(
        [sys.executable, "-m", "dsh", "hooks", "check", "--project", str(project)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "0 error(s), 0 warning(s)" in checked.stdout
