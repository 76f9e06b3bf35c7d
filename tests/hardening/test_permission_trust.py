"""A cloned project's widening permission entries apply only once the project is trusted.

Claude Code 2.1.332, headless in an untrusted workspace, ignores the
``permissions.allow`` and ``permissions.additionalDirectories`` entries of the
project's ``.claude/settings.json`` ("Ignoring 1 permissions.allow entry from
.claude/settings.json: this workspace has not been trusted"), keeps its
``deny``/``ask`` and everything of ``.claude/settings.local.json``. Through the
real ``dsh run`` with a scripted model and the real Bash tool: the untrusted
project's ``allow: ["Bash(touch:*)"]`` does not let a ``touch`` run in default
mode (headless, it is denied as without the rule) and the notice is shown;
``--trust-project``, ``dsh hooks trust`` or the trust prompt let it run; a
new entry needs trust while the trusted ones keep applying.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from dsh.cli._trust import ask_to_trust
from dsh.hooks.claude import ClaudeCodeProfile
from tests.cli.test_cli import dsh as cli_dsh

IGNORED = (
    "Ignoring 1 permissions.allow entry from .claude/settings.json:"
    " this workspace has not been trusted"
)


def dsh(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``dsh ARGS`` with its home and data directory in ``tmp_path``, trusting nothing itself."""
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    return cli_dsh(*args, cwd=tmp_path, env_extra=env, trust=False)


def write_settings(project: Path, permissions: dict[str, Any], name: str = "settings") -> None:
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    text = json.dumps({"permissions": permissions})
    (project / ".claude" / f"{name}.json").write_text(text)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A cloned project that pre-approves ``touch``."""
    root = tmp_path / "project"
    write_settings(root, {"allow": ["Bash(touch:*)"]})
    (tmp_path / "home").mkdir()
    return root


def run(
    tmp_path: Path, project: Path, command: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    """One headless turn whose model runs ``command`` with the Bash tool, then says done."""
    call = {"type": "tool_use", "name": "Bash", "input": {"command": command}}
    responses = [[call], [{"type": "text", "text": "done"}]]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    args = ("run", "go", "--model", f"scripted:{script}", "--project", str(project))
    done = dsh(tmp_path, *args, "--session-dir", str(tmp_path / "s"), *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done


def ignored(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if "permissions." in line]


def touched(project: Path) -> bool:
    made = project / "made"
    found = made.exists()
    if made.is_dir():
        made.rmdir()
    made.unlink(missing_ok=True)
    return found


def test_an_untrusted_projects_allow_rule_is_ignored_with_claude_codes_notice(
    tmp_path: Path, project: Path
) -> None:
    done = run(tmp_path, project, "touch made")
    assert not touched(project)  # denied headless, as without the rule
    [notice] = ignored(done)
    assert IGNORED in notice
    assert f"dsh hooks trust --project {project}" in notice
    assert "--trust-project" in notice
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert check.returncode == 0, check.stdout  # trust is the user's state, not a bad file
    assert "not trusted yet: permissions.allow Bash(touch:*) in .claude/settings.json" in (
        check.stdout
    )
    assert IGNORED in check.stdout


def test_the_same_project_trusted_runs_the_allowed_command(tmp_path: Path, project: Path) -> None:
    done = run(tmp_path, project, "touch made", "--trust-project")
    assert touched(project)
    assert ignored(done) == []
    done = run(tmp_path, project, "touch made")  # remembered: no flag needed again
    assert touched(project)
    assert ignored(done) == []
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "Untrusted" not in check.stdout


def test_a_trust_record_lets_it_run_and_a_new_entry_needs_trust(
    tmp_path: Path, project: Path
) -> None:
    trusted = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert trusted.returncode == 0, trusted.stderr
    assert "trusted: permissions.allow Bash(touch:*) in .claude/settings.json" in trusted.stdout
    run(tmp_path, project, "touch made")
    assert touched(project)
    write_settings(project, {"allow": ["Bash(touch:*)", "Bash(*)"]})
    done = run(tmp_path, project, "touch made")
    assert touched(project)  # the trusted entry keeps applying
    [notice] = ignored(done)
    assert IGNORED in notice  # one entry: the new one
    run(tmp_path, project, "mkdir made")
    assert not touched(project)  # `Bash(*)` is not trusted: mkdir asks, headless denied
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "not trusted yet: permissions.allow Bash(*) in .claude/settings.json" in check.stdout
    assert "Bash(touch:*) in" not in check.stdout.split("Untrusted")[-1]
    assert dsh(tmp_path, "hooks", "trust", "--project", str(project)).returncode == 0
    run(tmp_path, project, "mkdir made")
    assert (project / "made").is_dir()


def test_additional_directories_wait_for_trust_too(tmp_path: Path, project: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    write_settings(project, {"additionalDirectories": [str(other)]})
    mode = ("--permission-mode", "acceptEdits")  # writes in working directories run
    done = run(tmp_path, project, f"touch {other}/made", *mode)
    assert not touched(other)
    [notice] = ignored(done)
    assert "Ignoring 1 permissions.additionalDirectories entry from .claude/settings.json" in (
        notice
    )
    run(tmp_path, project, f"touch {other}/made", *mode, "--trust-project")
    assert touched(other)


def test_local_settings_user_rules_and_project_deny_apply_without_trust(
    tmp_path: Path, project: Path
) -> None:
    (project / ".claude" / "settings.json").unlink()
    write_settings(project, {"allow": ["Bash(touch:*)"]}, name="settings.local")
    done = run(tmp_path, project, "touch made")
    assert touched(project)  # as Claude Code: the local file is the user's own
    assert ignored(done) == []
    (project / ".claude" / "settings.local.json").unlink()
    user = tmp_path / "home" / ".claude"
    user.mkdir(parents=True)
    (user / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(touch:*)"]}}))
    run(tmp_path, project, "touch made")
    assert touched(project)  # the user's own rule needs no trust
    write_settings(project, {"deny": ["Bash(touch:*)"]})
    done = run(tmp_path, project, "touch made")
    assert not touched(project)  # a project deny only restricts: it applies untrusted
    assert ignored(done) == []


def test_the_trust_prompt_shows_the_entries_and_accepting_applies_them(
    tmp_path: Path, project: Path
) -> None:
    claude = ClaudeCodeProfile(
        home=tmp_path / "home",
        managed_path=tmp_path / "none.json",
        env={},
        discover_installed_plugins=False,
        instructions=False,
        trust_dir=tmp_path / "trust",
    )
    mounted = claude.load(project)
    assert mounted.catalog.permissions.of("allow") == ()
    assert any(IGNORED in line for line in mounted.diagnostics)
    shown: list[Sequence[str]] = []

    def decline(lines: Sequence[str]) -> bool:
        shown.append(lines)
        return False

    assert ask_to_trust((claude,), project, decline) is False
    [lines] = shown
    assert "claude hooks: not trusted yet: permissions.allow Bash(touch:*) in" in lines[0]
    assert ask_to_trust((claude,), project, lambda lines: True) is True
    assert claude.untrusted(project) == ()
    mounted = claude.load(project)
    assert [e.rule.declared for e in mounted.catalog.permissions.of("allow")] == ["Bash(touch:*)"]
    assert not any("permissions." in line for line in mounted.diagnostics)


@pytest.mark.parametrize("name", ["settings", "settings.local"])
def test_a_projects_bypass_mode_never_applies_and_the_users_does(
    tmp_path: Path, project: Path, name: str
) -> None:
    # Claude Code 2.1.332 never takes bypassPermissions from a project file, trusted or not.
    (project / ".claude" / "settings.json").unlink()
    write_settings(project, {"defaultMode": "bypassPermissions"}, name=name)
    run(tmp_path, project, "touch made", "--trust-project")
    assert not touched(project)
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "bypassPermissions is not applied from a project's settings" in check.stdout
    user = tmp_path / "home" / ".claude"
    user.mkdir(parents=True)
    bypass = {"permissions": {"defaultMode": "bypassPermissions"}}
    (user / "settings.json").write_text(json.dumps(bypass))
    run(tmp_path, project, "touch made")
    assert touched(project)


ANSWER_ONCE = """\
import json, os, sys
json.load(sys.stdin)
marker = os.path.join(os.path.dirname(__file__), "answered")
if not os.path.exists(marker):
    open(marker, "w").close()
    rule = {"toolName": "Bash", "ruleContent": "touch:*"}
    update = {"type": "addRules", "rules": [rule], "behavior": "allow",
              "destination": "projectSettings"}
    decision = {"behavior": "allow", "updatedPermissions": [update]}
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                             "decision": decision}}))
"""


def test_a_rule_saved_into_the_project_settings_stays_trusted(
    tmp_path: Path, project: Path
) -> None:
    # A trusted project's PermissionRequest hook answers "always allow" into
    # .claude/settings.json once; the next run applies the saved rule with no notice.
    hook = project / ".claude" / "answer.py"
    hook.write_text(ANSWER_ONCE)
    command = f'{sys.executable} "$CLAUDE_PROJECT_DIR"/.claude/answer.py'
    handler = {"type": "command", "command": command}
    settings = {"hooks": {"PermissionRequest": [{"hooks": [handler]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    run(tmp_path, project, "touch made", "--trust-project")
    assert touched(project)  # the hook's allow
    saved = json.loads((project / ".claude" / "settings.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(touch:*)"]
    done = run(tmp_path, project, "touch made")
    assert touched(project)  # the saved rule: the hook answers nothing now
    assert ignored(done) == []
