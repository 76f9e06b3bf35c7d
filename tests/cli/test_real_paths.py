"""Permissions and file tools on real paths: symbolic links followed for every decision.

Through the real ``dsh run`` with a scripted model under ``--permission-mode acceptEdits``:
a write through a link to outside the project is asked (denied headless, naming the link
and where it resolves) and creates nothing; a link inside the project is written through;
Edit through a file link changes the target and keeps the link; a loop or a dangling
link is a clear tool error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.cli.support import run_dsh


def _run(tmp_path: Path, project: Path, calls: list[dict[str, Any]], *mode: str) -> str:
    responses: list[Any] = [
        [{"type": "tool_use", "name": c["name"], "input": c["input"]}] for c in calls
    ]
    responses.append([{"type": "text", "text": "DONE"}])
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), *mode]
    done = run_dsh(*args, cwd=project, env={"XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "DONE" in done.stdout
    return done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def write(path: str, content: str) -> dict[str, Any]:
    return {"name": "Write", "input": {"file_path": path, "content": content}}


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    return {"name": "Edit", "input": {"file_path": path, "old_string": old, "new_string": new}}


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions", "default"])
def test_a_write_through_a_directory_link_to_outside_is_asked_and_creates_nothing(
    tmp_path: Path, project: Path, mode: str
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project / "out").symlink_to(outside)
    shown = _run(tmp_path, project, [write("out/x", "pwned")], "--permission-mode", mode)
    assert not (outside / "x").exists()
    assert f"{project / 'out'} is a symbolic link" in shown
    assert f"resolves to {outside / 'x'}" in shown
    assert "[DENIED]" in shown


def test_edit_through_a_file_link_to_outside_is_asked_and_the_target_kept(
    tmp_path: Path, project: Path
) -> None:
    target = tmp_path / "secret.txt"
    target.write_text("hi\n")
    (project / "link.txt").symlink_to(target)
    shown = _run(
        tmp_path, project, [edit("link.txt", "hi", "ho")], "--permission-mode", "acceptEdits"
    )
    assert target.read_text() == "hi\n"
    assert (project / "link.txt").is_symlink()
    assert f"resolves to {target}" in shown


def test_a_link_inside_the_project_is_written_through_and_kept(
    tmp_path: Path, project: Path
) -> None:
    (project / "real").mkdir()
    (project / "real" / "f.txt").write_text("one\n")
    (project / "inner").symlink_to(project / "real")
    (project / "f.txt").symlink_to("real/f.txt")
    calls = [
        write("inner/new.txt", "made\n"),
        edit("f.txt", "one", "two"),
        {"name": "MultiEdit", "input": {"file_path": "f.txt", "edits": [
            {"old_string": "two", "new_string": "three"}]}},
        write("f.txt", "four\n"),
    ]  # fmt: skip
    shown = _run(tmp_path, project, calls, "--permission-mode", "acceptEdits")
    assert "DENIED" not in shown
    assert (project / "real" / "new.txt").read_text() == "made\n"
    assert (project / "f.txt").is_symlink()
    assert os.readlink(project / "f.txt") == "real/f.txt"
    assert (project / "real" / "f.txt").read_text() == "four\n"
    # Non-symlink wording is unchanged: the model sees the path as the call wrote it.
    log = "".join(p.read_text() for p in (tmp_path / "sessions").glob("*.jsonl"))
    assert "File created successfully at: inner/new.txt" in log
    assert "The file f.txt has been updated successfully." in log


def test_a_link_loop_and_a_dangling_link_are_clear_tool_errors(
    tmp_path: Path, project: Path
) -> None:
    (project / "a").symlink_to("b")
    (project / "b").symlink_to("a")
    (project / "gone.txt").symlink_to("missing/nothing.txt")
    calls = [
        write("a", "x"),
        edit("a", "x", "y"),
        {"name": "Read", "input": {"file_path": str(project / "a")}},
        write("gone.txt", "x"),
        {"name": "Read", "input": {"file_path": str(project / "gone.txt")}},
    ]
    shown = _run(tmp_path, project, calls, "--permission-mode", "acceptEdits")
    assert f"Cannot write {project / 'a'}: {project / 'a'} is a symbolic link in a loop" in shown
    assert f"Cannot edit {project / 'a'}: {project / 'a'} is a symbolic link in a loop" in shown
    assert f"Cannot read {project / 'a'}: {project / 'a'} is a symbolic link in a loop" in shown
    dangling = f"{project / 'gone.txt'} is a symbolic link to {project / 'missing/nothing.txt'}"
    assert f"Cannot write {project / 'gone.txt'}: {dangling}, which does not exist" in shown
    assert f"Cannot read {project / 'gone.txt'}: {dangling}, which does not exist" in shown
    assert not (project / "missing").exists()
    assert (project / "gone.txt").is_symlink()


def test_a_deny_rule_on_the_target_holds_through_a_link(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "keys"
    outside.mkdir()
    (outside / "id").write_text("secret\n")
    (project / "k").symlink_to(outside)
    (project / ".claude").mkdir()
    rules = {"permissions": {"deny": [f"Read(/{outside}/**)"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(rules))
    calls = [{"name": "Read", "input": {"file_path": str(project / "k" / "id")}}]
    shown = _run(tmp_path, project, calls, "--permission-mode", "bypassPermissions")
    assert "secret" not in shown
    assert "Permission to use Read has been denied." in shown


def test_a_shell_write_through_a_link_to_outside_is_asked_under_accept_edits(
    tmp_path: Path, project: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project / "out").symlink_to(outside)
    calls = [{"name": "Bash", "input": {"command": "touch out/x"}}]
    shown = _run(tmp_path, project, calls, "--permission-mode", "acceptEdits")
    assert not (outside / "x").exists()
    assert f"touch in '{project / 'out' / 'x'}' needs approval. The path is outside" in shown


def test_an_allow_rule_must_hold_where_the_link_leads(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "keys"
    outside.mkdir()
    (outside / "id").write_text("secret\n")
    (project / "docs").mkdir()
    (project / "docs" / "k").symlink_to(outside / "id")
    (project / "docs" / "readme").write_text("hello\n")
    (project / ".claude").mkdir()
    rules = {"permissions": {"allow": ["Read(/docs/**)"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(rules))
    calls = [
        {"name": "Read", "input": {"file_path": str(project / "docs" / "readme")}},
        {"name": "Read", "input": {"file_path": str(project / "docs" / "k")}},
    ]
    _run(tmp_path, project, calls)
    log = "".join(p.read_text() for p in (tmp_path / "sessions").glob("*.jsonl"))
    assert "hello" in log
    assert "secret" not in log
    assert f"Claude requested permissions to read from {project / 'docs' / 'k'}" in log
