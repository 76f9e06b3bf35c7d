"""Headless, project trust fails closed: a run with an untrusted project hook does not start.

Through the real ``dsh run`` with a scripted model and real hook processes: in every
headless output format (and with ``--input-format stream-json``), a project whose own
Claude Code hook is not trusted yet or changed since trusted exits 2 with one message
naming each hook (event, file, command, why) and the ways forward (the exact ``dsh hooks
trust`` command line, ``--trust-project``, ``--skip-untrusted-hooks``), before any hook
runs (a user's SessionStart hook included) and before a session log or a model request
exists. A project with no hooks of its own runs as before; under the Codex bridge Codex's
rule stands (its untrusted hooks are skipped with its notice).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import dsh as cli_dsh
from tests.hardening.test_trust import SCRIPT, SKIP, dsh, notices, ran, refused, settings

FORMATS = [(), ("--output-format", "text"), ("--output-format", "json")]
FORMATS += [("--output-format", "stream-json", "--verbose")]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A cloned project whose settings run its own script on every prompt, and a user
    SessionStart hook that marks too (it must not run either when the run refuses)."""
    root = tmp_path / "project"
    (root / ".claude" / "hooks").mkdir(parents=True)
    (root / ".claude" / "hooks" / "mark.py").write_text(SCRIPT)
    command = f'{sys.executable} "$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.py'
    (root / ".claude" / "settings.json").write_text(settings(command))
    user = tmp_path / "home" / ".claude"
    user.mkdir(parents=True)
    mark = f"{sys.executable} -c \"import os; open(os.environ['MARK'], 'a').write('u\\\\n')\""
    group = {"hooks": [{"type": "command", "command": mark}]}
    (user / "settings.json").write_text(json.dumps({"hooks": {"SessionStart": [group]}}))
    script = {"anthropic": {"rules": [{"responses": [[{"type": "text", "text": "ok"}]]}]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    return root


def assert_names_the_ways_forward(message: str, project: Path) -> None:
    assert message.startswith(f"dsh: the project {project} has 1 hook(s) not trusted")
    assert ".claude/settings.json: " in message
    assert "/.claude/hooks/mark.py (runs .claude/hooks/mark.py)" in message
    assert f"dsh hooks trust --project {project}\n" in message
    assert "--trust-project" in message
    assert SKIP in message


@pytest.mark.parametrize("output", FORMATS, ids=["transcript", "text", "json", "stream-json"])
def test_an_untrusted_project_hook_stops_a_headless_run_before_anything_runs(
    tmp_path: Path, project: Path, output: tuple[str, ...]
) -> None:
    message = refused(tmp_path, project, *output)
    assert_names_the_ways_forward(message, project)
    assert "not trusted yet: UserPromptSubmit[0][0] in .claude/settings.json: " in message
    assert message.count("dsh: ") == 1  # one message
    assert ran(tmp_path) == 0  # neither the project's hook nor the user's SessionStart


def test_stream_json_input_fails_closed_too(tmp_path: Path, project: Path) -> None:
    model = f"scripted:{tmp_path / 'script.json'}"
    line = json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}})
    sessions = tmp_path / "s"
    args = ["run", "--model", model, "--project", str(project), "--session-dir", str(sessions)]
    args += ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    env["MARK"] = str(tmp_path / "mark.txt")
    done = cli_dsh(*args, cwd=tmp_path, env_extra=env, stdin=line + "\n", trust=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert_names_the_ways_forward(done.stderr, project)
    assert ran(tmp_path) == 0
    assert not sessions.exists() or list(sessions.iterdir()) == []


def test_a_hook_changed_since_trusted_stops_it_and_the_flags_are_the_ways_forward(
    tmp_path: Path, project: Path
) -> None:
    assert dsh(tmp_path, "hooks", "trust", "--project", str(project)).returncode == 0
    (project / ".claude" / "hooks" / "mark.py").write_text(SCRIPT + "# edited\n")
    message = refused(tmp_path, project, "--output-format", "json")
    assert_names_the_ways_forward(message, project)
    assert "changed since trusted: UserPromptSubmit[0][0] in .claude/settings.json" in message
    assert ran(tmp_path) == 0
    model = f"scripted:{tmp_path / 'script.json'}"
    base = ("run", "hi", "--model", model, "--project", str(project))
    skipped = dsh(tmp_path, *base, SKIP)
    assert skipped.returncode == 0, skipped.stderr
    assert ran(tmp_path) == 1  # the user's SessionStart; the changed project hook left out
    [notice] = notices(skipped)
    assert "UserPromptSubmit[0][0] in .claude/settings.json (changed since trusted)" in notice
    trusted = dsh(tmp_path, *base, "--trust-project")
    assert trusted.returncode == 0, trusted.stderr
    assert ran(tmp_path) == 2  # both, and the trust is recorded:
    again = dsh(tmp_path, *base, "--output-format", "text")
    assert again.returncode == 0, again.stderr
    assert ran(tmp_path) == 2


def test_the_trust_command_it_names_carries_the_runs_sources(tmp_path: Path, project: Path) -> None:
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"hooks": {}}))
    message = refused(tmp_path, project, "--settings", str(extra))
    line = f"dsh hooks trust --project {project} --settings {extra}"
    assert f"run again: {line}\n" in message
    trusted = dsh(tmp_path, *line.split()[1:])
    assert trusted.returncode == 0, trusted.stderr
    model = f"scripted:{tmp_path / 'script.json'}"
    args = ("run", "hi", "--model", model, "--project", str(project), "--settings", str(extra))
    assert dsh(tmp_path, *args).returncode == 0
    assert ran(tmp_path) == 2


def test_a_project_without_hooks_of_its_own_runs_as_before(tmp_path: Path, project: Path) -> None:
    (project / ".claude" / "settings.json").unlink()
    (project / "CLAUDE.md").write_text("PROJECT-NOTE\n")
    model = f"scripted:{tmp_path / 'script.json'}"
    sessions = tmp_path / "s"
    args = ("run", "hi", "--model", model, "--project", str(project), "--session-dir")
    done = dsh(tmp_path, *args, str(sessions), "--output-format", "json")
    assert done.returncode == 0, done.stderr
    assert ran(tmp_path) == 1  # the user's hook
    assert "1 instructions file(s) not loaded: CLAUDE.md (not trusted yet)" in done.stderr
    [log] = sessions.glob("*.jsonl")
    assert "PROJECT-NOTE" not in log.read_text()


def test_under_the_codex_bridge_codexs_rule_stands(tmp_path: Path) -> None:
    """Codex skips an untrusted hook with its notice, headless too: the run goes on."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    mark = f"{sys.executable} -c \"open({str(tmp_path / 'mark.txt')!r}, 'a').write('c\\\\n')\""
    group = {"hooks": [{"type": "command", "command": mark}]}
    (project / ".codex" / "hooks.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [group]}})
    )
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n'
    )
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps({"openai": {"rules": [{"responses": [[{"type": "text", "text": "ok"}]]}]}})
    )
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    args = ("run", "go", "--model", f"scripted:{script}", "--project", str(project))
    for output in ((), ("--output-format", "json")):
        done = cli_dsh(*args, *output, "--hooks", "both", cwd=tmp_path, env_extra=env, trust=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "codex hooks: UserPromptSubmit[0][0]" in done.stdout + done.stderr
        assert "not trusted yet" in done.stdout + done.stderr
        assert ran(tmp_path) == 0


def test_the_message_names_twenty_and_counts_the_rest(tmp_path: Path, project: Path) -> None:
    groups = [{"hooks": [{"type": "command", "command": f"echo {i}"}]} for i in range(25)]
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": groups}})
    )
    message = refused(tmp_path, project)
    assert message.startswith(f"dsh: the project {project} has 25 hook(s) not trusted")
    assert message.count("not trusted yet: UserPromptSubmit[") == 20
    assert f"... and 5 more (`dsh hooks check --project {project}` lists them all)" in message
