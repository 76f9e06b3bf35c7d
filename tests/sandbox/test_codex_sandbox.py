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

FIXTURES = Path(__file__).parent.parent / "fixtures"
_TEXT = {"type": "text", "text": "ok"}

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
    # A profile without `extends` is its own filesystem rules (`:project_roots`, the older
    # name of `:workspace_roots`): the project writable, the temp directories not.
    (home / "config.toml").write_text(
        'default_permissions = "mine"\n[permissions.mine.filesystem]\n":project_roots" = "write"\n'
    )
    catalog = load_codex_catalog(tmp_path, home=home, system_dir=None)
    policy = codex_sandbox(catalog.sandbox, tmp_path)
    assert policy is not None
    assert policy.writable(tmp_path, {"TMPDIR": "/var/tmp"}) == [tmp_path]
    # One that extends another profile is not read.
    (home / "config.toml").write_text(
        'default_permissions = "mine"\n[permissions.mine]\nextends = "other"\n'
    )
    catalog = load_codex_catalog(tmp_path, home=home, system_dir=None)
    assert codex_sandbox(catalog.sandbox) is None
    assert any("default_permissions = 'mine'" in d.reason for d in catalog.diagnostics)


def test_a_codex_permission_profile_s_filesystem_rules_confine_exec_command(
    tmp_path: Path,
) -> None:
    """The rules as Codex 0.171 applies them (tests/fixtures/codex_profile_filesystem.json,
    recorded with its binary: benchmarks/record_codex_profile_fs.py), through the loop: the
    same commands succeed and fail, with the same words, but a ``none`` path, which dsh
    hides under an empty mount (``No such file or directory``) where Codex says
    ``Permission denied``."""
    fixture = json.loads((FIXTURES / "codex_profile_filesystem.json").read_text())
    recorded, errors = fixture["cases"], fixture["error_words"]
    places = {n: tmp_path / n for n in ("home", "project", "extra", "kept", "hidden")}
    for folder in (places["home"] / ".codex", places["project"] / "docs", *places.values()):
        folder.mkdir(parents=True, exist_ok=True)
    (places["project"] / "secret").mkdir()
    (places["project"] / "secret" / "s.txt").write_text("secret words\n")
    (places["hidden"] / "h.txt").write_text("hidden words\n")
    config = fixture["profile"].format(extra=places["extra"], hidden=places["hidden"])
    config = config.replace('"read"\n', '"read"\n"relative/x" = "write"\n', 1)
    (places["home"] / ".codex" / "config.toml").write_text(config)
    cases = {n: c for n, c in recorded.items() if n != "relative-path"}
    paths = {k: str(v) for k, v in places.items()}
    replies = [_exec(case["command"].format(**paths)) for case in cases.values()]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"openai": {"rules": [{"responses": [*replies, [_TEXT]]}]}}))
    project = places["project"]
    args = ["run", "--model", f"scripted:{script}", "--project", str(project), "--hooks", "codex"]
    args += ["--session-dir", str(tmp_path / "s"), "--", "go"]
    home = places["home"]
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex"), "TMPDIR": str(home)}
    done = dsh(*args, cwd=tmp_path, env_extra=env, trust=False)
    assert done.returncode == 0, done.stderr
    said = recorded["relative-path"]["says"]  # Codex refuses to start; dsh leaves it out
    assert said.partition("`relative/x` ")[2] in done.stdout + done.stderr
    [log] = (tmp_path / "s").glob("*.jsonl")
    results = [json.loads(line) for line in log.read_text().splitlines()]
    out = [str(r["content"]) for r in results if r["type"] == "tool/result"]
    for (name, case), text in zip(cases.items(), out, strict=True):
        assert ("exited with code 0" in text) is (case["exit"] == 0), (name, text)
        words = [e for e in errors if e in text]
        expected = ["No such file or directory"] if name.endswith("none") else case["errors"]
        assert words == expected, (name, text)
    assert (project / "in.txt").exists()
    assert (places["extra"] / "e.txt").exists()
    assert not (project / "docs" / "d.txt").exists()
    assert not (places["kept"] / "k.txt").exists()
