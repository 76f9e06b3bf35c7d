"""``dsh run --worktree [NAME]``: the session in a git worktree, as Claude Code 2.1.332 makes it
(``tests/fixtures/claude_worktree.json``, recorded by ``benchmarks/record_claude_worktree.py``).

Real git repositories in temp folders, the real loop with a scripted model, a real hook process.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import dsh, write_script

RECORDED = json.loads(
    (Path(__file__).parent.parent / "fixtures" / "claude_worktree.json").read_text()
)
SHOW = "(pwd; git branch --show-current) > where.txt"
NOTE = (
    "import json, os, sys\n"
    "p = json.load(sys.stdin)\n"
    "line = {'event': p['hook_event_name'], 'cwd': p['cwd'], 'process_cwd': os.getcwd(),"
    " 'project_dir': os.environ.get('CLAUDE_PROJECT_DIR')}\n"
    "open(sys.argv[1], 'a').write(json.dumps(line) + '\\n')\n"
)


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("sample\n")
    _git(root, "add", "README.md")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "init")
    return root


def _bash(command: str) -> dict[str, Any]:
    return {"type": "tool_use", "name": "Bash", "input": {"command": command}}


def _hooked(tmp_path: Path, repo: Path) -> Path:
    """A SessionStart and a PreToolUse hook noting their cwd and CLAUDE_PROJECT_DIR."""
    record, hook = tmp_path / "hooks.jsonl", tmp_path / "note.py"
    hook.write_text(NOTE)
    handler = {"type": "command", "command": f"{sys.executable} {hook} {record}"}
    hooks = {e: [{"hooks": [handler]}] for e in ("SessionStart", "PreToolUse")}
    (tmp_path / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return record


def test_worktree_runs_the_session_in_a_new_git_worktree_and_keeps_it(
    tmp_path: Path, repo: Path
) -> None:
    recorded = RECORDED["flag-native"]
    record = _hooked(tmp_path, repo)
    script = write_script(tmp_path / "s.json", [[_bash(SHOW)], [{"type": "text", "text": "ok"}]])
    args = ["--model", f"scripted:{script}", "--settings", str(tmp_path / "settings.json")]
    args += ["--permission-mode", "bypassPermissions"]
    done = dsh("run", *args, "--worktree", "sample-wt", "--output-format", "json", "go", cwd=repo)
    assert done.returncode == 0, done.stderr
    where = repo / ".claude" / "worktrees" / "sample-wt"
    # 2.1.332: the tool ran in the worktree, on branch worktree-<name>.
    assert recorded["model_view"][0]["seen"][0]["tool_result"]["content"].splitlines()[:2] == [
        "${PROJECT_DIR}/.claude/worktrees/sample-wt",
        "worktree-sample-wt",
    ]
    assert (where / "where.txt").read_text() == f"{where}\nworktree-sample-wt\n"
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert [line["event"] for line in lines] == ["SessionStart", "PreToolUse"]
    for line in lines:  # every hook: payload cwd, process cwd and CLAUDE_PROJECT_DIR
        assert line["cwd"] == line["process_cwd"] == line["project_dir"] == str(where)
    # Kept afterwards, registered, on its own branch from the repository's HEAD.
    assert _git(repo, "branch", "--format=%(refname:short)") == "main\nworktree-sample-wt"
    assert recorded["after"]["branches"] == "main\nworktree-sample-wt"
    assert f"worktree {where}" in _git(repo, "worktree", "list", "--porcelain")
    assert _git(where, "rev-parse", "HEAD") == _git(repo, "rev-parse", "HEAD")
    # A second run with the same name reopens it.
    again = dsh("run", *args, "-w", "sample-wt", "go", cwd=repo)
    assert again.returncode == 0, again.stderr
    assert _git(repo, "branch", "--format=%(refname:short)").count("worktree-") == 1


def test_worktree_without_a_name_generates_one(tmp_path: Path, repo: Path) -> None:
    script = write_script(tmp_path / "s.json", [[{"type": "text", "text": "ok"}]])
    done = dsh("run", "--model", f"scripted:{script}", "go", "--worktree", cwd=repo)
    assert done.returncode == 0, done.stderr
    names = [p.name for p in (repo / ".claude" / "worktrees").iterdir()]
    assert len(names) == 1
    # 2.1.332's shape: humming-enchanting-rabin.
    shape = r"^[a-z]+-[a-z]+-[a-z]+$"
    recorded = RECORDED["flag-native-noname"]["after"]["claude_worktrees"][0]
    assert re.match(shape, recorded.rsplit("/", 1)[1])
    assert re.match(shape, names[0])
    assert f"worktree-{names[0]}" in _git(repo, "branch", "--format=%(refname:short)")


@pytest.mark.parametrize(
    ("case", "name"), [("flag-bad-name", "../evil"), ("flag-not-git", "sample-wt")]
)
def test_worktree_refusals_are_claude_codes(
    tmp_path: Path, repo: Path, case: str, name: str
) -> None:
    project = repo
    if case == "flag-not-git":
        project = tmp_path / "plain"
        project.mkdir()
    script = write_script(tmp_path / "s.json", [[{"type": "text", "text": "MODEL-CALLED"}]])
    done = dsh("run", "--model", f"scripted:{script}", "--worktree", name, "go", cwd=project)
    assert done.returncode == RECORDED[case]["exit_code"] == 1
    words = RECORDED[case]["stderr"].strip().replace("${PROJECT_DIR}", str(project))
    assert done.stderr.strip() == f"dsh: {words}"
    assert "MODEL-CALLED" not in done.stdout
    assert not (project / ".claude").exists()


AGENT = (
    "---\nname: wt-helper\ndescription: Helper that runs in its own worktree\ntools: Bash\n"
    "isolation: worktree\n---\nYou are a worktree helper.\n"
)


@pytest.mark.parametrize("changes", [False, True])
def test_an_isolated_subagent_works_in_its_own_worktree(
    tmp_path: Path, repo: Path, changes: bool
) -> None:
    case = RECORDED["subagent-native-changed" if changes else "subagent-native"]
    (repo / ".claude" / "agents").mkdir(parents=True)
    (repo / ".claude" / "agents" / "wt-helper.md").write_text(AGENT)
    record = _hooked(tmp_path, repo)
    child_call = "pwd > where.txt" if changes else "pwd"
    child = [[_bash(child_call)], [{"type": "text", "text": "sub done"}]]
    delegate: dict[str, Any] = {"description": "d", "prompt": "SUBTASK: run pwd"}
    delegate |= {"subagent_type": "wt-helper", "run_in_background": False}
    parent = [
        [{"type": "tool_use", "name": "Agent", "input": delegate}],
        [_bash("pwd")],
        [{"type": "text", "text": "parent done"}],
    ]
    rules = [{"first_user_contains": "SUBTASK", "responses": child}, {"responses": parent}]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"anthropic": {"rules": rules}}))
    args = ["--model", f"scripted:{script}", "--settings", str(tmp_path / "settings.json")]
    args += ["--permission-mode", "bypassPermissions", "--output-format", "stream-json"]
    done = dsh("run", *args, "--verbose", "go", cwd=repo)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    child_cwds = {line["cwd"] for line in lines if "/.claude/worktrees/agent-a" in line["cwd"]}
    assert len(child_cwds) == 1  # the child's PreToolUse: cwd the worktree
    [where] = child_cwds
    assert re.fullmatch(rf"{re.escape(str(repo))}/\.claude/worktrees/agent-a[0-9a-f]{{16}}", where)
    for line in lines:  # payload and process cwd agree; CLAUDE_PROJECT_DIR stays the project
        assert line["cwd"] == line["process_cwd"]
        assert line["project_dir"] == str(repo)
    assert [line["cwd"] for line in lines][-1] == str(repo)  # the parent's next call
    branches = _git(repo, "branch", "--format=%(refname:short)").splitlines()
    result = next(
        block
        for event in map(json.loads, done.stdout.splitlines())
        if event.get("type") == "user"
        for block in event["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    )
    text = json.dumps(result)
    name = where.rsplit("/", 1)[1]
    if changes:  # kept, and named in the result, as recorded
        assert case["after"]["claude_worktrees"] == [f".claude/worktrees/{case_name(case)}"]
        assert Path(where, "where.txt").read_text() == f"{where}\n"
        assert branches == ["main", f"worktree-{name}"]
        assert f"worktreePath: {where}\\nworktreeBranch: worktree-{name}\\n<usage>" in text
    else:  # removed with its branch, as recorded
        assert case["after"]["claude_worktrees"] == []
        assert not Path(where).exists()
        assert branches == ["main"]
        assert "worktreePath" not in text


def case_name(case: dict[str, Any]) -> str:
    return str(case["after"]["claude_worktrees"][0]).rsplit("/", 1)[1]


def test_a_failing_worktree_create_hook_fails_the_agent_call(tmp_path: Path, repo: Path) -> None:
    recorded = RECORDED["subagent-hook-exit2"]
    (repo / ".claude" / "agents").mkdir(parents=True)
    (repo / ".claude" / "agents" / "wt-helper.md").write_text(AGENT)
    hook = {"type": "command", "command": "echo CASE-WT-REFUSED >&2; exit 2"}
    (tmp_path / "settings.json").write_text(
        json.dumps({"hooks": {"WorktreeCreate": [{"hooks": [hook]}]}})
    )
    delegate: dict[str, Any] = {"description": "d", "prompt": "SUBTASK: run pwd"}
    delegate |= {"subagent_type": "wt-helper", "run_in_background": False}
    parent = [[{"type": "tool_use", "name": "Agent", "input": delegate}], [_bash("pwd")]]
    parent.append([{"type": "text", "text": "parent done"}])
    rules = [{"first_user_contains": "SUBTASK", "responses": [[_bash("echo CHILD-RAN")]]}]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"anthropic": {"rules": [*rules, {"responses": parent}]}}))
    args = ["--model", f"scripted:{script}", "--settings", str(tmp_path / "settings.json")]
    args += ["--permission-mode", "bypassPermissions", "--output-format", "stream-json"]
    done = dsh("run", *args, "--verbose", "go", cwd=repo)
    assert done.returncode == 0, done.stderr
    [first, *_] = [
        block
        for event in map(json.loads, done.stdout.splitlines())
        if event.get("type") == "user"
        for block in event["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    theirs = recorded["model_view"][0]["seen"][0]["tool_result"]
    assert first["is_error"] is theirs["is_error"] is True
    # 2.1.332 names the failed hook's command and its stderr.
    words = theirs["content"].replace("python3 ${HOOK} WorktreeCreate", hook["command"])
    assert first["content"] in (words, [{"type": "text", "text": words}])
    assert "CHILD-RAN" not in done.stdout
    assert not (repo / ".claude" / "worktrees").exists()
    assert _git(repo, "branch", "--format=%(refname:short)") == "main"


@pytest.mark.parametrize("changes", [False, True])
def test_a_background_isolated_subagents_notification_names_its_kept_worktree(
    tmp_path: Path, repo: Path, changes: bool
) -> None:
    (repo / ".claude" / "agents").mkdir(parents=True)
    (repo / ".claude" / "agents" / "wt-helper.md").write_text(AGENT)
    prompts, hook = tmp_path / "prompts.jsonl", tmp_path / "prompt.py"
    hook.write_text(
        "import json, sys\n"
        "p = json.load(sys.stdin)\n"
        "open(sys.argv[1], 'a').write(json.dumps(p['prompt']) + '\\n')\n"
    )
    handler = {"type": "command", "command": f"{sys.executable} {hook} {prompts}"}
    (tmp_path / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [handler]}]}})
    )
    child = [[_bash("pwd > where.txt" if changes else "pwd")], [{"type": "text", "text": "ok"}]]
    delegate = {"description": "d", "prompt": "SUBTASK: run pwd", "subagent_type": "wt-helper"}
    parent = [
        [{"type": "tool_use", "name": "Agent", "input": delegate}],
        [{"type": "text", "text": "launched"}],
        [{"type": "text", "text": "told"}],
    ]
    rules = [{"first_user_contains": "SUBTASK", "responses": child}, {"responses": parent}]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"anthropic": {"rules": rules}}))
    args = ["--model", f"scripted:{script}", "--settings", str(tmp_path / "settings.json")]
    done = dsh("run", *args, "--permission-mode", "bypassPermissions", "go", cwd=repo)
    assert done.returncode == 0, done.stderr
    _, notification = [json.loads(line) for line in prompts.read_text().splitlines()]
    assert notification.startswith("<task-notification>")
    worktrees = list((repo / ".claude" / "worktrees").iterdir())
    if changes:  # kept: 2.1.332's line after <usage>, with git's branch
        (where,) = worktrees
        line = (
            f"\n<worktree><worktreePath>{where}</worktreePath>"
            f"<worktreeBranch>worktree-{where.name}</worktreeBranch></worktree>\n"
        )
        assert f"</usage>{line}</task-notification>" in notification
    else:  # removed when the child ended: no line
        assert worktrees == []
        assert "<worktree>" not in notification
