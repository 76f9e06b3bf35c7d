"""PermissionRequest ``updatedPermissions`` written to settings files, DirectoryAdded for the
directories they add, and ``/path`` rules read from the settings file's root.

The real loop, real tools and real hook processes (``record_hook.py``), as
``test_permissions_flow`` mounts them; the settings files are read back as the next run
would read them (``load_catalog``).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks.claude import load_catalog, permission_state
from dsh.hooks.claude.permissions._persist import SettingsTargets
from dsh.hooks.claude.trust._records import hook_trust
from dsh.hooks.claude.trust._review import record_review
from dsh.session import ContextMessageEvent, NoticeEvent
from tests.agent.support import bash, of_type, tool
from tests.hooks_claude.bridge_support import hook_command
from tests.hooks_claude.test_permissions_flow import (
    NO_OUTPUT,
    allow_answer,
    if_group,
    results,
    rig,
)


@pytest.fixture(autouse=True)
def _no_config_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)


def touch_rule(destination: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "touch:*"}],
            "behavior": "allow",
            "destination": destination,
        }
    ]


def once(update: list[dict[str, Any]]) -> dict[str, Any]:
    return {"PermissionRequest": {**allow_answer(updatedPermissions=update), "times": 1}}


def warnings(agent: Any) -> list[str]:
    return [e.text for e in of_type(agent.events, NoticeEvent) if e.level == "warning"]


def reloaded_rules(project: Path, home: Path) -> list[str]:
    catalog = load_catalog(project, home=home, env={}, discover_installed_plugins=False)
    return [e.describe() for e in catalog.permissions.rules]


async def test_a_local_settings_rule_is_written_and_read_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = [bash("touch a.txt"), bash("touch b.txt")]
    r = rig(tmp_path, monkeypatch, calls, answers=once(touch_rule("localSettings")))
    assert await results(r) == [(NO_OUTPUT, False), (NO_OUTPUT, False)]
    assert r.order().count("PermissionRequest") == 1  # the rule holds for the session too
    local = r.harness.project / ".claude" / "settings.local.json"
    assert json.loads(local.read_text()) == {"permissions": {"allow": ["Bash(touch:*)"]}}
    assert stat.S_IMODE(local.stat().st_mode) == 0o600
    assert reloaded_rules(r.harness.project, tmp_path / "home") == [
        f"allow Bash(touch:*) (local: {local})"
    ]


async def test_project_settings_keep_their_keys_order_and_indent_and_stay_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(
        tmp_path, monkeypatch, [bash("touch a.txt")], answers=once(touch_rule("projectSettings"))
    )
    path = r.harness.project / ".claude" / "settings.json"
    original = json.loads(path.read_text())
    original = {"model": "x", **original, "permissions": {"deny": ["Read(.env)"]}, "z": [1, 2]}
    path.write_text(json.dumps(original, indent=4) + "\n")
    os.chmod(path, 0o644)
    trust = tmp_path / "trust"
    catalog = load_catalog(
        r.harness.project, home=tmp_path / "home", env={}, discover_installed_plugins=False
    )
    record_review(catalog, trust)
    assert await results(r) == [(NO_OUTPUT, False)]
    text = path.read_text()
    written = json.loads(text)
    assert list(written) == list(original)  # every key kept, in its order
    assert written["permissions"] == {"deny": ["Read(.env)"], "allow": ["Bash(touch:*)"]}
    assert {k: v for k, v in written.items() if k != "permissions"} == {
        k: v for k, v in original.items() if k != "permissions"
    }
    assert text.startswith('{\n    "model"')  # four spaces, as the file had
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    # Only `permissions` changed: the project's hooks need no new trust.
    again = load_catalog(
        r.harness.project, home=tmp_path / "home", env={}, discover_installed_plugins=False
    )
    hooks, problem = hook_trust(again, trust)
    assert problem is None
    assert hooks
    assert all(h.trusted for h in hooks)


async def test_user_settings_get_the_mode_and_bypass_stays_a_session_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    update = [
        {"type": "setMode", "mode": "acceptEdits", "destination": "userSettings"},
        {"type": "setMode", "mode": "bypassPermissions", "destination": "userSettings"},
    ]
    r = rig(tmp_path, monkeypatch, [bash("touch a.txt")], answers=once(update))
    assert await results(r) == [(NO_OUTPUT, False)]
    user = tmp_path / "home" / ".claude" / "settings.json"
    assert json.loads(user.read_text()) == {"permissions": {"defaultMode": "acceptEdits"}}


async def test_a_malformed_settings_file_is_never_clobbered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = [bash("touch a.txt"), bash("touch b.txt")]
    r = rig(tmp_path, monkeypatch, calls, answers=once(touch_rule("localSettings")))
    local = r.harness.project / ".claude" / "settings.local.json"
    local.write_bytes(b'{"permissions": {"allow": [oops]}}\n')
    agent, _ = await r.run("go")
    assert local.read_bytes() == b'{"permissions": {"allow": [oops]}}\n'
    (warning,) = warnings(agent)
    assert f"not saved to localSettings ({local}: invalid JSON at line 1" in warning
    assert warning.endswith("it applies for this session only")
    assert r.order().count("PermissionRequest") == 1  # still applied for the session


async def test_a_planted_symlink_is_not_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, [bash("touch a.txt")], answers=once(touch_rule("localSettings")))
    victim = tmp_path / "victim.json"
    victim.write_text("{}")
    local = r.harness.project / ".claude" / "settings.local.json"
    local.symlink_to(victim)
    agent, _ = await r.run("go")
    assert victim.read_text() == "{}"
    assert local.is_symlink()
    (warning,) = warnings(agent)
    assert f"{local}: a symbolic link" in warning


async def test_added_directories_are_saved_and_fire_directory_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    update = [
        {"type": "addDirectories", "directories": [str(extra)], "destination": "localSettings"}
    ]
    answers = {
        **once(update),
        "DirectoryAdded": {"stdout": {"systemMessage": "docs live in extra/"}},
    }
    hooks = {
        e: [{"hooks": [{"type": "command", "command": hook_command(e)}]}]
        for e in ("PermissionRequest", "DirectoryAdded")
    }
    calls = [bash(f"touch {extra}/a.txt"), bash(f"touch {extra}/b.txt")]
    r = rig(tmp_path, monkeypatch, calls, answers=answers, hooks=hooks, mode="acceptEdits")
    agent, _ = await r.run("go")
    assert (extra / "a.txt").exists()
    assert (extra / "b.txt").exists()
    (payload,) = r.payloads("DirectoryAdded")
    assert payload["directory"] == str(extra)
    assert payload["source"] == "slash_command"
    assert payload["hook_event_name"] == "DirectoryAdded"
    # The second touch is inside a working directory now: acceptEdits runs it unasked.
    assert r.order() == ["PermissionRequest", "DirectoryAdded"]
    local = r.harness.project / ".claude" / "settings.local.json"
    assert json.loads(local.read_text()) == {"permissions": {"additionalDirectories": [str(extra)]}}
    contexts = [e.text for e in of_type(agent.events, ContextMessageEvent)]
    assert "DirectoryAdded hook: docs live in extra/" in contexts


async def test_a_session_update_writes_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, [bash("touch a.txt")], answers=once(touch_rule("session")))
    assert await results(r) == [(NO_OUTPUT, False)]
    assert sorted(p.name for p in (r.harness.project / ".claude").iterdir()) == ["settings.json"]
    assert not (tmp_path / "home" / ".claude").exists()


async def test_an_if_path_is_relative_to_the_settings_root_not_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pre = if_group("Write", "Pre", "Write(/src/**)")
    project = tmp_path / "project"
    calls = [
        bash("mkdir -p sub/src src && cd sub"),
        tool("Write", file_path=str(project / "src" / "a.txt"), content="a"),
        tool("Write", file_path=str(project / "sub" / "src" / "b.txt"), content="b"),
    ]
    r = rig(tmp_path, monkeypatch, calls, hooks={"PreToolUse": pre}, mode="bypassPermissions")
    await results(r)
    assert [p["tool_input"]["file_path"] for p in r.payloads("Pre")] == [
        str(project / "src" / "a.txt")
    ]
    assert [p["cwd"] for p in r.payloads("Pre")] == [str(project / "sub")]


async def test_a_session_rule_s_path_is_relative_to_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    update = [
        {
            "type": "addRules",
            "rules": [{"toolName": "Write", "ruleContent": "/src/**"}],
            "behavior": "allow",
            "destination": "session",
        }
    ]
    calls = [
        bash("mkdir -p sub/src src && cd sub"),
        tool("Write", file_path=str(project / "src" / "a.txt"), content="a"),
        tool("Write", file_path=str(project / "src" / "c.txt"), content="c"),
        tool("Write", file_path=str(project / "sub" / "src" / "b.txt"), content="b"),
    ]
    answers = {"PermissionRequest": {**allow_answer(updatedPermissions=update), "times": 2}}
    r = rig(tmp_path, monkeypatch, calls, answers=answers)
    # mkdir asks (the first answer allows it and adds the rule); a.txt and c.txt are allowed
    # by the rule; b.txt is not under /src of the project, so it asks (the second answer).
    got = await results(r)
    assert all(not is_error for _, is_error in got), got
    asked = [p["tool_input"] for p in r.payloads("PermissionRequest")]
    assert [a.get("file_path", a.get("command")) for a in asked] == [
        "mkdir -p sub/src src && cd sub",
        str(project / "sub" / "src" / "b.txt"),
    ]


def test_the_session_report_names_where_each_rule_directory_and_mode_came_from(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(.env)"], "defaultMode": "plan"}})
    )
    catalog = load_catalog(project, home=tmp_path, env={}, discover_installed_plugins=False)
    targets = SettingsTargets(project=project, local_root=project, config_dir=tmp_path / "cfg")
    state = permission_state(catalog.permissions, project, home=tmp_path, targets=targets)
    settings_file = project / ".claude" / "settings.json"
    assert state.report()[1] == f"  mode: plan (defaultMode in {settings_file})"
    state.apply_update(touch_rule("localSettings")[0])
    state.apply_update({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
    state.apply_update(
        {"type": "addDirectories", "directories": [str(tmp_path)], "destination": "session"}
    )
    local = project / ".claude" / "settings.local.json"
    assert state.report() == [
        "Permissions (this session):",
        "  mode: acceptEdits (setMode by a PermissionRequest hook (session))",
        "  working directories:",
        f"    {project} (project)",
        f"    {tmp_path} (session)",
        "  rules (deny, then ask, then allow, then the mode):",
        f"    deny  Read(.env)  [project: {settings_file}]",
        f"    allow Bash(touch:*)  [local: {local}]",
    ]


async def test_managed_rules_only_saves_no_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("touch a.txt")],
        answers=once(touch_rule("localSettings")),
        managed={"permissions": {"allowManagedPermissionRulesOnly": True}},
    )
    agent, _ = await r.run("go")
    assert not (r.harness.project / ".claude" / "settings.local.json").exists()
    (warning,) = warnings(agent)
    assert "managed settings allow only managed permission rules" in warning


async def test_a_registered_repo_root_is_a_working_directory_for_the_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    hooks = {"DirectoryAdded": [{"hooks": [{"type": "command", "command": hook_command("DA")}]}]}
    r = rig(tmp_path, monkeypatch, [bash(f"touch {extra}/a.txt")], hooks=hooks, mode="acceptEdits")
    agent = r.harness.agent()
    await agent.add_directory(extra, source="register_repo_root")
    agent.send("go")
    await agent.run_turn()
    await agent.close("other")
    assert (extra / "a.txt").exists()  # acceptEdits: inside a working directory, unasked
    assert [(p["directory"], p["source"]) for p in r.payloads("DA")] == [
        (str(extra), "register_repo_root")
    ]


async def test_an_allow_that_another_hook_denies_saves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deny = {"behavior": "deny", "message": "CASE-NO"}
    answers = {
        "PermA": allow_answer(updatedPermissions=touch_rule("localSettings")),
        "PermB": {
            "stdout": {
                "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": deny}
            }
        },
    }
    groups = [
        {"hooks": [{"type": "command", "command": hook_command(n)}]} for n in ("PermA", "PermB")
    ]
    r = rig(
        tmp_path,
        monkeypatch,
        [bash("touch a.txt"), bash("touch b.txt")],
        answers=answers,
        hooks={"PermissionRequest": groups},
    )
    assert await results(r) == [("CASE-NO", True), ("CASE-NO", True)]
    # Asked twice: the allow's rule was not added for the session either (hooks run at once).
    assert sorted(r.order()) == ["PermA", "PermA", "PermB", "PermB"]
    assert not (r.harness.project / ".claude" / "settings.local.json").exists()
