"""Protected names that do not exist yet: a sandboxed command cannot create them, and the
placeholders that stand for them leave nothing behind, kill -9 of dsh included.

Each command is a real Bash call under ``workspace-write`` in a project that has none of
the protected names; the placeholders are read-only in the command's mount namespace.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dsh.base import freeze_json
from dsh.base._sandbox import SandboxPolicy, sandbox_mechanism
from dsh.base._sandbox_placeholders import release_placeholders
from dsh.tools import ToolInvocation, ToolResult, Workspace
from dsh.tools.builtin import BASH_TOOL
from tests.cli.support import run_dsh

pytestmark = pytest.mark.skipif(
    sandbox_mechanism()[0] is None, reason=f"no sandbox here: {sandbox_mechanism()[1]}"
)

_POLICY = SandboxPolicy(mode="workspace-write", exclude_slash_tmp=True, exclude_tmpdir_env_var=True)
_ATTEMPTS = [
    "mkdir .git",  # File exists
    "touch .git",  # Read-only file system (its times)
    "echo '[core]' > .git/config",  # Read-only file system
    "mkdir y && mv -T y .git",  # rename onto it: Device or resource busy
    "echo x > f && mv -T f .codex",  # a file onto it
    "ln -s /tmp .agents/x",  # beneath it
    "ln -sfT /tmp .dsh",  # a symlink onto it
    "rm -rf .aws",  # Device or resource busy
    "mkdir -p .claude/agents",  # .claude missing: .claude itself stands in
    "echo '{\"hooks\": {}}' > .claude/settings.json",
]


def _bash(workspace: Workspace, command: str) -> ToolResult:
    async def run() -> ToolResult:
        args = freeze_json({"command": command})
        return await BASH_TOOL.run(ToolInvocation("Bash", args, workspace))

    return asyncio.run(run())


def _names(project: Path) -> list[str]:
    return sorted(p.name for p in project.iterdir())


def test_a_missing_protected_name_cannot_be_created(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    workspace = Workspace(cwd=project, sandbox=_POLICY)
    try:
        results = [_bash(workspace, command) for command in _ATTEMPTS]
        assert [r.is_error for r in results] == [True] * len(_ATTEMPTS), [r.text for r in results]
        assert "File exists" in results[0].text
        assert "Read-only file system" in results[1].text
        assert "Device or resource busy" in results[3].text
        assert results[2].info == {"sandbox": "workspace-write"}  # on-failure offers a rerun
        done = _bash(
            workspace, "echo in > in.txt && mkdir sub && find .git .claude -mindepth 1 | wc -l"
        )
        assert not done.is_error, done.text
        assert done.text.split()[-1] == "0"  # the placeholders are empty
    finally:
        release_placeholders()
    # The placeholders are gone; what the commands made elsewhere stays.
    assert _names(project) == ["f", "in.txt", "sub", "y"]


def test_settings_files_missing_in_an_existing_claude_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude" / "agents").mkdir(parents=True)
    workspace = Workspace(cwd=project, sandbox=_POLICY)
    try:
        commands = [
            "echo '{}' > .claude/settings.local.json",
            "echo x > s && mv s .claude/settings.json",
            "cat .claude/settings.json && echo agent > .claude/agents/a.md",
        ]
        results = [_bash(workspace, command) for command in commands]
        assert [r.is_error for r in results] == [True, True, False], [r.text for r in results]
        assert results[2].text.startswith("{}")  # what reads as no settings
    finally:
        release_placeholders()
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["agents"]
    assert (project / ".claude" / "agents" / "a.md").read_text() == "agent\n"


def test_an_existing_name_that_is_not_a_placeholder_is_never_removed(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".codex").mkdir(parents=True)  # empty, but the user's
    workspace = Workspace(cwd=project, sandbox=_POLICY)
    try:
        assert _bash(workspace, "touch .codex/x").is_error
    finally:
        release_placeholders()
    assert _names(project) == [".codex"]


def test_kill_9_of_dsh_mid_command_leaves_no_placeholder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".dsh").mkdir(parents=True)
    (project / ".dsh" / "config.toml").write_text('sandbox_mode = "workspace-write"\n')
    started = tmp_path / "started"
    call = {"command": f"touch {started}; sleep 60"}
    script = tmp_path / "script.json"
    responses = [
        [{"type": "tool_use", "name": "Bash", "input": call}],
        [{"type": "text", "text": "."}],
    ]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), "--permission-mode", "bypassPermissions"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "dsh", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert started.exists(), "the sandboxed command did not start"
        # Mid-command: the placeholders stand in the project.
        assert os.stat(project / ".git").st_mtime_ns == 0
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 15
    while _names(project) != [".dsh"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _names(project) == [".dsh"]


def test_a_session_s_end_removes_the_placeholders_at_once(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".dsh").mkdir(parents=True)
    (project / ".dsh" / "config.toml").write_text('sandbox_mode = "workspace-write"\n')
    call = {"command": "mkdir .git; ls -A | sort | tr '\\n' ' '"}
    script = tmp_path / "script.json"
    responses = [
        [{"type": "tool_use", "name": "Bash", "input": call}],
        [{"type": "text", "text": "."}],
    ]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "s"), "--permission-mode", "bypassPermissions"]
    done = run_dsh(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [log] = (tmp_path / "s").glob("*.jsonl")
    [result] = [
        e for e in map(json.loads, log.read_text().splitlines()) if e["type"] == "tool/result"
    ]
    assert "File exists" in result["content"]
    assert ".claude .codex .dsh .git" in result["content"]  # standing in for the command
    assert _names(project) == [".dsh"]  # gone when dsh returned, not later


def test_a_project_where_no_placeholder_can_be_made_still_runs_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder the user cannot write in: the command cannot make the names there either.
    def refused(path: Path, is_dir: bool) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("dsh.base._sandbox_placeholders._make", refused)
    project = tmp_path / "project"
    project.mkdir()
    try:
        done = _bash(Workspace(cwd=project, sandbox=_POLICY), "echo ran")
    finally:
        release_placeholders()
    assert not done.is_error, done.text
    assert "ran" in done.text
