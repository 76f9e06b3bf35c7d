"""Codex's ``config.toml`` sandbox under ``dsh run --hooks codex``: ``exec_command`` runs in
it, and an approved ``require_escalated`` call runs outside it (a PermissionRequest hook
answers, as in the recorded ``perm-request-allow`` case)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.base._sandbox import sandbox_mechanism
from tests.cli.test_cli import dsh

pytestmark = pytest.mark.skipif(
    sandbox_mechanism()[0] is None, reason=f"no sandbox here: {sandbox_mechanism()[1]}"
)

ALLOW = (
    "import json; print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PermissionRequest',"
    " 'decision': {'behavior': 'allow'}}}))"
)


def _exec(cmd: str, *, escalated: bool = False) -> list[dict[str, Any]]:
    arguments: dict[str, Any] = {"cmd": cmd}
    if escalated:
        arguments |= {"sandbox_permissions": "require_escalated", "justification": "CASE-WHY"}
    return [{"type": "function_call", "name": "exec_command", "arguments": arguments}]


def test_exec_command_runs_in_codex_sandbox_and_escalates_outside_it(tmp_path: Path) -> None:
    home, project, outside = tmp_path / "home", tmp_path / "project", tmp_path / "outside"
    for folder in (home / ".codex", project / ".codex", outside):
        folder.mkdir(parents=True)
    hook = {"type": "command", "command": f'{sys.executable} -c "{ALLOW}"'}
    hooks = {"hooks": {"PermissionRequest": [{"hooks": [hook]}]}}
    (project / ".codex" / "hooks.json").write_text(json.dumps(hooks))
    (home / ".codex" / "config.toml").write_text(
        'sandbox_mode = "workspace-write"\n'
        'approval_policy = "on-request"\napprovals_reviewer = "auto_review"\n'
        "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n'
    )
    replies = [
        _exec("touch in.txt"),
        _exec(f"touch {outside}/sandboxed.txt"),
        _exec(f"touch {outside}/escalated.txt", escalated=True),
        [{"type": "text", "text": "ok"}],
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"openai": {"rules": [{"responses": replies}]}}))
    args = ["run", "--model", f"scripted:{script}", "--project", str(project), "--hooks", "codex"]
    args += ["--session-dir", str(tmp_path / "s"), "--dangerously-bypass-hook-trust", "--", "go"]
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    done = dsh(*args, cwd=tmp_path, env_extra=env, trust=False)
    assert done.returncode == 0, done.stderr
    assert (project / "in.txt").exists()
    assert not (outside / "sandboxed.txt").exists()
    assert (outside / "escalated.txt").exists()
    [log] = (tmp_path / "s").glob("*.jsonl")
    results = [json.loads(line) for line in log.read_text().splitlines()]
    outputs = [r["content"] for r in results if r["type"] == "tool/result"]
    assert "Process exited with code 1" in outputs[1]
    assert "Read-only file system" in outputs[1]  # as under Codex's bubblewrap
    assert "Process exited with code 0" in outputs[2]


def test_codex_layers_give_the_sandbox_and_refuse_bad_values(tmp_path: Path) -> None:
    from dsh.hooks.codex import load_codex_catalog
    from dsh.hooks.codex.config._sandbox import codex_sandbox

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        'sandbox_mode = "read-only"\n[sandbox_workspace_write]\nwritable_roots = ["/data"]\n'
        "network_access = true\n"
    )
    catalog = load_codex_catalog(tmp_path, home=home, system_dir=None)
    policy = codex_sandbox(catalog.sandbox)
    assert policy is not None
    assert (policy.mode, policy.writable_roots, policy.network_access) == (
        "read-only",
        (Path("/data"),),
        True,
    )
    (home / "config.toml").write_text(
        'sandbox_mode = "everything"\n[sandbox_workspace_write]\nwritable_roots = ["rel"]\n'
    )
    catalog = load_codex_catalog(tmp_path, home=home, system_dir=None)
    assert codex_sandbox(catalog.sandbox) is None
    reasons = [d.reason for d in catalog.diagnostics]
    assert any("sandbox_mode = 'everything' is not one of" in r for r in reasons), reasons
    assert any("writable_roots holds a path that is not absolute" in r for r in reasons), reasons


def test_a_codex_permission_profile_gives_the_sandbox_and_its_domain_filter(
    tmp_path: Path,
) -> None:
    from dsh.hooks.codex import load_codex_catalog
    from dsh.hooks.codex.config._sandbox import codex_sandbox

    home = tmp_path / "home"
    home.mkdir()
    profile = (
        'default_permissions = "net"\n[features]\nnetwork_proxy = true\n'
        '[permissions.net]\nextends = ":workspace"\n[permissions.net.network]\nenabled = true\n'
        'domains = { "localhost" = "allow", "bad.localhost" = "deny" }\n'
    )
    (home / "config.toml").write_text(profile)
    policy = codex_sandbox(load_codex_catalog(tmp_path, home=home, system_dir=None).sandbox)
    assert policy is not None
    assert (policy.mode, policy.network_access, policy.proxied) == ("workspace-write", False, True)
    assert (policy.allowed_domains, policy.denied_domains) == (("localhost",), ("bad.localhost",))
    # Without Codex's proxy, an enabled network is the whole network; without enabled, none.
    (home / "config.toml").write_text(
        profile.replace("network_proxy = true", "network_proxy = false")
    )
    policy = codex_sandbox(load_codex_catalog(tmp_path, home=home, system_dir=None).sandbox)
    assert policy is not None
    assert (policy.network_access, policy.proxied) == (True, False)
    (home / "config.toml").write_text(profile.replace("enabled = true", "enabled = false"))
    policy = codex_sandbox(load_codex_catalog(tmp_path, home=home, system_dir=None).sandbox)
    assert policy is not None
    assert (policy.network_access, policy.proxied) == (False, False)
    # sandbox_mode wins over a profile, as in Codex; a built-in profile alone is its mode.
    (home / "config.toml").write_text('sandbox_mode = "read-only"\n' + profile)
    policy = codex_sandbox(load_codex_catalog(tmp_path, home=home, system_dir=None).sandbox)
    assert policy is not None
    assert (policy.mode, policy.proxied) == ("read-only", False)
    (home / "config.toml").write_text('default_permissions = ":read-only"\n')
    policy = codex_sandbox(load_codex_catalog(tmp_path, home=home, system_dir=None).sandbox)
    assert policy is not None
    assert policy.mode == "read-only"
    (home / "config.toml").write_text(
        'default_permissions = "mine"\n[permissions.mine.filesystem]\n":project_roots" = "write"\n'
    )
    catalog = load_codex_catalog(tmp_path, home=home, system_dir=None)
    assert codex_sandbox(catalog.sandbox) is None
    assert any("default_permissions = 'mine'" in d.reason for d in catalog.diagnostics)
