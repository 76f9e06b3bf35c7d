"""``dsh hooks why``: every reason a declared hook does not run, each in a test of its own.

Through the real command (a project's settings, its trust record under a temporary HOME)
and, for a managed policy (whose file is fixed on disk), through ``explain_hooks`` with a
managed settings file of the test's own. ``dsh log ID --hooks --why`` shows the same for
the hooks a real session left out.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks.claude import ClaudeCodeProfile, explain_hooks, generated_payload, load_catalog
from tests.cli.support import run_dsh


def hook(command: str, **fields: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, **fields}


def settings(
    project: Path, hooks: dict[str, Any], name: str = "settings.json", **more: Any
) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / name).write_text(json.dumps({"hooks": hooks, **more}))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "home").mkdir()
    return root


def dsh(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_dsh(
        *args, "--project", str(project), cwd=project, env={"HOME": str(project.parent / "home")}
    )


def why(project: Path, *args: str, trust: bool = True) -> str:
    if trust:
        assert dsh(project, "hooks", "trust").returncode == 0
    done = dsh(project, "hooks", "why", *args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


BASH_LS = ("PreToolUse", "--tool", "Bash", "--input", '{"command": "ls"}')


def test_runs(project: Path) -> None:
    settings(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("echo ok")]}]})
    out = why(project, *BASH_LS)
    assert out.splitlines() == [
        'PreToolUse (claude) for Bash {"command": "ls"}:',
        "runs     .claude/settings.json: PreToolUse[0][0]: echo ok",
        "1 handler(s): 1 run(s), 0 skipped",
    ]


def test_untrusted(project: Path) -> None:
    settings(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("echo ok")]}]})
    out = why(project, *BASH_LS, trust=False)
    assert "skipped  .claude/settings.json: PreToolUse[0][0]: echo ok" in out
    assert "untrusted: project hook not trusted yet (`dsh hooks trust` trusts it as it is)" in out


def test_changed(project: Path) -> None:
    (project / "guard.sh").write_text("exit 0\n")
    settings(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("sh ./guard.sh")]}]})
    assert dsh(project, "hooks", "trust").returncode == 0
    (project / "guard.sh").write_text("exit 2\n")
    out = why(project, *BASH_LS, trust=False)
    assert "changed: project hook changed since trusted" in out


def test_matcher(project: Path) -> None:
    settings(project, {"PreToolUse": [{"matcher": "Write|Edit", "hooks": [hook("echo w")]}]})
    out = why(project, *BASH_LS)
    assert "matcher: its matcher 'Write|Edit' does not select tool_name 'Bash'" in out


def test_if(project: Path) -> None:
    settings(
        project,
        {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("echo g", **{"if": "Bash(git *)"})]}]},
    )
    out = why(project, *BASH_LS)
    assert "if: its `if` rule 'Bash(git *)' does not admit this Bash call" in out
    assert "runs" in why(
        project, "PreToolUse", "--tool", "Bash", "--input", '{"command": "git push"}'
    )


def test_disabled(project: Path) -> None:
    settings(project, {"Stop": [{"hooks": [hook("echo s")]}]})
    settings(project, {}, "settings.local.json", disableAllHooks=True)
    out = why(project, "Stop")
    assert "skipped  .claude/settings.json: (every hook in it)" in out
    assert (
        "disabled: hooks not loaded: `disableAllHooks` is true in .claude/settings.local.json"
        in out
    )


def test_policy(project: Path, tmp_path: Path) -> None:
    settings(project, {"Stop": [{"hooks": [hook("echo s")]}]})
    managed = tmp_path / "managed-settings.json"
    managed.write_text(json.dumps({"allowManagedHooksOnly": True}))
    home = tmp_path / "home"
    catalog = load_catalog(project, home=home, managed_path=managed, env={})
    payload = generated_payload("Stop", project)
    (selection,) = explain_hooks(catalog, "Stop", payload)
    assert (selection.code, selection.command) == ("policy", "(every hook in it)")
    assert "managed settings set `allowManagedHooksOnly`" in selection.reason
    profile = ClaudeCodeProfile(home=home, managed_path=managed, trust_dir=tmp_path / "trust")
    assert (
        explain_hooks(catalog, "Stop", payload, review=profile.review(project))[0].code == "policy"
    )


def test_deduplicated(project: Path) -> None:
    settings(
        project,
        {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [hook("echo a")]},
                {"hooks": [hook("echo a")]},
            ]
        },
    )
    out = why(project, *BASH_LS).splitlines()
    assert out[1] == "runs     .claude/settings.json: PreToolUse[0][0]: echo a"
    assert out[2] == "skipped  .claude/settings.json: PreToolUse[1][0]: echo a"
    assert out[3] == (
        "         deduplicated: an identical command runs already"
        " (.claude/settings.json: PreToolUse[0][0])"
    )


def test_unsupported_event(project: Path) -> None:
    settings(project, {"TeammateIdle": [{"hooks": [hook("echo t")]}]})
    out = why(project, "TeammateIdle")
    assert "skipped  .claude/settings.json: TeammateIdle[0][0]" in out
    assert (
        "unsupported: `TeammateIdle` is not supported by this host: dsh has no agent teams" in out
    )


def test_timeout(project: Path) -> None:
    settings(project, {"Stop": [{"hooks": [hook("echo s", timeout=-1)]}]})
    out = why(project, "Stop")
    assert "timeout: `timeout`: Input should be greater than 0 (got -1)" in out
    assert "invalid: the whole file was skipped" in out  # Claude Code skips the whole file


def test_codex_untrusted_and_matcher(project: Path) -> None:
    codex_home = project.parent / "home" / ".codex"
    codex_home.mkdir(parents=True)

    def group(matcher: str, command: str) -> dict[str, Any]:
        return {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}

    (codex_home / "hooks.json").write_text(
        json.dumps(
            {"hooks": {"PreToolUse": [group("^Bash$", "echo b"), group("^apply_patch$", "echo p")]}}
        )
    )
    done = dsh(project, "hooks", "why", *BASH_LS, "--bridge", "codex")
    assert done.returncode == 0, done.stderr
    assert f"skipped  {codex_home}/hooks.json: PreToolUse[0][0]: echo b" in done.stdout
    assert "untrusted: not trusted in Codex's config.toml" in done.stdout


def test_a_sessions_call_and_the_log_say_why(project: Path, tmp_path: Path) -> None:
    settings(
        project,
        {"PreToolUse": [
            {"matcher": "Write", "hooks": [hook("echo w")]},
            {"matcher": "Bash", "hooks": [hook("echo g", **{"if": "Bash(git *)"})]},
            {"matcher": "Bash", "hooks": [hook("echo b")]},
        ]},
    )  # fmt: skip
    script = tmp_path / "script.json"
    replies = [
        [{"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}],
        [{"type": "text", "text": "ok"}],
    ]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": replies}]}}))
    sessions = tmp_path / "sessions"
    ran = dsh(
        project,
        "run",
        "list",
        "--model",
        f"scripted:{script}",
        "--session-dir",
        str(sessions),
        "--trust-project",
    )
    assert ran.returncode == 0, ran.stderr
    (log,) = sessions.glob("*.jsonl")
    out = why(
        project, "PreToolUse", "--session", log.stem, "--call", "1", "--session-dir", str(sessions)
    )
    assert out.splitlines()[0] == 'PreToolUse (claude) for Bash {"command": "ls"}:'
    assert "3 handler(s): 1 run(s), 2 skipped" in out
    env = {"HOME": str(tmp_path / "home")}
    shown = run_dsh(
        "log", log.stem, "--session-dir", str(sessions), "--hooks", "--why", cwd=project, env=env
    )
    lines = shown.stdout.splitlines()
    (head,) = [i for i, line in enumerate(lines) if "hook/skipped" in line]
    assert lines[head].endswith("PreToolUse: 2 handler(s) did not run")
    assert (
        lines[head + 2].strip() == "matcher: its matcher 'Write' does not select tool_name 'Bash'"
    )
    assert (
        lines[head + 4].strip() == "if: its `if` rule 'Bash(git *)' does not admit this Bash call"
    )
    plain = run_dsh(
        "log", log.stem, "--session-dir", str(sessions), "--hooks", cwd=project, env=env
    )
    assert "hook/skipped" not in plain.stdout  # without --why the timeline is as it was
