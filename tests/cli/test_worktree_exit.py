"""The exit question of an interactive ``dsh --worktree`` session, in a pseudo-terminal.

As 2.1.332's exit dialog (read in its binary; ``-p`` keeps the worktree and fires no
WorktreeRemove: ``worktree-flag`` in tests/fixtures/claude_worktree.json): a git worktree
with nothing changed is removed unasked; one with changes is asked about ("Keep worktree" /
"Remove worktree"); a WorktreeCreate hook's worktree is always asked about, and removing it
fires WorktreeRemove with ``worktree_path``, falling back to git without such a hook and
keeping it, with a warning, when the hook fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli.test_interactive import Session, bash, spawned, start, text
from tests.cli.test_worktree import _git

__all__ = ["spawned"]  # the fixture, used by name

RECORD = (
    "import json, sys\n"
    "p = json.load(sys.stdin)\n"
    "open(sys.argv[1], 'a').write(json.dumps(p) + '\\n')\n"
    "sys.exit(int(sys.argv[2]))\n"
)


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "home").mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("sample\n")
    _git(root, "add", "README.md")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "init")
    return root


def _leave(s: Session) -> None:
    s.prompt()
    s.child.sendeof()


def test_an_unchanged_git_worktree_is_removed_unasked(
    spawned: list[Session], tmp_path: Path
) -> None:
    repo = _repo(tmp_path)
    s = start(spawned, tmp_path, repo, [[text("hi")]], "--worktree", "clean-wt")
    _leave(s)
    s.expect("Worktree removed (no changes)")
    assert s.leave() == 0
    assert "Exiting worktree session" not in s.transcript.getvalue()
    assert not (repo / ".claude" / "worktrees" / "clean-wt").exists()
    assert _git(repo, "branch", "--format=%(refname:short)") == "main"


def test_a_changed_git_worktree_is_asked_about_and_kept_or_removed(
    spawned: list[Session], tmp_path: Path
) -> None:
    repo = _repo(tmp_path)
    where = repo / ".claude" / "worktrees"
    for name, answer in (("keep-wt", "1"), ("drop-wt", "2")):
        responses = [[bash("echo x > new.txt")], [text("done")]]
        s = start(spawned, tmp_path, repo, responses, "--worktree", name)
        s.say("write")
        s.expect("done")
        _leave(s)
        s.expect("Exiting worktree session")
        s.expect("You have 1 uncommitted file. These will be lost if you remove the worktree.")
        s.expect(f"1. Keep worktree    Stays at {where / name}")
        s.expect("2. Remove worktree  All changes and commits will be lost.")
        s.child.sendline(answer)
        if answer == "1":
            s.expect(
                f"Worktree kept. Your work is saved at {where / name} on branch worktree-{name}"
            )
        else:
            s.expect("Worktree removed. Uncommitted changes were discarded.")
        assert s.leave() == 0
    assert (where / "keep-wt" / "new.txt").exists()
    assert not (where / "drop-wt").exists()
    branches = _git(repo, "branch", "--format=%(refname:short)").splitlines()
    assert branches == ["main", "worktree-keep-wt"]


def _hooked(tmp_path: Path, remove_exit: int | None) -> tuple[Path, Path]:
    """Settings whose WorktreeCreate hook makes a plain folder (no git) and whose
    WorktreeRemove hook (none: ``remove_exit`` ``None``) records its payload and exits so."""
    folder, record, hook = tmp_path / "made", tmp_path / "removed.jsonl", tmp_path / "rec.py"
    hook.write_text(RECORD)
    make = {"type": "command", "command": f"mkdir -p {folder} && echo {folder}"}
    hooks: dict[str, Any] = {"WorktreeCreate": [{"hooks": [make]}]}
    if remove_exit is not None:
        remove = f"{sys.executable} {hook} {record} {remove_exit}"
        hooks["WorktreeRemove"] = [{"hooks": [{"type": "command", "command": remove}]}]
    (tmp_path / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return folder, record


def test_removing_a_hooks_worktree_fires_worktree_remove(
    spawned: list[Session], tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    folder, record = _hooked(tmp_path, 0)
    settings = ("--settings", str(tmp_path / "settings.json"))
    s = start(spawned, tmp_path, project, [[text("hi")]], *settings, "--worktree", "hooked")
    _leave(s)
    s.expect("A WorktreeCreate hook made this worktree, so Claude Code can't tell whether")
    s.expect("2. Remove worktree  Any unpushed commits in the worktree may be lost.")
    s.child.sendline("2")
    s.expect("Worktree removed.")
    assert s.leave() == 0
    [payload] = [json.loads(line) for line in record.read_text().splitlines()]
    assert payload["hook_event_name"] == "WorktreeRemove"
    assert payload["worktree_path"] == str(folder)
    assert payload["cwd"] == str(project)
    assert set(payload) == {
        "session_id", "transcript_path", "cwd", "hook_event_name", "worktree_path"
    }  # fmt: skip


def test_a_resumed_sessions_worktree_remove_names_that_session(
    spawned: list[Session], tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    _, record = _hooked(tmp_path, 0)
    settings = ("--settings", str(tmp_path / "settings.json"), "--worktree", "hooked")
    first = "0b5e1f0a-5c1d-4c4e-9a57-1f2d3c4b5a69"
    s = start(spawned, tmp_path, project, [[text("hi")]], *settings, "--session-id", first)
    _leave(s)
    s.expect("Exiting worktree session")
    s.child.sendline("1")  # kept
    assert s.leave() == 0
    s = start(spawned, tmp_path, project, [[text("again")]], *settings, "--resume", first)
    _leave(s)
    s.expect("Exiting worktree session")
    s.child.sendline("2")
    s.expect("Worktree removed.")
    assert s.leave() == 0
    [payload] = [json.loads(line) for line in record.read_text().splitlines()]
    assert payload["session_id"] == first


def test_a_failing_worktree_remove_hook_keeps_the_worktree_with_a_warning(
    spawned: list[Session], tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    folder, record = _hooked(tmp_path, 1)
    settings = ("--settings", str(tmp_path / "settings.json"))
    s = start(spawned, tmp_path, project, [[text("hi")]], *settings, "--worktree", "hooked")
    _leave(s)
    s.expect("Exiting worktree session")
    s.child.sendline("2")
    s.expect(f"dsh: WorktreeRemove hook exited 1; kept worktree at: {folder}")
    s.expect(f"Couldn't remove worktree. Kept at {folder}.")
    assert s.leave() == 0
    assert folder.is_dir()
    assert record.read_text().count("WorktreeRemove") == 1


def test_without_a_worktree_remove_hook_git_removes_a_hooks_git_worktree(
    spawned: list[Session], tmp_path: Path
) -> None:
    repo = _repo(tmp_path)
    folder = tmp_path / "elsewhere"
    made = f"git worktree add -q {folder} >&2 && echo {folder}"
    hooks = {"WorktreeCreate": [{"hooks": [{"type": "command", "command": made}]}]}
    (tmp_path / "settings.json").write_text(json.dumps({"hooks": hooks}))
    settings = ("--settings", str(tmp_path / "settings.json"))
    s = start(spawned, tmp_path, repo, [[text("hi")]], *settings, "--worktree", "hooked")
    _leave(s)
    s.expect("Exiting worktree session")
    s.child.sendline("2")
    s.expect("Worktree removed.")
    assert s.leave() == 0
    assert not folder.exists()
    listed = subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True, text=True)
    assert str(folder) not in listed.stdout
