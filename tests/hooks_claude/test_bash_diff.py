"""``bashEditDiff`` against 2.1.332's recordings (tests/fixtures/claude_bash_diff.json,
``benchmarks/record_claude_bash_diff.py``): the same files and command in a fresh git
repository, snapshotted before and compared after, give the recorded value; when it is on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks.claude import load_catalog
from dsh.hooks.claude.runtime._bash_diff import TreeSnapshots, bash_diff_on

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "claude_bash_diff.json"
RECORDED: dict[str, Any] = json.loads(FIXTURE.read_text())
SHOWN = ["modify", "modify-two-hunks", "create", "create-no-newline", "create-empty", "delete"]
SHOWN += ["two-files", "append-no-newline", "unchanged", "gitignored", "binary", "many-files"]


def run(argv: list[str], cwd: Path) -> None:
    subprocess.run(argv, cwd=cwd, check=True)


@pytest.mark.parametrize("name", SHOWN)
async def test_the_diff_is_the_recorded_one(name: str, tmp_path: Path) -> None:
    case = RECORDED[name]
    project = tmp_path / "project"
    project.mkdir()
    run(["git", "init", "-q"], project)
    for rel, text in case["files"].items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    snapshots = TreeSnapshots()
    before = await snapshots.take(project)
    assert before is not None
    run(["bash", "-c", case["command"]], project)
    got = await snapshots.diff(before)
    [hook] = case["hooks"]
    want = hook["tool_response"].get("bashEditDiff")
    text = json.dumps(got).replace(str(project.resolve()), "${PROJECT_DIR}")
    assert json.loads(text) == want


async def test_no_diff_outside_a_git_working_tree(tmp_path: Path) -> None:
    assert await TreeSnapshots().take(tmp_path) is None


def test_on_in_the_modes_and_environment_recorded() -> None:
    for name in ("modify", "default-mode", "env-off", "env-on-default-mode"):
        case = RECORDED[name]
        [hook] = case["hooks"]
        on = bash_diff_on(hook["permission_mode"], case["env"])
        assert on == ("bashEditDiff" in hook["tool_response"]), name
    assert bash_diff_on("auto", {})
    assert not bash_diff_on("acceptEdits", {})


def _setting(
    tmp_path: Path, *, local: Any = None, managed: Any = None, user: Any = None
) -> bool | None:
    """``Catalog.bash_edit_diff`` of a project whose local, managed and user settings set
    ``bashEditDiffEnabled`` to the values given (``None``: not set)."""
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    if user is not None:
        (home / ".claude" / "settings.json").write_text(json.dumps({"bashEditDiffEnabled": user}))
    if local is not None:
        (project / ".claude" / "settings.local.json").write_text(
            json.dumps({"bashEditDiffEnabled": local})
        )
    managed_path = tmp_path / "managed-settings.json"
    if managed is not None:
        managed_path.write_text(json.dumps({"bashEditDiffEnabled": managed}))
    catalog = load_catalog(project, home=home, managed_path=managed_path, env={})
    return catalog.bash_edit_diff


def test_the_setting_as_2_1_332_reads_it(tmp_path: Path) -> None:
    """``bashEditDiffEnabled: false`` turns it off in any mode (recorded: ``setting-off``);
    ``true`` counts only from managed settings; the environment goes first; another value
    is not a boolean and changes nothing (the file's hooks still load)."""
    case = RECORDED["setting-off"]
    [hook] = case["hooks"]
    assert "bashEditDiff" not in hook["tool_response"]
    setting = _setting(tmp_path / "off", local=case["settings"]["bashEditDiffEnabled"])
    assert setting is False
    assert not bash_diff_on(hook["permission_mode"], case["env"], setting)
    assert bash_diff_on("default", {"CLAUDE_CODE_BASH_EDIT_DIFF": "1"}, setting)
    assert _setting(tmp_path / "true", local=True) is None  # a user's `true`: the mode decides
    assert _setting(tmp_path / "managed", local=False, managed=True) is True
    assert bash_diff_on("default", {}, True)
    # The user's `false` holds even under a project's `true` (2.1.332 reads it on its own).
    assert _setting(tmp_path / "user", local=True, user=False) is False
    assert _setting(tmp_path / "word", local="yes") is None
    assert _setting(tmp_path / "unset") is None
