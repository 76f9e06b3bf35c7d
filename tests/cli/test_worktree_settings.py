"""Claude Code's ``worktree`` settings under ``dsh run --worktree``: ``baseRef``, ``sparsePaths``,
``symlinkDirectories`` as 2.1.332 follows them (``flag-baseref-*``,
``flag-settings-sparse-symlink`` in ``tests/fixtures/claude_worktree.json``, recorded by
``benchmarks/record_claude_worktree.py``); ``--tmux``, which dsh does not offer, refused.

Real git repositories in temp folders (a bare clone as ``origin``), the real loop with a
scripted model.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.cli.test_cli import dsh, write_script
from tests.cli.test_worktree import RECORDED, _git

LIST = "find . -path ./.git -prune -o -print | sort"


def _commit(root: Path, message: str) -> None:
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", message)


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for rel, text in {"README.md": "sample\n", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _commit(root, "init")
    return root


def _run(tmp_path: Path, repo: Path, settings: dict[str, Any], name: str, *tools: str) -> Any:
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    calls = [[{"type": "tool_use", "name": "Bash", "input": {"command": c}}] for c in tools]
    script = write_script(tmp_path / "s.json", [*calls, [{"type": "text", "text": "ok"}]])
    args = ["--model", f"scripted:{script}", "--settings", str(tmp_path / "settings.json")]
    args += ["--permission-mode", "bypassPermissions", "--output-format", "stream-json"]
    return dsh("run", *args, "--verbose", "--worktree", name, "go", cwd=repo)


def _tool_results(stdout: str) -> list[str]:
    return [
        block["content"] if isinstance(block["content"], str) else block["content"][0]["text"]
        for event in map(json.loads, stdout.splitlines())
        if event.get("type") == "user"
        for block in event["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def test_sparse_paths_and_symlink_directories_shape_the_new_worktree(tmp_path: Path) -> None:
    recorded = RECORDED["flag-settings-sparse-symlink"]
    repo = _repo(tmp_path, {"a/one.txt": "one\n", "b/two.txt": "two\n", "top.txt": "top\n"})
    for rel in ("node_modules/pkg.txt", "cache/c.txt"):  # untracked, as in the recording
        (repo / rel).parent.mkdir()
        (repo / rel).write_text("x\n")
    worktree = {
        "sparsePaths": ["a"],
        "symlinkDirectories": ["node_modules", "missing", "../outside", "/abs", "a"],
    }
    done = _run(tmp_path, repo, {"worktree": worktree}, "sample-wt", LIST)
    assert done.returncode == recorded["exit_code"] == 0, done.stderr
    [listing] = _tool_results(done.stdout)
    theirs = recorded["model_view"][0]["seen"][0]["tool_result"]["content"]
    # The checkout has the top files and `a` only; `node_modules` is linked, nothing else.
    assert listing.splitlines() == [line for line in theirs.splitlines() if line[:1] == "."]
    where = repo / ".claude" / "worktrees" / "sample-wt"
    assert "node_modules -> ${PROJECT_DIR}/node_modules" in theirs
    assert os.readlink(where / "node_modules") == str(repo / "node_modules")
    assert not (where / "a").is_symlink()
    assert not (tmp_path / "outside").exists()


def test_base_ref_fresh_branches_from_origin_and_head_from_head(tmp_path: Path) -> None:
    """``flag-baseref-fresh``: the worktree starts at ``origin``'s default branch (a commit
    behind the local ``main``); ``flag-baseref-head``: at the local ``HEAD``."""
    repo = _repo(tmp_path, {})
    bare = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    _git(repo, "remote", "add", "origin", str(bare))
    _git(repo, "fetch", "-q", "origin")
    _git(repo, "remote", "set-head", "origin", "main")
    (repo / "local.txt").write_text("local only\n")
    _commit(repo, "local")
    head, origin = _git(repo, "rev-parse", "HEAD"), _git(repo, "rev-parse", "origin/HEAD")
    assert head != origin
    for case, settings, name, expected in (
        ("flag-baseref-fresh", {}, "fresh-wt", origin),
        ("flag-baseref-head", {"worktree": {"baseRef": "head"}}, "head-wt", head),
    ):
        recorded = RECORDED[case]["after"]
        started = recorded["worktree_list"].split("\n\n")[1].splitlines()[1]
        mine = "origin" if case.endswith("fresh") else "HEAD"
        assert started == f"HEAD {recorded['heads'][mine]}"
        done = _run(tmp_path, repo, settings, name)
        assert done.returncode == 0, done.stderr
        assert _git(repo / ".claude" / "worktrees" / name, "rev-parse", "HEAD") == expected


def test_tmux_is_refused_in_words(tmp_path: Path) -> None:
    done = dsh("run", "--worktree", "x", "--tmux", "go", cwd=tmp_path)
    assert done.returncode == 2
    assert "--tmux: dsh does not open sessions in tmux" in done.stderr
    assert not (tmp_path / ".claude").exists()


def test_a_worktree_setting_of_the_wrong_type_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    bad = {"worktree": {"baseRef": "sideways", "sparsePaths": "a"}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(bad))
    done = dsh("hooks", "check", cwd=tmp_path)
    assert '`worktree.baseRef` must be "fresh" or "head", not "sideways"; ignored' in done.stdout
    assert "`worktree.sparsePaths` must be a list of strings; ignored" in done.stdout


HELPER = (
    "---\nname: wt-helper\ndescription: Helper that runs in its own worktree\ntools: Bash\n"
    "isolation: worktree\n---\nYou are a worktree helper.\n"
)


def test_an_isolated_subagents_worktree_follows_the_settings(tmp_path: Path) -> None:
    """2.1.332 makes an ``isolation: worktree`` subagent's worktree with ``--worktree``'s
    function: ``baseRef``, ``sparsePaths`` and ``symlinkDirectories`` shape it too."""
    repo = _repo(tmp_path, {"a/one.txt": "one\n", "b/two.txt": "two\n"})
    bare = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    _git(repo, "remote", "add", "origin", str(bare))
    _git(repo, "fetch", "-q", "origin")
    _git(repo, "remote", "set-head", "origin", "main")
    (repo / "a" / "local.txt").write_text("local only\n")
    _commit(repo, "local")
    (repo / "node_modules").mkdir()
    (repo / "node_modules" / "pkg.txt").write_text("x\n")
    (repo / ".claude" / "agents").mkdir(parents=True)
    (repo / ".claude" / "agents" / "wt-helper.md").write_text(HELPER)
    worktree = {"baseRef": "head", "sparsePaths": ["a"], "symlinkDirectories": ["node_modules"]}
    (tmp_path / "settings.json").write_text(json.dumps({"worktree": worktree}))
    bash = "Bash"
    child = [
        [{"type": "tool_use", "name": bash, "input": {"command": f"{LIST} > ../list.txt"}}],
        [{"type": "text", "text": "sub done"}],
    ]
    delegate: dict[str, Any] = {"description": "d", "prompt": "SUBTASK: list"}
    delegate |= {"subagent_type": "wt-helper"}
    delegate |= {"run_in_background": False}
    parent = [
        [{"type": "tool_use", "name": "Agent", "input": delegate}],
        [{"type": "text", "text": "parent done"}],
    ]
    rules = [{"first_user_contains": "SUBTASK", "responses": child}, {"responses": parent}]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"anthropic": {"rules": rules}}))
    args = ["--model", f"scripted:{script}", "--settings", str(tmp_path / "settings.json")]
    args += ["--permission-mode", "bypassPermissions", "--output-format", "stream-json"]
    done = dsh("run", *args, "--verbose", "go", cwd=repo)
    assert done.returncode == 0, done.stderr
    [where] = (repo / ".claude" / "worktrees").glob("agent-*")
    listing = (where.parent / "list.txt").read_text()
    # HEAD's commit (a/local.txt, which origin lacks), `a` only, node_modules linked.
    assert listing.splitlines() == [
        ".", "./README.md", "./a", "./a/local.txt", "./a/one.txt", "./node_modules"
    ]  # fmt: skip
    assert os.readlink(where / "node_modules") == str(repo / "node_modules")
    assert _git(where, "rev-parse", "HEAD") == _git(repo, "rev-parse", "HEAD")
