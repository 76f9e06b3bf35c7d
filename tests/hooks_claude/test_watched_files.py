"""ConfigChange and FileChanged against recordings of 2.1.332: ``config-change`` (claude-next
corpus, replayed), ``config-skill`` and ``file-changed`` (tests/fixtures/claude_events.json).
Where the event fires (between the editing call's PreToolUse and PostToolUse), its payload's
keys and values, and its matcher."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks.claude.payloads import HOOK_INPUTS
from tests.agent.support import bash, text
from tests.hook_payloads import payload_problems
from tests.hooks_claude import _conformance_replay as replay_module
from tests.hooks_claude.bridge_support import make_rig
from tests.shared_paths import CONFORMANCE, on_ci

from . import test_conformance as conformance

NEXT = CONFORMANCE / "claude-next"
FIXTURE = Path(__file__).parents[1] / "fixtures" / "claude_events.json"
EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]


def _recorded(name: str) -> dict[str, Any]:
    cases = json.loads(FIXTURE.read_text())["cases"]
    case: dict[str, Any] = next(c for c in cases if c["case"] == name)
    return case


def _keys(case: dict[str, Any], event: str) -> list[str]:
    return next(list(h["payload"]) for h in case["hooks"] if h["event"] == event)


def _git_init(project: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)


async def test_config_change_replays_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conformance.require_corpus(NEXT, ci=on_ci())
    case = json.loads((NEXT / "config-change" / "case.json").read_text())
    monkeypatch.setattr(replay_module, "CASES_DIR", NEXT)
    places = replay_module.Places(tmp_path)
    rig, back = replay_module.mount(case, places, monkeypatch)
    # The claude-next cases ran in a fresh git repository (its README): the editing call's
    # tool_response has 2.1.332's `bashEditDiff`, compared with the rest.
    _git_init(places.project)
    await replay_module.replay(case, rig, places)
    problems: list[str] = []
    conformance.compare_invocations(NEXT / "config-change", rig, places, back, problems)
    # As recorded (the new settings' `env` reaches the second Bash call, as 2.1.332 applies
    # it mid-session), but for the file the diff shows: the recording's `{}`, where the replay
    # wrote its hooks (the recording gave them with `--settings`).
    [edit] = problems
    assert edit.startswith("PostToolUse.tool_response: 2.1.332")
    recorded = json.loads((NEXT / "config-change" / "PostToolUse.json").read_text())
    want = recorded["payload"]["tool_response"]["bashEditDiff"]
    got = places.placeholders(rig.payloads("PostToolUse")[0]["tool_response"]["bashEditDiff"])
    assert got["files"][0]["hunks"][0]["lines"][0].startswith('-{"hooks": ')
    got["files"][0]["hunks"][0]["lines"][0] = "-{}"
    assert got == want
    requests = rig.requests()
    assert len(requests) == len(case["model_view"])
    last = [i for i in conformance.our_items(requests[-1], back) if "tool_result" in i]
    assert last == [
        {"tool_result": "(Bash completed with no output)", "is_error": False},
        {"tool_result": "X=from-new-settings", "is_error": False},
    ]


async def test_a_skill_file_change_is_a_config_change_of_source_skills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = _recorded("config-skill")
    # The recording edits an existing skill; here the call makes it (the project is made with
    # the rig): the same source and path, an added file rather than a changed one.
    command = "mkdir -p .claude/skills/s && " + recorded["bash"]
    script = {"rules": [{"responses": [[bash(command)], [text("done")]]}]}
    rig = make_rig(tmp_path, monkeypatch, script, [*EVENTS, "ConfigChange"])
    skill = rig.harness.project / ".claude" / "skills" / "s" / "SKILL.md"
    await rig.run("go")
    assert rig.order() == [h["event"] for h in recorded["hooks"]]
    [payload] = rig.payloads("ConfigChange")
    assert list(payload) == _keys(recorded, "ConfigChange")
    assert payload_problems(payload, HOOK_INPUTS) == []
    assert payload["source"] == "skills"
    assert payload["file_path"] == str(skill)


async def test_a_watched_file_fires_file_changed_as_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = _recorded("file-changed")
    watched = tmp_path / "project" / "watched.txt"
    watch = {"hookSpecificOutput": {"hookEventName": "SessionStart", "watchPaths": [str(watched)]}}
    script = {"rules": [{"responses": [[bash(f"echo more >> {watched}")], [text("done")]]}]}
    rig = make_rig(
        tmp_path, monkeypatch, script, [*EVENTS, "FileChanged"], {"SessionStart": {"stdout": watch}}
    )
    watched.write_text("first\n")
    await rig.run("go")
    assert rig.order() == [h["event"] for h in recorded["hooks"]]
    [payload] = rig.payloads("FileChanged")
    assert list(payload) == _keys(recorded, "FileChanged")
    assert payload_problems(payload, HOOK_INPUTS) == []
    assert payload["file_path"] == str(watched)
    assert payload["event"] == "change"


async def test_a_file_changed_matcher_watches_that_file_and_filters_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = [[bash("echo x > a.env")], [bash("rm a.env && echo y > b.txt")], [text("done")]]
    script = {"rules": [{"responses": calls}]}
    rig = make_rig(tmp_path, monkeypatch, script, {"FileChanged": "a.env|b.txt"})
    await rig.run("go")
    events = [(p["file_path"].rsplit("/", 1)[-1], p["event"]) for p in rig.payloads("FileChanged")]
    assert events == [("a.env", "add"), ("a.env", "unlink"), ("b.txt", "add")]


@pytest.mark.parametrize("blocked", [False, True])
async def test_a_changed_settings_env_reaches_later_hooks_and_commands_unless_blocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocked: bool
) -> None:
    # config-change's rule (the new env applies mid-session) for the local settings file, and
    # a ConfigChange block keeping it out; a name no file sets any more is gone.
    local = tmp_path / "project" / ".claude" / "settings.local.json"
    write = f'echo \'{{"env": {{"CLAUDE_CASE_X": "new"}}}}\' > {local}'
    calls = [[bash(write)], [bash("echo X=$CLAUDE_CASE_X")], [bash(f"rm {local}")]]
    calls += [[bash("echo X=$CLAUDE_CASE_X")], [text("done")]]
    answers = {"ConfigChange": {"exit": 2, "stderr": "refused"}} if blocked else None
    events = [*EVENTS, "ConfigChange"]
    rig = make_rig(tmp_path, monkeypatch, {"rules": [{"responses": calls}]}, events, answers)
    await rig.run("go")
    assert [p["source"] for p in rig.payloads("ConfigChange")] == ["local_settings"] * 2
    printed = [p["tool_response"]["stdout"] for p in rig.payloads("PostToolUse")]
    assert printed[1] == ("X=" if blocked else "X=new")
    assert printed[3] == "X="
    seen = [e["env"].get("CLAUDE_CASE_X") for e in rig.entries() if e["event"] == "PostToolUse"]
    assert seen == [None, None, None, None] if blocked else seen == ["new", "new", None, None]
