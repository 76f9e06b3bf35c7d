"""The shell sandbox through the real loop: ``dsh run`` with a scripted model, real commands.

Each run puts several commands through the sandbox and reads their results from the session
log. ``/tmp`` and ``$TMPDIR`` are excluded from the writable roots (``[sandbox_workspace_write]``)
so that ``tmp_path/outside`` is outside the sandbox, as a home directory would be.
"""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsh.base._sandbox import sandbox_mechanism
from tests.cli.support import run_dsh

pytestmark = pytest.mark.skipif(
    sandbox_mechanism()[0] is None, reason=f"no sandbox here: {sandbox_mechanism()[1]}"
)


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    """A loopback server that accepts connections (the port)."""
    with socket.create_server(("127.0.0.1", 0), backlog=16) as listener:
        yield listener.getsockname()[1]


def _config(project: Path, body: str) -> None:
    (project / ".dsh").mkdir(exist_ok=True)
    (project / ".dsh" / "config.toml").write_text(
        body + "\n[sandbox_workspace_write]\nexclude_slash_tmp = true\n"
        "exclude_tmpdir_env_var = true\n" + _extra.get(str(project), "")
    )


_extra: dict[str, str] = {}


def _run(
    tmp_path: Path,
    project: Path,
    commands: list[str],
    *flags: str,
    env: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Run ``commands`` as one scripted turn's Bash calls; their ``tool/result`` events."""
    calls = [
        [{"type": "tool_use", "name": "Bash", "input": {"command": command}}]
        for command in commands
    ]
    script = tmp_path / "script.json"
    responses = [*calls, [{"type": "text", "text": "done"}]]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    sessions = tmp_path / "sessions"
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(sessions), *flags]
    if "--permission-mode" not in flags:
        args += ["--permission-mode", "bypassPermissions"]
    done = run_dsh(*args, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    [log] = sessions.glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    results = [e for e in events if e["type"] == "tool/result"]
    assert len(results) == len(commands)
    return results


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "outside").mkdir()
    return root


def _connect(port: int) -> str:
    return f"{sys.executable} -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}))'"


def test_workspace_write_confines_writes_and_the_network(
    tmp_path: Path, project: Path, server: int
) -> None:
    _config(project, 'sandbox_mode = "workspace-write"')
    outside = tmp_path / "outside"
    results = _run(
        tmp_path,
        project,
        [
            "echo inside > in.txt && mkdir -p sub && echo deep > sub/f.txt",  # 0 allowed
            f"echo out > {outside}/a.txt",  # 1 outside the workspace
            "echo x > .git/HEAD",  # 2 .git is protected
            "mkdir .git/hooks2",  # 3 and beneath it
            f"ln -s {outside} link && echo x > link/b.txt",  # 4 through a symlink
            f"echo x > /proc/self/root{outside}/c.txt",  # 5 through /proc/self/root
            "echo x > /proc/self/cwd/../outside/d.txt",  # 6 through /proc/self/cwd
            "echo x > /proc/1/cwd/e.txt; ls /proc/$PPID/root/",  # 7 another process's /proc
            "grep NoNewPrivs /proc/self/status",  # 8 a setuid binary gains nothing
            f"{sys.executable} -c \"import os; os.setuid(0); open('{outside}/f.txt', 'w')\"",  # 9
            _connect(server),  # 10 no network
            "echo x > .dsh/config.toml",  # 11 dsh's own project configuration
        ],
    )
    errors = [r["is_error"] for r in results]
    assert errors == [False] + [True] * 7 + [False] + [True] * 3, [r["content"] for r in results]
    assert (project / "in.txt").read_text() == "inside\n"
    assert (project / "sub" / "f.txt").read_text() == "deep\n"
    assert list(outside.iterdir()) == []
    assert (project / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert not (project / ".git" / "hooks2").exists()
    assert "Read-only file system" in results[2]["content"]
    assert "NoNewPrivs:\t1" in results[8]["content"]
    assert "Operation not permitted" in results[10]["content"]
    assert results[1]["info"] == {"sandbox": "workspace-write"}


def test_network_access_lets_a_command_reach_the_server(
    tmp_path: Path, project: Path, server: int
) -> None:
    _extra[str(project)] = "network_access = true\n"
    _config(project, 'sandbox_mode = "workspace-write"')
    [result] = _run(tmp_path, project, [_connect(server) + " && echo connected"])
    assert result["is_error"] is False, result["content"]
    assert "connected" in result["content"]


def test_read_only_blocks_writes_in_the_project(tmp_path: Path, project: Path) -> None:
    (project / "readme.txt").write_text("hello\n")
    results = _run(
        tmp_path,
        project,
        ["cat readme.txt", "echo x > new.txt", "echo x >> readme.txt", "cd .. && pwd"],
        "-s",
        "read-only",
    )
    assert [r["is_error"] for r in results] == [False, True, True, False]
    assert not (project / "new.txt").exists()
    assert (project / "readme.txt").read_text() == "hello\n"


def test_background_shells_run_in_the_sandbox(tmp_path: Path, project: Path) -> None:
    _config(project, 'sandbox_mode = "workspace-write"')
    outside = tmp_path / "outside"
    command = f"echo bg > in-bg.txt; echo out > {outside}/bg.txt; echo finished > done.txt"
    calls = [
        [
            {
                "type": "tool_use",
                "name": "Bash",
                "input": {"command": command, "run_in_background": True},
            }
        ]
    ]
    calls.append(
        [
            {
                "type": "tool_use",
                "name": "Bash",
                "input": {"command": "while [ ! -f done.txt ]; do sleep 0.05; done"},
            }
        ]
    )
    script = tmp_path / "script.json"
    responses = [*calls, [{"type": "text", "text": "done"}]]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), "--permission-mode", "bypassPermissions"]
    done = run_dsh(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (project / "in-bg.txt").read_text() == "bg\n"
    assert list(outside.iterdir()) == []


def _permission_hook(project: Path, seen: Path, behavior: str | None) -> None:
    answer = (
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": behavior},
            }
        }
        if behavior
        else {}
    )
    hook = project / "hooks" / "answer.py"
    hook.parent.mkdir()
    hook.write_text(
        "import json, sys\n"
        "payload = json.load(sys.stdin)\n"
        "open(sys.argv[1], 'a').write(json.dumps(payload['tool_input']) + '\\n')\n"
        f"print(json.dumps({answer!r}))\n"
    )
    command = f"{sys.executable} {hook} {seen}"
    # Bash allowed by a rule: the one question left is the sandbox's escalation (default
    # mode: Claude Code fires PermissionRequest where it would show a prompt).
    settings = {
        "permissions": {"allow": ["Bash"]},
        "hooks": {"PermissionRequest": [{"hooks": [{"type": "command", "command": command}]}]},
    }
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))


@pytest.mark.parametrize("behavior", ["allow", "deny"])
def test_on_failure_offers_the_failed_command_outside_the_sandbox(
    tmp_path: Path, project: Path, behavior: str
) -> None:
    _config(project, 'sandbox_mode = "workspace-write"\napproval_policy = "on-failure"')
    seen = tmp_path / "seen.jsonl"
    _permission_hook(project, seen, behavior)
    outside = tmp_path / "outside"
    command = f"echo out > {outside}/a.txt"
    flags = ("--trust-project", "--permission-mode", "default")
    # A failure of its own (no denial's words) is not offered: as Codex guesses it.
    results = _run(tmp_path, project, ["test -e nothing-here", "echo in > in.txt", command], *flags)
    results = results[1:]
    # The sandboxed run failed; the PermissionRequest hook saw the escalation of that command.
    assert [json.loads(line) for line in seen.read_text().splitlines()] == [{"command": command}]
    assert (project / "in.txt").read_text() == "in\n"
    if behavior == "allow":
        assert results[1]["is_error"] is False, results[1]["content"]
        assert (outside / "a.txt").read_text() == "out\n"
    else:
        assert results[1]["is_error"] is True
        assert results[1]["info"] == {"sandbox": "workspace-write"}
        assert not (outside / "a.txt").exists()


def test_config_show_names_the_mechanism(tmp_path: Path) -> None:
    done = run_dsh("config", "show", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "sandbox:      landlock+seccomp (Landlock ABI" in done.stdout
    shown = json.loads(run_dsh("config", "show", "--json", cwd=tmp_path).stdout)
    assert shown["sandbox_mode"]["mechanism"] == "landlock+seccomp"


def test_the_sandbox_holds_without_dsh_namespace(tmp_path: Path, project: Path) -> None:
    # process_containment = "marks": no namespace to join; the child makes its own mount
    # namespace for the protected paths.
    _config(project, 'sandbox_mode = "workspace-write"')
    outside = tmp_path / "outside"
    commands = ["echo x > .git/HEAD", f"echo x > {outside}/a.txt", "echo in > in.txt"]
    results = _run(tmp_path, project, commands, env={"DSH_PROCESS_CONTAINMENT": "marks"})
    assert [r["is_error"] for r in results] == [True, True, False]
    assert (project / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert list(outside.iterdir()) == []
