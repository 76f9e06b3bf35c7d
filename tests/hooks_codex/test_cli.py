"""``dsh run --hooks codex`` and ``dsh hooks check`` on Codex sources, as processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli.test_cli import dsh as run_dsh

DENY = (
    "import json; print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',"
    " 'permissionDecision': 'deny', 'permissionDecisionReason': 'CASE-NO'}}))"
)


def dsh(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """``dsh ARGS`` with no ``--trust-project`` (which would trust the Codex hooks too)."""
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    return run_dsh(*args, cwd=cwd, env_extra=env, trust=False)


def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    hook: dict[str, Any] = {"type": "command", "command": f'{sys.executable} -c "{DENY}"'}
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (project / ".codex" / "hooks.json").write_text(json.dumps(hooks))
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n'
    )
    script = tmp_path / "script.json"
    replies = [[{"type": "auto_shell", "command": "echo hi"}], [{"type": "text", "text": "ok"}]]
    script.write_text(json.dumps({"openai": {"rules": [{"responses": replies}]}}))
    return home, project, script


def test_run_applies_codex_hooks_only_when_trusted_or_bypassed(tmp_path: Path) -> None:
    home, project, script = setup(tmp_path)
    args: tuple[str, ...] = ("run", "--model", f"scripted:{script}", "--project", str(project))
    args += ("--session-dir", str(tmp_path / "s"))
    untrusted = dsh(*args, "--", "go", cwd=tmp_path, home=home)
    assert untrusted.returncode == 0, untrusted.stderr
    assert "codex hooks: PreToolUse[0][0]" in untrusted.stdout
    assert "not trusted yet" in untrusted.stdout
    assert "Command blocked" not in untrusted.stdout
    bypassed = dsh(*args, "--dangerously-bypass-hook-trust", "--", "go", cwd=tmp_path, home=home)
    assert bypassed.returncode == 0, bypassed.stderr
    assert "Command blocked by PreToolUse hook: CASE-NO. Command: echo hi" in bypassed.stdout
    # --hooks claude leaves the Codex suite out even though the project has one.
    claude = dsh(
        *args,
        "--hooks",
        "claude",
        "--dangerously-bypass-hook-trust",
        "--",
        "go",
        cwd=tmp_path,
        home=home,
    )
    assert "Command blocked" not in claude.stdout


def test_hooks_check_reports_codex_sources_and_untrusted_hooks(tmp_path: Path) -> None:
    home, project, _ = setup(tmp_path)
    check = dsh("hooks", "check", "--project", str(project), cwd=tmp_path, home=home)
    assert check.returncode == 1
    assert f"source: {project.resolve() / '.codex' / 'hooks.json'}" in check.stdout
    assert "untrusted: PreToolUse[0][0]" in check.stdout
    (project / ".codex" / "hooks.json").write_text('{"$schema": "x", "hooks": {}}')
    rejected = dsh("hooks", "check", "--project", str(project), cwd=tmp_path, home=home)
    assert rejected.returncode == 1
    assert "unknown field `$schema`; Codex rejects the whole file" in rejected.stdout


def test_run_offers_exec_command_and_settles_escalations_from_codex_config(tmp_path: Path) -> None:
    home, project, script = setup(tmp_path)
    (project / ".codex" / "hooks.json").unlink()
    escalate = {
        "type": "function_call",
        "name": "exec_command",
        "arguments": {
            "cmd": "touch made.txt",
            "sandbox_permissions": "require_escalated",
            "justification": "CASE-WHY",
        },
    }
    replies = [[escalate], [{"type": "text", "text": "ok"}]]
    script.write_text(json.dumps({"openai": {"rules": [{"responses": replies}]}}))
    args: tuple[str, ...] = ("run", "--model", f"scripted:{script}", "--project", str(project))
    args += ("--hooks", "codex", "--session-dir", str(tmp_path / "s"), "--", "go")
    never = dsh(*args, cwd=tmp_path, home=home)
    assert never.returncode == 0, never.stderr
    assert "approval policy is Never; reject command" in never.stdout
    config = home / ".codex" / "config.toml"
    config.write_text(
        'approval_policy = "on-request"\napprovals_reviewer = "auto_review"\n' + config.read_text()
    )
    asked = dsh(*args, cwd=tmp_path, home=home)
    assert asked.returncode == 0, asked.stderr
    assert "escalation declined" in asked.stdout  # headless, no hook answered
    assert not (project / "made.txt").exists()
