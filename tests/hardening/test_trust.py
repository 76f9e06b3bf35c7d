"""Project trust: a cloned repository's hooks run only once the user trusted them.

Through the real ``dsh run``, ``dsh hooks trust`` and ``dsh hooks check`` as
subprocesses, with real hook processes: a headless run in an untrusted project
does not start (exit 2, the hooks named; ``test_trust_fails_closed``), and with
``--skip-untrusted-hooks`` leaves them out with one notice saying how to trust;
trusting records them (0600, 0700); a changed hook or script needs trust again;
user and ``--settings`` hooks run regardless; a hostile record trusts nothing and
crashes nothing.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from dsh.cli._trust import ask_to_trust
from dsh.hooks.claude import ClaudeCodeProfile
from dsh.host import TrustingProfile
from tests.cli.test_cli import dsh as cli_dsh

SCRIPT = "import json, sys, os\nopen(os.environ['MARK'], 'a').write('ran\\n')\n"


def dsh(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``dsh ARGS`` with its home and data directory in ``tmp_path``, trusting nothing itself."""
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    env["MARK"] = str(tmp_path / "mark.txt")
    return cli_dsh(*args, cwd=tmp_path, env_extra=env, trust=False)


def settings(command: str) -> str:
    group = {"hooks": [{"type": "command", "command": command}]}
    return json.dumps({"hooks": {"UserPromptSubmit": [group]}})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A cloned project whose settings run its own script on every prompt."""
    root = tmp_path / "project"
    (root / ".claude" / "hooks").mkdir(parents=True)
    (root / ".claude" / "hooks" / "mark.py").write_text(SCRIPT)
    command = f'{sys.executable} "$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.py'
    (root / ".claude" / "settings.json").write_text(settings(command))
    (tmp_path / "home").mkdir()
    script = {"anthropic": {"rules": [{"responses": [[{"type": "text", "text": "ok"}]]}]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    return root


def run(tmp_path: Path, project: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    model = f"scripted:{tmp_path / 'script.json'}"
    args = ("run", "hi", "--model", model, "--project", str(project))
    done = dsh(tmp_path, *args, "--session-dir", str(tmp_path / "s"), *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done


SKIP = "--skip-untrusted-hooks"


def refused(tmp_path: Path, project: Path, *extra: str) -> str:
    """A headless ``dsh run`` that does not start: exit 2, no session log; its message."""
    model = f"scripted:{tmp_path / 'script.json'}"
    sessions = tmp_path / "refused-sessions"
    args = ("run", "hi", "--model", model, "--project", str(project))
    done = dsh(tmp_path, *args, "--session-dir", str(sessions), *extra)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert not sessions.exists() or list(sessions.iterdir()) == []
    return done.stderr


def ran(tmp_path: Path) -> int:
    mark = tmp_path / "mark.txt"
    count = len(mark.read_text().splitlines()) if mark.exists() else 0
    mark.unlink(missing_ok=True)
    return count


def notices(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if "untrusted project" in line]


def test_an_untrusted_projects_hooks_do_not_run_and_the_notice_says_how_to_trust(
    tmp_path: Path, project: Path
) -> None:
    message = refused(tmp_path, project)
    assert ran(tmp_path) == 0
    assert "not trusted yet: UserPromptSubmit[0][0] in .claude/settings.json" in message
    done = run(tmp_path, project, SKIP)
    assert ran(tmp_path) == 0
    [notice] = notices(done)
    assert "UserPromptSubmit[0][0] in .claude/settings.json (not trusted yet)" in notice
    assert f"dsh hooks trust --project {project}" in notice
    assert "--trust-project" in notice
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert check.returncode == 0, check.stdout  # trust is the user's state, not a bad file
    assert "not trusted yet: UserPromptSubmit[0][0] in .claude/settings.json" in check.stdout
    assert "(runs .claude/hooks/mark.py)" in check.stdout


def test_trusting_once_lets_every_later_run_use_the_hooks(tmp_path: Path, project: Path) -> None:
    trusted = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert trusted.returncode == 0, trusted.stderr
    assert "claude hooks: trusted: UserPromptSubmit[0][0] in .claude/settings.json" in (
        trusted.stdout
    )
    assert "(runs .claude/hooks/mark.py)" in trusted.stdout
    for _ in range(2):
        done = run(tmp_path, project)
        assert ran(tmp_path) == 1
        assert notices(done) == []
    [record] = (tmp_path / "data" / "dsh" / "trust" / "claude").glob("*.json")
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "data" / "dsh" / "trust").stat().st_mode) == 0o700
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "Untrusted" not in check.stdout


@pytest.mark.parametrize("change", ["script", "declaration", "new hook"])
def test_a_change_needs_trust_again(tmp_path: Path, project: Path, change: str) -> None:
    assert dsh(tmp_path, "hooks", "trust", "--project", str(project)).returncode == 0
    hooks = project / ".claude" / "settings.json"
    data = json.loads(hooks.read_text())
    handlers = data["hooks"]["UserPromptSubmit"][0]["hooks"]
    if change == "script":
        (project / ".claude" / "hooks" / "mark.py").write_text(SCRIPT + "print('more')\n")
    elif change == "declaration":
        handlers[0]["timeout"] = 30
    else:
        handlers.append({"type": "command", "command": "id"})
    hooks.write_text(json.dumps(data))
    place = "UserPromptSubmit[0][1]" if change == "new hook" else "UserPromptSubmit[0][0]"
    state = "not trusted yet" if change == "new hook" else "changed since trusted"
    assert f"{state}: {place} in .claude/settings.json: " in refused(tmp_path, project)
    assert ran(tmp_path) == 0
    done = run(tmp_path, project, SKIP)
    [notice] = notices(done)
    if change == "new hook":
        assert ran(tmp_path) == 1  # the trusted one still runs
        assert "UserPromptSubmit[0][1] in .claude/settings.json (not trusted yet)" in notice
    else:
        assert ran(tmp_path) == 0
        assert "UserPromptSubmit[0][0] in .claude/settings.json (changed since trusted)" in notice
        again = dsh(tmp_path, "hooks", "trust", "--project", str(project))
        assert "(changed since last trust)" in again.stdout
        assert notices(run(tmp_path, project)) == []
        assert ran(tmp_path) == 1


def test_trust_project_is_accepting_the_prompt_and_is_remembered(
    tmp_path: Path, project: Path
) -> None:
    done = run(tmp_path, project, "--trust-project")
    assert ran(tmp_path) == 1
    assert notices(done) == []
    assert f"trusted 1 project hook(s) of {project} (--trust-project)" in done.stdout
    assert notices(run(tmp_path, project)) == []
    assert ran(tmp_path) == 1


def test_user_and_settings_flag_hooks_run_without_trust(tmp_path: Path, project: Path) -> None:
    user = tmp_path / "home" / ".claude"
    user.mkdir(parents=True)
    mark = f"{sys.executable} -c \"import os; open(os.environ['MARK'], 'a').write('u\\\\n')\""
    (user / "settings.json").write_text(settings(mark))
    done = run(tmp_path, project, "--settings", settings(mark + " --settings"), SKIP)
    assert ran(tmp_path) == 2  # the user's and the --settings one; not the project's
    assert len(notices(done)) == 1


@pytest.mark.parametrize("record", ["garbage", "deep", "symlink", "wrong format", "fifo"])
def test_a_hostile_trust_record_trusts_nothing_and_crashes_nothing(
    tmp_path: Path, project: Path, record: str
) -> None:
    assert dsh(tmp_path, "hooks", "trust", "--project", str(project)).returncode == 0
    [path] = (tmp_path / "data" / "dsh" / "trust" / "claude").glob("*.json")
    trusted = path.read_text()
    path.unlink()
    if record == "garbage":
        path.write_bytes(b"\xff\x00{not json")
    elif record == "deep":
        path.write_text("[" * 100_000)
    elif record == "symlink":
        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_text(trusted)
        path.symlink_to(elsewhere)
    elif record == "fifo":
        os.mkfifo(path)
    else:
        path.write_text(json.dumps({"format": "other", "hooks": json.loads(trusted)["hooks"]}))
    assert str(path) in refused(tmp_path, project)
    done = run(tmp_path, project, SKIP)
    assert ran(tmp_path) == 0
    [notice] = notices(done)
    assert str(path) in notice
    if record == "symlink":
        # Trusting again replaces the link and leaves its target as it was.
        assert dsh(tmp_path, "hooks", "trust", "--project", str(project)).returncode == 0
        assert not path.is_symlink()
        assert (tmp_path / "elsewhere.json").read_text() == trusted


def own_settings_only(tmp_path: Path, **options: Any) -> ClaudeCodeProfile:
    """The profile over the project's own settings (no user, managed or plugin hooks)."""
    return ClaudeCodeProfile(
        home=tmp_path / "home",
        managed_path=tmp_path / "none.json",
        env={},
        discover_installed_plugins=False,
        instructions=False,
        **options,
    )


def test_the_profile_is_a_trusting_profile_and_the_prompt_seam_records_consent(
    tmp_path: Path, project: Path
) -> None:
    claude = own_settings_only(tmp_path, trust_dir=tmp_path / "trust")
    assert isinstance(claude, TrustingProfile)
    assert claude.load(project).catalog.all_hooks() == ()
    shown: list[Sequence[str]] = []

    def decline(lines: Sequence[str]) -> bool:
        shown.append(lines)
        return False

    assert ask_to_trust((claude,), project, decline) is False
    [[line]] = shown
    assert line.startswith("claude hooks: not trusted yet: UserPromptSubmit[0][0]")
    assert claude.untrusted(project)
    assert ask_to_trust((claude,), project, lambda lines: True) is True
    assert claude.untrusted(project) == ()
    assert len(claude.load(project).catalog.all_hooks()) == 1
    assert ask_to_trust((claude,), project, decline) is True  # nothing left to ask
    assert len(shown) == 1
    unguarded = own_settings_only(tmp_path, trust_dir=tmp_path / "other-trust", require_trust=False)
    assert len(unguarded.load(project).catalog.all_hooks()) == 1
