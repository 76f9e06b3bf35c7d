"""Claude Code's ``sandbox`` settings and the asking approval policies, through the loop.

``tmp_path/outside`` is under ``/tmp``, writable in a ``workspace-write`` sandbox; the Claude
settings keep it read-only with ``filesystem.denyWrite``, and dsh's own configuration with
``exclude_slash_tmp``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.base._sandbox import sandbox_mechanism
from dsh.hooks.claude import load_catalog
from tests.cli.support import run_dsh

pytestmark = pytest.mark.skipif(
    sandbox_mechanism()[0] is None, reason=f"no sandbox here: {sandbox_mechanism()[1]}"
)


def _bash(command: str, **extra: Any) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "name": "Bash", "input": {"command": command, **extra}}]


def _run(tmp_path: Path, project: Path, calls: list[Any], *flags: str) -> tuple[list[Any], str]:
    script = tmp_path / "script.json"
    responses = [*calls, [{"type": "text", "text": "done"}]]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), *flags]
    done = run_dsh(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return [e for e in events if e["type"] == "tool/result"], done.stdout + done.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return root


def _settings(project: Path, name: str, sandbox: dict[str, Any]) -> None:
    (project / ".claude" / name).write_text(json.dumps({"sandbox": sandbox}))


BYPASS = ("--permission-mode", "bypassPermissions")


def test_claude_sandbox_settings_confine_bash(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "outside"
    sandbox = {"enabled": True, "excludedCommands": ["touch"]}
    _settings(
        project, "settings.local.json", {**sandbox, "filesystem": {"denyWrite": [str(outside)]}}
    )
    calls = [
        _bash(f"echo x > {outside}/a.txt"),  # denyWrite
        _bash(f"touch {outside}/b.txt"),  # an excluded command runs outside
        _bash(f"true; touch {outside}/c.txt"),  # not a simple command: sandboxed
        _bash(f"echo x > {outside}/d.txt", dangerouslyDisableSandbox=True),  # allowed to leave
        _bash("echo in > in.txt"),
    ]
    results, _ = _run(tmp_path, project, calls, *BYPASS)
    assert [r["is_error"] for r in results] == [True, False, True, False, False]
    assert sorted(p.name for p in outside.iterdir()) == ["b.txt", "d.txt"]
    assert "Read-only file system" in results[0]["content"]
    assert (project / "in.txt").read_text() == "in\n"


def test_a_project_cannot_widen_its_own_sandbox(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "outside"
    _settings(project, "settings.local.json", {"allowUnsandboxedCommands": False})
    sandbox = {
        "enabled": True,
        "excludedCommands": ["touch"],
        "filesystem": {"denyWrite": [str(outside)]},
    }
    _settings(project, "settings.json", sandbox)
    calls = [
        _bash(f"touch {outside}/a.txt"),
        _bash(f"echo x > {outside}/b.txt", dangerouslyDisableSandbox=True),
    ]
    results, _ = _run(tmp_path, project, calls, *BYPASS, "--trust-project")
    assert [r["is_error"] for r in results] == [True, True]
    assert list(outside.iterdir()) == []
    check = run_dsh("hooks", "check", "--project", str(project), cwd=tmp_path)
    assert "dsh does not take them from a project's shared settings" in check.stdout


def _permission_hook(project: Path, seen: Path, behavior: str) -> None:
    hook = project / "answer.py"
    hook.write_text(
        "import json, sys\n"
        "payload = json.load(sys.stdin)\n"
        "open(sys.argv[1], 'a').write(payload['tool_input']['command'] + '\\n')\n"
        "out = {'hookSpecificOutput': {'hookEventName': 'PermissionRequest',"
        f" 'decision': {{'behavior': {behavior!r}}}}}}}\n"
        "print(json.dumps(out))\n"
    )
    command = f"{sys.executable} {hook} {seen}"
    settings = {
        "permissions": {"allow": ["Bash"]},
        "hooks": {"PermissionRequest": [{"hooks": [{"type": "command", "command": command}]}]},
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))


def _dsh_config(project: Path, policy: str) -> None:
    (project / ".dsh").mkdir()
    (project / ".dsh" / "config.toml").write_text(
        f'sandbox_mode = "workspace-write"\napproval_policy = "{policy}"\n'
        "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
    )


def test_on_request_asks_before_a_call_leaves_the_sandbox(tmp_path: Path, project: Path) -> None:
    outside, seen = tmp_path / "outside", tmp_path / "seen.txt"
    _dsh_config(project, "on-request")
    _permission_hook(project, seen, "allow")
    calls = [
        _bash(f"echo x > {outside}/a.txt"),  # fails in the sandbox; nobody is asked
        _bash(f"echo x > {outside}/b.txt", dangerouslyDisableSandbox=True),  # asks, allowed
    ]
    flags = ("--trust-project", "--permission-mode", "default")
    results, _ = _run(tmp_path, project, calls, *flags)
    assert [r["is_error"] for r in results] == [True, False]
    assert seen.read_text().splitlines() == [f"echo x > {outside}/b.txt"]
    assert [p.name for p in outside.iterdir()] == ["b.txt"]


def test_never_ignores_a_request_to_leave(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "outside"
    _dsh_config(project, "never")
    calls = [_bash(f"echo x > {outside}/a.txt", dangerouslyDisableSandbox=True)]
    results, _ = _run(tmp_path, project, calls, *BYPASS)
    assert results[0]["is_error"] is True
    assert list(outside.iterdir()) == []


def test_untrusted_asks_but_for_known_safe_commands(tmp_path: Path, project: Path) -> None:
    seen = tmp_path / "seen.txt"
    _dsh_config(project, "untrusted")
    _permission_hook(project, seen, "deny")
    calls = [_bash("ls"), _bash("git status"), _bash("touch made.txt"), _bash("ls; touch x")]
    flags = ("--trust-project", "--permission-mode", "default")
    results, _ = _run(tmp_path, project, calls, *flags)
    assert seen.read_text().splitlines() == ["touch made.txt", "ls; touch x"]
    assert [r["is_error"] for r in results][2:] == [True, True]
    assert not (project / "made.txt").exists()


def test_deny_read_hides_a_file_and_a_directory(tmp_path: Path, project: Path) -> None:
    secrets = tmp_path / "outside"
    (secrets / "token.txt").write_text("s3cret-file\n")
    (secrets / "keys").mkdir()
    (secrets / "keys" / "id").write_text("s3cret-dir\n")
    deny = [str(secrets / "token.txt"), str(secrets / "keys"), str(secrets / "keys" / "id")]
    _settings(project, "settings.json", {"enabled": True, "filesystem": {"denyRead": deny}})
    calls = [
        _bash(f"cat {secrets}/token.txt; echo end"),
        _bash(f"ls -A {secrets}/keys; cat {secrets}/keys/id; echo end"),
        _bash(f"echo x > {secrets}/keys/new"),  # the placeholder is read-only
        _bash(f"cat {secrets}/token.txt", dangerouslyDisableSandbox=True),  # outside: readable
    ]
    results, out = _run(tmp_path, project, calls, *BYPASS, "--trust-project")
    assert "s3cret" not in results[0]["content"] + results[1]["content"]
    assert results[0]["content"].strip() == "end"
    assert "No such file or directory" in results[1]["content"]
    assert results[2]["is_error"]
    assert "Read-only file system" in results[2]["content"]
    assert "s3cret-file" in results[3]["content"]
    assert "denyRead" not in out  # enforced, so not diagnosed
    assert sorted(p.name for p in (secrets / "keys").iterdir()) == ["id"]
    assert (secrets / "token.txt").read_text() == "s3cret-file\n"


def test_allow_read_reopens_paths_inside_deny_read(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "outside"
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id").write_text("s3cret-key\n")
    (home / "tools" / "bin").mkdir(parents=True)
    (home / "tools" / "bin" / "run").write_text("tool\n")
    (home / ".gitconfig").write_text("gitconfig\n")
    (home / "notes.txt").write_text("s3cret-notes\n")
    (home / "repo").mkdir()
    _settings(project, "settings.json", {"enabled": True, "filesystem": {"denyRead": [str(home)]}})
    # Only from settings the repository does not share; a pattern stands for its matches.
    reads = [str(home / "tools"), str(home / ".git*"), str(home / "repo")]
    _settings(project, "settings.local.json", {"filesystem": {"allowRead": reads}})
    calls = [
        _bash(f"ls -A {home}"),
        _bash(f"cat {home}/tools/bin/run {home}/.gitconfig"),
        _bash(f"cat {home}/.ssh/id {home}/notes.txt; echo end"),
        _bash(f"cd {home}/repo && pwd"),  # a working directory re-opened
    ]
    results, out = _run(tmp_path, project, calls, *BYPASS, "--trust-project")
    assert results[0]["content"].split() == [".gitconfig", "repo", "tools"]
    assert results[1]["content"].split() == ["tool", "gitconfig"]
    assert "s3cret" not in results[2]["content"]
    assert results[3]["content"].strip() == str(home / "repo")
    assert "allowRead" not in out  # enforced, so not diagnosed
    assert sorted(p.name for p in home.iterdir()) == [
        ".gitconfig",
        ".ssh",
        "notes.txt",
        "repo",
        "tools",
    ]


def test_allow_read_is_not_taken_from_shared_project_settings(
    tmp_path: Path, project: Path
) -> None:
    secrets = tmp_path / "outside"
    (secrets / "token.txt").write_text("s3cret\n")
    sandbox = {
        "enabled": True,
        "filesystem": {"denyRead": [str(secrets)], "allowRead": [str(secrets)]},
    }
    _settings(project, "settings.json", sandbox)
    results, _ = _run(tmp_path, project, [_bash(f"cat {secrets}/token.txt; echo end")], *BYPASS)
    assert "s3cret" not in results[0]["content"]
    assert "No such file or directory" in results[0]["content"]
    check = run_dsh("hooks", "check", "--project", str(project), cwd=tmp_path)
    assert "`sandbox.filesystem.allowRead`" in check.stdout
    assert "does not take them from a project's shared settings" in check.stdout


def test_managed_read_paths_only_keeps_allow_read_to_managed_settings(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    managed = tmp_path / "managed-settings.json"
    managed_block = {"filesystem": {"allowManagedReadPathsOnly": True, "allowRead": ["/opt"]}}
    managed.write_text(json.dumps({"sandbox": managed_block}))
    local = {"enabled": True, "filesystem": {"denyRead": ["/opt"], "allowRead": ["/srv"]}}
    _settings(project, "settings.local.json", local)
    catalog = load_catalog(project, home=tmp_path / "home", managed_path=managed, env={})
    assert catalog.sandbox is not None
    assert catalog.sandbox.readable == (Path("/opt"),)
    assert any("allowManagedReadPathsOnly" in d.reason for d in catalog.diagnostics)


def test_deny_write_of_paths_that_do_not_exist_yet(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "outside"  # under /tmp: writable but for what is denied
    deny = ["new-secret.txt", "later/deep/key.pem", str(outside / "made-later")]
    _settings(project, "settings.local.json", {"enabled": True, "filesystem": {"denyWrite": deny}})
    calls = [
        _bash("touch new-secret.txt"),
        _bash("mkdir -p later/deep && touch later/deep/key.pem"),
        _bash(f"mkdir {outside}/made-later"),
        _bash(f"touch sibling.txt {outside}/sibling.txt && mkdir -p other/deep"),
        _bash("ls -a"),
    ]
    results, _ = _run(tmp_path, project, calls, *BYPASS)
    assert [r["is_error"] for r in results] == [True, True, True, False, False]
    assert "Read-only file system" in results[0]["content"]
    assert "cannot create directory" in results[1]["content"]  # later/deep: beneath it
    assert "Read-only file system" in results[1]["content"]
    # The placeholders stood for the session only: the names are as they were.
    assert sorted(p.name for p in project.iterdir()) == [".claude", "other", "sibling.txt"]
    assert sorted(p.name for p in outside.iterdir()) == ["sibling.txt"]
