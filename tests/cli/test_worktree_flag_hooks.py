"""``dsh run --worktree`` with WorktreeCreate hooks: the hook makes the session's worktree
instead of git, fired before SessionStart, as Claude Code 2.1.332 does (``worktree-flag`` in
the corpus, ``flag-hook-*`` in ``tests/fixtures/claude_worktree.json``, recorded by
``benchmarks/record_claude_worktree.py``).

The real loop with a scripted model, real hook processes, real git repositories in temp folders.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import dsh, write_script
from tests.cli.test_worktree import NOTE, RECORDED, _git
from tests.shared_paths import CONFORMANCE

CORPUS = CONFORMANCE / "claude-next" / "worktree-flag"
RECORDED_COMMAND = "python3 ${HOOK} WorktreeCreate"


def _settings(tmp_path: Path, create: str, *, note: bool = False) -> Path:
    """``--settings`` with ``create`` as the WorktreeCreate command (and, with ``note``, a
    SessionStart and a PreToolUse hook noting where they ran)."""
    hooks: dict[str, Any] = {
        "WorktreeCreate": [{"hooks": [{"type": "command", "command": create}]}]
    }
    if note:
        (tmp_path / "note.py").write_text(NOTE)
        noted = f"{sys.executable} {tmp_path / 'note.py'} {tmp_path / 'hooks.jsonl'}"
        for event in ("SessionStart", "PreToolUse"):
            hooks[event] = [{"hooks": [{"type": "command", "command": noted}]}]
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    return settings


def _run(tmp_path: Path, project: Path, settings: Path, *more: str) -> Any:
    script = write_script(tmp_path / "s.json", [[{"type": "text", "text": "MODEL-CALLED"}]])
    args = ["--model", f"scripted:{script}", "--settings", str(settings)]
    return dsh("run", *args, "--worktree", *more, "go", cwd=project)


def test_a_worktree_create_hook_makes_the_sessions_folder_before_session_start(
    tmp_path: Path,
) -> None:
    """``flag-hook-not-git``: no git repository needed; the hook's folder is the session's."""
    recorded = RECORDED["flag-hook-not-git"]
    project, made = tmp_path / "project", tmp_path / "made"
    project.mkdir()
    payloads = tmp_path / "payloads.jsonl"
    create = f"mkdir -p {made} && cat >> {payloads} && echo && echo {made}"
    settings = _settings(tmp_path, create, note=True)
    done = _run(tmp_path, project, settings, "sample-wt", "--output-format", "json")
    assert done.returncode == recorded["exit_code"] == 0, done.stderr
    # Fired once, first, with 2.1.332's payload (its keys in its order) from the project.
    [payload] = [json.loads(line) for line in payloads.read_text().splitlines()]
    [theirs] = [h for h in recorded["hooks"] if h["event"] == "WorktreeCreate"]
    if CORPUS.is_dir():  # the fixture's keys are sorted; the corpus keeps 2.1.332's order
        corpus = json.loads((CORPUS / "WorktreeCreate.json").read_text())["payload"]
        assert list(payload) == list(corpus)
    assert sorted(payload) == sorted(theirs["payload"])
    assert payload["cwd"] == str(project)
    assert theirs["cwd"] == "${PROJECT_DIR}"
    assert payload["name"] == theirs["payload"]["name"] == "sample-wt"
    assert payload["transcript_path"].endswith(f"/{payload['session_id']}.jsonl")
    # Then the session runs in the folder the hook printed (its last line), as recorded.
    order = [h["event"] for h in recorded["hooks"]]
    assert order[:2] == ["WorktreeCreate", "SessionStart"]
    lines = [json.loads(line) for line in (tmp_path / "hooks.jsonl").read_text().splitlines()]
    assert [line["event"] for line in lines] == ["SessionStart"]
    assert lines[0]["cwd"] == lines[0]["process_cwd"] == lines[0]["project_dir"] == str(made)
    assert recorded["hooks"][1]["cwd"] == "${PROJECT_DIR}/wtdir"
    # The session is the one the hook was told of (2.1.332: one id throughout).
    assert json.loads(done.stdout)["session_id"] == payload["session_id"]
    assert recorded["hooks"][1]["payload"]["session_id"] == theirs["payload"]["session_id"]
    assert not (project / ".claude").exists()


@pytest.mark.parametrize(
    ("case", "create"),
    [
        ("flag-hook-exit2", "echo CASE-WT-REFUSED >&2; exit 2"),
        ("flag-hook-exit1", "echo CASE-WT-FAILED >&2; exit 1"),
        ("flag-hook-empty", "true"),
        ("flag-hook-missing-dir", "echo ${RUN_DIR}/nowhere"),
        ("flag-hook-relative", "mkdir -p wtdir && echo wtdir"),
    ],
)
def test_a_worktree_create_hook_that_makes_no_folder_stops_the_run(
    tmp_path: Path, case: str, create: str
) -> None:
    """exit 1 or 2, no path, a folder that is not there, a folder inside the repository:
    exit 1 with 2.1.332's words; no session starts and git makes nothing."""
    recorded = RECORDED[case]
    run_dir = tmp_path
    project = run_dir / "project"
    project.mkdir()
    _git(project, "init", "-q", "-b", "main")
    (project / "README.md").write_text("sample\n")
    _git(project, "add", "README.md")
    _git(project, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "init")
    command = create.replace("${RUN_DIR}", str(run_dir))
    done = _run(tmp_path, project, _settings(tmp_path, command), "sample-wt")
    assert done.returncode == recorded["exit_code"] == 1
    words = recorded["stderr"].strip().replace(RECORDED_COMMAND, command)
    words = words.replace("${PROJECT_DIR}", str(project)).replace("${RUN_DIR}", str(run_dir))
    assert done.stderr.strip() == f"dsh: {words}"
    assert "MODEL-CALLED" not in done.stdout
    assert [h["event"] for h in recorded["hooks"]] == ["WorktreeCreate"]
    assert _git(project, "branch", "--format=%(refname:short)") == "main"
    assert not (project / ".claude").exists()


def test_a_projects_own_worktree_create_hook_runs_only_once_trusted(tmp_path: Path) -> None:
    """Not trusted, it is left out, and ``--worktree`` refuses in 2.1.332's words for hooks
    that did not run rather than fall back to git; with ``--trust-project`` it makes it."""
    project, made = tmp_path / "project", tmp_path / "made"
    (project / ".claude").mkdir(parents=True)
    handler = {"type": "command", "command": f"mkdir -p {made} && echo {made}"}
    hooks = {"WorktreeCreate": [{"hooks": [handler]}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    script = write_script(tmp_path / "s.json", [[{"type": "text", "text": "MODEL-CALLED"}]])
    args = ["run", "--model", f"scripted:{script}", "--worktree", "sample-wt"]
    refused = dsh(*args, "go", cwd=project, trust=False)
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        "dsh: Error creating worktree: WorktreeCreate hook failed: hook is configured but did"
        " not run (workspace not trusted or matcher mismatch)"
    )
    assert not made.exists()
    done = dsh(*args, "go", cwd=project)  # the helper adds --trust-project
    assert done.returncode == 0, done.stderr
    assert made.is_dir()
    assert "MODEL-CALLED" in done.stdout
