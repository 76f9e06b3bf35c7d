"""Permission rules and modes through the real loop, real tools and real hook processes.

Each test writes a project's settings (``permissions`` and recording hooks), mounts the
Claude Code profile as ``dsh run`` does (the policy after the bridge, an approval service
nobody answers) and plays a scripted model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.approval import APPROVAL, ApprovalBroker, ScriptedChannel
from dsh.context import Next
from dsh.hooks.claude import (
    AutoClassifier,
    AutoDenial,
    Catalog,
    ClaudeCodeProfile,
    PermissionMode,
    load_catalog,
)
from dsh.session import ToolResultEvent
from dsh.tools import PRE_EXECUTE, PreToolDecision, PreToolDeny, ToolCall
from tests.agent.support import bash, make_harness, of_type, replies, text, tool
from tests.hooks_claude.bridge_support import Rig, hook_command, mount_hooks

EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse")


def allow_answer(**more: Any) -> dict[str, Any]:
    decision = {"behavior": "allow", **more}
    return {
        "stdout": {
            "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}
        }
    }


def rig(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    calls: list[dict[str, Any]],
    *,
    permissions: dict[str, Any] | None = None,
    user_permissions: dict[str, Any] | None = None,
    managed: dict[str, Any] | None = None,
    answers: dict[str, Any] | None = None,
    mode: PermissionMode | None = "default",
    add_dirs: tuple[Path, ...] = (),
    hooks: dict[str, Any] | None = None,
    classifier: AutoClassifier | None = None,
) -> Rig:
    """One model turn per call in ``calls``, then ``done``."""
    harness = make_harness(tmp_path, replies(*([c] for c in calls), [text("done")]))
    if hooks is None:
        hooks = {e: [{"hooks": [{"type": "command", "command": hook_command(e)}]}] for e in EVENTS}
    if user_permissions is not None:
        user = tmp_path / "home" / ".claude" / "settings.json"
        user.parent.mkdir(parents=True)
        user.write_text(json.dumps({"permissions": user_permissions}))
    return mount_hooks(
        tmp_path,
        monkeypatch,
        harness,
        hooks,
        answers,
        permission_mode=mode,
        profile={"add_dirs": add_dirs, "home": tmp_path / "home", "classifier": classifier},
        settings={"permissions": permissions} if permissions is not None else None,
        managed=managed,
    )


def if_group(matcher: str, name: str, rule: str) -> list[dict[str, Any]]:
    """One matcher group whose recording hook ``name`` has ``"if": rule``."""
    hook = {"type": "command", "command": hook_command(name), "if": rule}
    return [{"matcher": matcher, "hooks": [hook]}]


async def results(r: Rig) -> list[tuple[str, bool]]:
    agent, _ = await r.run("go")
    out = []
    for e in of_type(agent.events, ToolResultEvent):
        content = e.content if isinstance(e.content, str) else "".join(b.text for b in e.content)
        out.append((content.strip(), e.is_error))
    return out


NO_OUTPUT = "(Bash completed with no output)"
NEEDS_APPROVAL = "needs approval. The path is inside the working directories"


async def test_read_only_commands_run_and_writes_ask_in_default_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = [bash("echo hi && ls | wc -l"), bash("echo hi > out.txt"), bash("git status")]
    r = rig(tmp_path, monkeypatch, calls)
    got = await results(r)
    assert got[0] == ("hi\n0", False)
    (written, denied) = got[1]
    assert denied
    assert f"echo in '{r.harness.project / 'out.txt'}' {NEEDS_APPROVAL}" in written
    assert not (r.harness.project / "out.txt").exists()
    (suggestions,) = [p["permission_suggestions"] for p in r.payloads("PermissionRequest")]
    assert suggestions[1] == {"type": "setMode", "mode": "acceptEdits", "destination": "session"}


async def test_a_deny_rule_wins_over_an_allow_rule_of_any_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("touch a.txt")],
        permissions={"deny": ["Bash(touch:*)"]},
        user_permissions={"allow": ["Bash(touch:*)"]},
        mode="bypassPermissions",
    )
    assert await results(r) == [
        ("Permission to use Bash with command touch a.txt has been denied.", True)
    ]
    assert r.order() == ["PreToolUse"]  # no PermissionRequest, no PostToolUse


async def test_an_allow_rule_runs_what_the_mode_would_ask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("touch a.txt && touch b.txt")],
        user_permissions={"allow": ["Bash(touch:*)"]},
    )
    assert await results(r) == [(NO_OUTPUT, False)]
    assert r.order() == ["PreToolUse", "PostToolUse"]


async def test_an_ask_rule_fires_permission_request_even_for_a_read_only_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("echo CASE-RAN")],
        permissions={"ask": ["Bash(echo:*)"], "allow": ["Bash(echo:*)"]},
        answers={"PermissionRequest": allow_answer()},
    )
    assert await results(r) == [("CASE-RAN", False)]
    assert r.order() == ["PreToolUse", "PermissionRequest", "PostToolUse"]


async def test_managed_rules_only_ignores_the_project_s_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("touch a.txt")],
        permissions={"allow": ["Bash(touch:*)"]},
        managed={"permissions": {"allowManagedPermissionRulesOnly": True}},
    )
    ((content, is_error),) = await results(r)
    assert is_error
    assert NEEDS_APPROVAL in content


async def test_accept_edits_writes_inside_the_working_directories_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    calls = [
        tool("Write", file_path="in.txt", content="x"),
        tool("Write", file_path=str(extra / "e.txt"), content="x"),
        tool("Write", file_path=str(outside / "o.txt"), content="x"),
    ]
    r = rig(
        tmp_path,
        monkeypatch,
        calls,
        mode="acceptEdits",
        permissions={"additionalDirectories": [str(extra)]},
    )
    got = await results(r)
    assert [is_error for _, is_error in got] == [False, False, True]
    assert got[2][0] == (
        f"Claude requested permissions to write to {outside / 'o.txt'}, but you haven't"
        " granted it yet."
    )
    assert (extra / "e.txt").exists()
    assert not (outside / "o.txt").exists()


async def test_add_dir_is_a_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    r = rig(
        tmp_path,
        monkeypatch,
        [bash(f"touch {extra}/a.txt")],
        mode="acceptEdits",
        add_dirs=(extra,),
    )
    assert await results(r) == [(NO_OUTPUT, False)]


async def test_plan_mode_only_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [bash("cat .claude/settings.json | head -c 1"), bash("touch a.txt")]
    r = rig(tmp_path, monkeypatch, calls, mode="plan")
    (read, touched) = await results(r)
    assert read == ("{", False)
    assert touched[1]
    assert "running in plan mode" in touched[0]
    assert "PermissionRequest" not in r.order()


async def test_a_pre_tool_use_allow_skips_the_mode_s_ask_but_not_a_deny_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow = {
        "stdout": {
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
        }
    }
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("touch a.txt"), bash("rm a.txt")],
        permissions={"deny": ["Bash(rm:*)"]},
        answers={"PreToolUse": allow},
    )
    (touched, removed) = await results(r)
    assert touched == (NO_OUTPUT, False)
    assert removed == ("Permission to use Bash with command rm a.txt has been denied.", True)
    assert (r.harness.project / "a.txt").exists()


async def test_permission_request_updated_permissions_last_for_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    update = [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "touch:*"}],
            "behavior": "allow",
            "destination": "session",
        }
    ]
    answer = {**allow_answer(updatedPermissions=update), "times": 1}
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("touch a.txt"), bash("touch b.txt")],
        answers={"PermissionRequest": answer},
    )
    assert await results(r) == [(NO_OUTPUT, False), (NO_OUTPUT, False)]
    # The second touch is allowed by the session's new rule: no second PermissionRequest.
    assert r.order().count("PermissionRequest") == 1


async def test_set_mode_changes_what_later_hooks_are_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    update = [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("touch a.txt"), bash("touch b.txt")],
        answers={"PermissionRequest": {**allow_answer(updatedPermissions=update), "times": 1}},
    )
    assert await results(r) == [(NO_OUTPUT, False), (NO_OUTPUT, False)]
    modes = [p["permission_mode"] for p in r.payloads("PreToolUse")]
    assert modes == ["default", "acceptEdits"]


async def test_a_native_plugin_sees_the_policy_s_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[PreToolDecision] = []
    harness_calls = [bash("touch a.txt")]
    r = rig(tmp_path, monkeypatch, harness_calls, mode="dontAsk")

    async def observer(call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        decision = await nxt()
        seen.append(decision)
        return decision

    r.harness.ctx.on(PRE_EXECUTE, observer, prepend=True)
    ((content, is_error),) = await results(r)
    assert is_error
    assert "running in don't ask mode" in content
    (decision,) = seen
    assert isinstance(decision, PreToolDeny)
    assert decision.info["permission"]["decided_by"] == "mode dontAsk"


async def test_if_filters_post_tool_use_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    post = if_group("Bash", "Post", "Bash(git *)")
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("echo one"), bash("git status")],
        hooks={"PostToolUse": post},
        mode="bypassPermissions",
    )
    await results(r)
    assert [p["tool_input"]["command"] for p in r.payloads("Post")] == ["git status"]


def project_catalog(tmp_path: Path, permissions: dict[str, Any]) -> tuple[Path, Catalog]:
    """A project whose settings hold ``permissions`` only, and its catalog."""
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    settings = {"permissions": permissions}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    catalog = load_catalog(
        project,
        home=tmp_path / "home",
        managed_path=tmp_path / "none",
        env={},
        discover_installed_plugins=False,
    )
    return project, catalog


def test_a_malformed_rule_is_a_warning_naming_the_file(tmp_path: Path) -> None:
    _, catalog = project_catalog(
        tmp_path, {"allow": ["Bash(:*)", "Read"], "defaultMode": "sometimes"}
    )
    reasons = [d.describe() for d in catalog.warnings]
    assert any("permissions.allow[0]" in r and "settings.json" in r for r in reasons)
    assert any("defaultMode" in r for r in reasons)
    assert [e.rule.declared for e in catalog.permissions.rules] == ["Read"]


class Refuser:
    """An auto-mode classifier for tests: refuses every call it is asked about."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def classify(self, call: ToolCall, /) -> AutoDenial | None:
        self.asked.append(call.name)
        return AutoDenial("[Test Refusal]", "CASE-AUTO-NO")


@pytest.mark.parametrize("retry", [True, False])
async def test_permission_denied_fires_after_the_classifier_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, retry: bool
) -> None:
    hooks = {
        e: [{"hooks": [{"type": "command", "command": hook_command(e)}]}]
        for e in ("PreToolUse", "PermissionDenied", "PermissionRequest")
    }
    retry_answer = {
        "stdout": {"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": retry}}
    }
    classifier = Refuser()
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("echo fine"), bash("git push --force origin main")],
        hooks=hooks,
        answers={"PermissionDenied": retry_answer},
        mode="auto",
        classifier=classifier,
    )
    got = await results(r)
    assert got == [("fine", False), ("CASE-AUTO-NO", True)]
    assert classifier.asked == ["Bash"]  # read-only commands need no classifier
    assert r.order() == ["PreToolUse", "PreToolUse", "PermissionDenied"]
    (denied,) = r.payloads("PermissionDenied")
    assert denied["reason"] == "[Test Refusal]"
    assert denied["permission_mode"] == "auto"
    assert denied["tool_input"]["command"] == "git push --force origin main"
    assert isinstance(denied["tool_use_id"], str)
    last = r.requests()[-1]["messages"]
    reminders = [m for m in last if m["role"] == "steering" and "not final" in m["text"]]
    assert len(reminders) == (1 if retry else 0)


async def test_auto_mode_without_a_classifier_denies_as_2_1_332_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Corpus `perm-denied-auto`: no safety check runs, so every call the mode would ask
    # about is denied with 2.1.332's text and PermissionDenied's `Classifier unavailable`.
    hooks = {
        e: [{"hooks": [{"type": "command", "command": hook_command(e)}]}]
        for e in ("PreToolUse", "PermissionDenied", "PermissionRequest")
    }
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("echo fine"), bash("git push --force origin main"), bash("touch x")],
        hooks=hooks,
        mode="auto",
    )
    got = await results(r)
    unavailable = (
        "Auto mode is unavailable: its safety check does not run for this session, so Bash was"
        " not run. Other actions that need the check will be denied too, and retrying won't"
        " help. Finish what you can without them, then tell the user what is blocked and that"
        " they can switch to another permission mode."
    )
    assert got == [("fine", False), (unavailable, True), (unavailable, True)]
    assert r.order() == ["PreToolUse"] * 2 + ["PermissionDenied", "PreToolUse", "PermissionDenied"]
    assert {p["reason"] for p in r.payloads("PermissionDenied")} == {"Classifier unavailable"}


def test_a_default_mode_of_auto_loads_in_auto_mode(tmp_path: Path) -> None:
    project, catalog = project_catalog(tmp_path, {"defaultMode": "auto"})
    loaded = ClaudeCodeProfile(catalog=catalog, instructions=False).load(project)
    assert loaded.permissions is not None
    assert loaded.permissions.state.mode == "auto"
    assert not any("auto" in d for d in loaded.diagnostics)


async def test_an_approval_channel_answers_the_policy_s_ask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The terminal and ACP channels sit behind the same broker: the policy's ask reaches
    # them with Claude Code's text as the reason, after PermissionRequest hooks abstained.
    channel = ScriptedChannel(["allowed-always"])
    r = rig(tmp_path, monkeypatch, [bash("touch a.txt"), bash("touch a.txt")])
    r.harness.ctx.provide(APPROVAL, ApprovalBroker(channel))
    assert await results(r) == [(NO_OUTPUT, False), (NO_OUTPUT, False)]
    (asked,) = channel.requests  # allowed always: the second, identical call is not asked
    assert asked.tool_name == "Bash"
    assert asked.reason.startswith(f"touch in '{r.harness.project / 'a.txt'}' needs approval.")
    assert r.order().count("PermissionRequest") == 1
