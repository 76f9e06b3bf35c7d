"""``dsh hooks test --fixtures``: fixtures of both bridges checked against real hook processes.

``tests/fixtures/hook_fixtures`` is a project with Claude Code and Codex hooks (one script,
``hooks/answer.py``, answering as its payload says) and a folder of fixtures across the
events of both bridges; every fixture passes, one flipped decision fails with a diff and in
the JUnit XML, ``--update`` accepts what was observed, a broken fixture is named.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.cli.support import run_dsh

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "hook_fixtures"
FIXTURES = PROJECT / "fixtures"


def dsh(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_dsh(*args, cwd=cwd, env={"HOME": str(cwd)})


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    home = tmp_path_factory.mktemp("home")
    return dsh("hooks", "test", "--project", str(PROJECT), "--fixtures", str(FIXTURES), cwd=home)


def test_every_fixture_of_both_bridges_passes(
    whole_run: subprocess.CompletedProcess[str],
) -> None:
    fixtures = sorted(FIXTURES.glob("*.json"))
    assert len(fixtures) >= 30
    assert whole_run.returncode == 0, whole_run.stdout + whole_run.stderr
    lines = whole_run.stdout.splitlines()
    assert lines[:-1] == [f"ok      {p.stem}" for p in fixtures]
    assert lines[-1] == f"{len(fixtures)} fixture(s), {len(fixtures)} passed, 0 failed"


def test_the_fixtures_cover_the_events_and_decisions_of_both_bridges() -> None:
    seen: dict[str, set[str]] = {"claude": set(), "codex": set()}
    decisions: dict[str, set[str]] = {"claude": set(), "codex": set()}
    for path in FIXTURES.glob("*.json"):
        fixture = json.loads(path.read_text())
        bridge = fixture.get("bridge", "claude")
        seen[bridge].add(fixture["event"])
        decisions[bridge].add(fixture["expect"]["decision"])
    assert {"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart"} <= (
        seen["claude"] & seen["codex"]
    )
    assert {"PermissionRequest", "PreCompact"} <= seen["claude"] & seen["codex"]
    assert {"PostToolUseFailure", "SubagentStop", "SessionEnd", "Setup"} <= seen["claude"]
    assert decisions["claude"] == {"allow", "ask", "block", "deny", "halt", "none"}
    assert decisions["codex"] == {"allow", "block", "deny", "halt", "none"}


@pytest.fixture
def two(tmp_path: Path) -> Path:
    """A folder with two of the fixtures (a Claude Code deny, a Codex block)."""
    folder = tmp_path / "fixtures"
    folder.mkdir()
    for name in ("claude-pre-deny", "codex-post-block"):
        shutil.copy(FIXTURES / f"{name}.json", folder)
    return folder


def test_a_flipped_decision_fails_with_a_diff_and_in_the_junit_xml(
    two: Path, tmp_path: Path
) -> None:
    path = two / "claude-pre-deny.json"
    fixture = json.loads(path.read_text())
    assert fixture["expect"]["decision"] == "deny"
    fixture["expect"]["decision"] = "allow"
    path.write_text(json.dumps(fixture))
    junit = tmp_path / "report.xml"
    done = dsh(
        "hooks", "test", "--project", str(PROJECT), "--fixtures", str(two),
        "--junit", str(junit), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1
    out = done.stdout.splitlines()
    assert out[0] == "FAIL    claude-pre-deny"
    assert '    -  "decision": "allow",' in out
    assert '    +  "decision": "deny",' in out
    assert "ok      codex-post-block" in out
    assert out[-1] == "2 fixture(s), 1 passed, 1 failed"
    suite = ET.parse(junit).getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "0")
    (failure,) = suite.iter("failure")
    assert '+  "decision": "deny",' in (failure.text or "")


def test_update_accepts_the_observed_effect(two: Path, tmp_path: Path) -> None:
    path = two / "codex-post-block.json"
    fixture = json.loads(path.read_text())
    wanted = fixture.pop("expect")
    fixture["expect"] = {"decision": "none"}
    path.write_text(json.dumps(fixture))
    args = ("hooks", "test", "--project", str(PROJECT), "--fixtures", str(two))
    before = dsh(*args, cwd=tmp_path)
    assert before.returncode == 1
    updated = dsh(*args, "--update", cwd=tmp_path)
    assert updated.returncode == 0, updated.stdout
    assert "updated codex-post-block" in updated.stdout.splitlines()
    assert json.loads(path.read_text())["expect"] == wanted
    assert dsh(*args, cwd=tmp_path).returncode == 0


def test_a_fixture_without_expect_is_new_and_fails_until_accepted(
    two: Path, tmp_path: Path
) -> None:
    path = two / "claude-pre-deny.json"
    fixture = json.loads(path.read_text())
    del fixture["expect"]
    path.write_text(json.dumps(fixture))
    done = dsh("hooks", "test", "--project", str(PROJECT), "--fixtures", str(two), cwd=tmp_path)
    assert done.returncode == 1
    assert "NEW     claude-pre-deny" in done.stdout.splitlines()


BROKEN = {
    "bad-json": ("{not json", "cannot read it as JSON"),
    "bad-bridge": ('{"event": "PreToolUse", "bridge": "gemini"}', "bridge: "),
    "bad-event": ('{"event": "NoSuchEvent"}', "run_hook: 'NoSuchEvent' is not a claude"),
    "bad-files": ('{"event": "Stop", "files": {"x": "y"}}', "files: given without hooks"),
    "bad-escape": (
        '{"event": "Stop", "hooks": {}, "files": {"../escape": "y"}}',
        "files: '../escape' is not a relative path inside the project",
    ),
    "bad-absolute": (
        '{"event": "Stop", "hooks": {}, "files": {"/tmp/abs": "y"}}',
        "files: '/tmp/abs' is not a relative path inside the project",
    ),
}


def test_each_broken_fixture_is_named_and_fails(tmp_path: Path) -> None:
    """One run of a folder of broken fixtures (one ``dsh`` process for all of them): each is
    an ``ERROR`` line naming it and what is wrong, and the run fails."""
    folder = tmp_path / "fixtures"
    folder.mkdir()
    for name, (text, _) in BROKEN.items():
        (folder / f"{name}.json").write_text(text)
    done = dsh("hooks", "test", "--project", str(tmp_path), "--fixtures", str(folder), cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    for name, (_, said) in sorted(BROKEN.items()):
        (line,) = [line for line in lines if line.startswith(f"ERROR   {name}: ")]
        assert line.startswith(f"ERROR   {name}: {said}"), line
    assert lines[-1] == f"{len(BROKEN)} fixture(s), 0 passed, {len(BROKEN)} failed"
    assert "Traceback" not in done.stderr


def test_junit_and_update_need_fixtures(tmp_path: Path) -> None:
    done = dsh("hooks", "test", "Stop", "--update", "--project", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2
    assert "--junit and --update go with --fixtures DIR" in done.stderr


def test_record_pins_a_real_sessions_hook_runs_of_both_bridges(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("fixtures"))
    script = tmp_path / "script.json"
    replies = [
        [{"type": "tool_use", "name": "Bash", "input": {"command": "echo one #context"}}],
        [{"type": "text", "text": "done"}],
    ]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": replies}]}}))
    sessions = tmp_path / "sessions"
    ran = dsh(
        "run", "hello #plain", "--model", f"scripted:{script}", "--project", str(project),
        "--session-dir", str(sessions), "--trust-project", "--hooks", "both",
        "--permission-mode", "bypassPermissions", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    out = tmp_path / "pinned"
    recorded = dsh(
        "hooks", "record", "--session-dir", str(sessions), "--project", str(project),
        "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    written = sorted(p.name for p in out.glob("*.json"))
    assert {"claude-UserPromptSubmit", "codex-UserPromptSubmit", "claude-PreToolUse",
            "codex-PreToolUse", "claude-PostToolUse", "codex-PostToolUse",
            "claude-Stop", "codex-Stop"} <= {n[4:-5] for n in written}  # fmt: skip
    pre = next(json.loads(p.read_text()) for p in out.glob("*-codex-PreToolUse.json"))
    assert pre["input"] == {"command": "echo one #context"}
    assert pre["expect"]["model_text"] == ["PreToolUse context from the fixture hook"]
    prompt = next(json.loads(p.read_text()) for p in out.glob("*-claude-UserPromptSubmit.json"))
    assert prompt["prompt"] == "hello #plain"
    args = ("hooks", "test", "--project", str(project), "--fixtures", str(out))
    assert dsh(*args, cwd=tmp_path).returncode == 0
    # The hook changes: the pinned fixtures fail, and record says the exit codes moved.
    answer = project / "hooks" / "answer.py"
    answer.write_text(answer.read_text() + "\nsys.exit(1)\n")
    changed = dsh(*args, cwd=tmp_path)
    assert changed.returncode == 1
    assert "FAIL" in changed.stdout
    again = dsh(
        "hooks", "record", "--session-dir", str(sessions), "--project", str(project),
        "--out", str(tmp_path / "again"), cwd=tmp_path,
    )  # fmt: skip
    assert "(the session's exit codes were [0], now [1])" in again.stdout


def test_the_help_describes_fixtures_update_and_junit(tmp_path: Path) -> None:
    done = dsh("hooks", "test", "--help", cwd=tmp_path)
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    for said in (
        'a payload fixture has an "event" and its "payload"',
        'a scenario fixture has a "scenario"',
        '"expect": what must come out',
        "--update writes what was observed into each failed or new fixture",
        "--junit FILE also writes the checks as JUnit XML",
    ):
        assert said in text
