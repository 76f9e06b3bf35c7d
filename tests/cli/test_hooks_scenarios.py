"""Scenario fixtures of ``dsh hooks test --fixtures``: a prompt through the real loop.

``tests/fixtures/hook_fixtures/scenarios`` holds scenarios (a prompt, a scripted model's
replies, hooks of either bridge or the project's own) whose expectations are the firings,
what the model read, the notices and how the turn ended; every one passes, a flipped
decision fails with a diff and in the JUnit XML, ``--update`` accepts, ``dsh hooks record
--scenario`` pins a real session's turn, and a malformed scenario is named.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dsh.testing import check_fixtures
from tests.cli.support import run_dsh

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "hook_fixtures"
SCENARIOS = PROJECT / "scenarios"


def dsh(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_dsh(*args, cwd=cwd, env={"HOME": str(cwd)})


def checked(folder: Path, project: Path) -> dict[str, str]:
    """Each fixture of ``folder`` checked in this process: its name and what became of it."""
    checks = asyncio.run(check_fixtures(folder, project=project))
    return {c.name: "ok" if c.passed else c.error or "\n".join(c.diff) or "new" for c in checks}


def test_every_scenario_passes_and_they_cover_both_bridges() -> None:
    scenarios = sorted(SCENARIOS.glob("*.json"))
    assert checked(SCENARIOS, PROJECT) == {p.stem: "ok" for p in scenarios}
    expects = [json.loads(p.read_text())["expect"] for p in scenarios]
    decisions = {f["decision"] for e in expects for f in e["firings"]}
    assert {"deny", "block", "halt", "none"} <= decisions
    assert {e["end"] for e in expects} == {"completed", "aborted", "rejected"}
    codex = json.loads((SCENARIOS / "codex-pre-deny-post-context.json").read_text())["expect"]
    assert codex["model_text"][0] == (
        "Command blocked by PreToolUse hook: no rm -rf. Command: rm -rf /tmp/nothing-here"
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    copy = tmp_path / "scenarios"
    copy.mkdir()
    for name in ("claude-deny-then-run", "claude-prompt-blocked"):
        shutil.copy(SCENARIOS / f"{name}.json", copy)
    return copy


def test_a_flipped_decision_fails_with_a_diff_in_junit_and_update_accepts(
    folder: Path, tmp_path: Path
) -> None:
    path = folder / "claude-deny-then-run.json"
    fixture = json.loads(path.read_text())
    wanted = fixture["expect"]
    flipped = json.loads(json.dumps(wanted))
    assert flipped["firings"][0]["decision"] == "deny"
    flipped["firings"][0]["decision"] = "none"
    path.write_text(json.dumps({**fixture, "expect": flipped}))
    junit = tmp_path / "report.xml"
    args = ("hooks", "test", "--project", str(PROJECT), "--fixtures", str(folder))
    done = dsh(*args, "--junit", str(junit), cwd=tmp_path)
    assert done.returncode == 1
    out = done.stdout.splitlines()
    assert out[0] == "FAIL    claude-deny-then-run"
    assert '    -      "decision": "none",' in out
    assert '    +      "decision": "deny",' in out
    assert out[-1] == "2 fixture(s), 1 passed, 1 failed"
    (failure,) = ET.parse(junit).getroot().iter("failure")
    assert '+      "decision": "deny",' in (failure.text or "")
    updated = dsh(*args, "--update", cwd=tmp_path)
    assert updated.returncode == 0, updated.stdout
    assert json.loads(path.read_text())["expect"] == wanted


def test_record_scenario_pins_a_real_sessions_turn(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("fixtures", "scenarios"))
    script = tmp_path / "script.json"
    replies = [
        [{"type": "tool_use", "name": "Bash", "input": {"command": "echo gone #deny"}}],
        [{"type": "text", "text": "refused, fine"}],
    ]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": replies}]}}))
    sessions = tmp_path / "sessions"
    ran = dsh(
        "run", "tidy", "--model", f"scripted:{script}", "--project", str(project),
        "--session-dir", str(sessions), "--trust-project", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    out = tmp_path / "pinned"
    recorded = dsh(
        "hooks", "record", "--scenario", "--session-dir", str(sessions),
        "--project", str(project), "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert recorded.stdout.splitlines() == [
        f"wrote   {out}/001-scenario.json",
        f"1 turn(s) recorded in {out} as scenarios",
    ]
    fixture = json.loads((out / "001-scenario.json").read_text())
    assert fixture["scenario"] == {"prompt": "tidy", "replies": replies}
    pre = [f for f in fixture["expect"]["firings"] if f["event"] == "PreToolUse"]
    denied = {"event": "PreToolUse", "tool": "Bash", "decision": "deny", "exit_codes": [0]}
    assert pre == [denied, denied]  # the project has both bridges' hooks, as `dsh run` ran them
    assert "PreToolUse:Bash hook error: deny by the fixture hook" in fixture["expect"]["model_text"]
    assert checked(out, project) == {"001-scenario": "ok"}
    answer = project / "hooks" / "answer.py"  # the hook changes: the pinned scenario fails
    answer.write_text(answer.read_text().replace('"deny", "ask", "allow"', '"ask", "allow"'))
    assert '-      "decision": "deny",' in checked(out, project)["001-scenario"].splitlines()


@pytest.mark.parametrize(
    ("fixture", "said"),
    [
        (
            {"event": "Stop", "scenario": {"prompt": "x", "replies": []}},
            "event: a scenario fixture has no event of its own",
        ),
        ({"scenario": {"replies": []}}, "scenario.prompt: Field required"),
        (
            {"scenario": {"prompt": "x", "replies": []}, "expect": {"decision": "deny"}},
            "expect.decision: Extra inputs are not permitted",
        ),
        (
            {"scenario": {"prompt": "x", "replies": [], "max_steps": 0}},
            "scenario.max_steps: from 1 to 500",
        ),
        ({"description": "nothing"}, "the fixture: it needs an event (or a scenario)"),
    ],
)
def test_a_malformed_scenario_is_named(tmp_path: Path, fixture: object, said: str) -> None:
    folder = tmp_path / "fixtures"
    folder.mkdir()
    (folder / "bad.json").write_text(json.dumps(fixture))
    assert checked(folder, tmp_path) == {"bad": said}
