"""Project trust over a project's instructions files and the plugins its settings enable.

Through the real ``dsh run``, ``dsh hooks check`` and ``dsh hooks trust`` as
subprocesses: an untrusted project's ``CLAUDE.md`` family (``CLAUDE.md``,
``.claude/CLAUDE.md``, ``CLAUDE.local.md``, ``.claude/rules/*``, their imports)
never reaches the model and is named in the run's one trust notice, while the
user's own file loads; once the project is trusted its files load, edits
included (as in Claude Code: they follow the project's trust, not a fingerprint
each). An installed plugin that only the project's settings enable runs only
once trusted (its hooks listed in the review; headless, untrusted, the run does
not start); enabled in the user's settings it runs as before.
``InstructionsLoaded`` fires only for what loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hardening.test_trust import SKIP, dsh, notices, ran, refused, settings

FILES = {
    "CLAUDE.md": "PROJECT-ROOT-NOTE @docs/imported.md\n",
    "docs/imported.md": "PROJECT-IMPORTED-NOTE\n",
    ".claude/CLAUDE.md": "PROJECT-DOT-CLAUDE-NOTE\n",
    "CLAUDE.local.md": "PROJECT-LOCAL-NOTE\n",
    ".claude/rules/style.md": "PROJECT-RULE-NOTE\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A cloned project with every kind of instructions file, and a user CLAUDE.md."""
    root = tmp_path / "project"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    user = tmp_path / "home" / ".claude"
    user.mkdir(parents=True)
    (user / "CLAUDE.md").write_text("USER-NOTE\n")
    script = {"anthropic": {"rules": [{"responses": [[{"type": "text", "text": "ok"}]]}]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    return root


def run(tmp_path: Path, project: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """A ``dsh run`` in ``project`` and the text of the session log it wrote."""
    sessions = tmp_path / "s"
    before = set(sessions.glob("*.jsonl")) if sessions.exists() else set()
    model = f"scripted:{tmp_path / 'script.json'}"
    args = ("run", "hi", "--model", model, "--project", str(project))
    done = dsh(tmp_path, *args, "--session-dir", str(sessions), *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    [log] = set(sessions.glob("*.jsonl")) - before
    return done, log.read_text()


def project_notes(log: str) -> set[str]:
    notes = ("ROOT", "IMPORTED", "DOT-CLAUDE", "LOCAL", "RULE")
    return {note for note in notes if f"PROJECT-{note}-NOTE" in log}


def test_an_untrusted_projects_instructions_do_not_load_and_the_notice_names_them(
    tmp_path: Path, project: Path
) -> None:
    done, log = run(tmp_path, project)
    assert project_notes(log) == set()
    assert "USER-NOTE" in log  # the user's own file always loads
    [notice] = notices(done)
    assert "5 instructions file(s) not loaded" in notice
    for name in FILES:
        assert f"{name} (not trusted yet)" in notice
    assert f"dsh hooks trust --project {project}" in notice
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert check.returncode == 0, check.stdout
    assert "not trusted yet: instructions file CLAUDE.md (Project)" in check.stdout
    assert "instructions file docs/imported.md (Project, imported by CLAUDE.md)" in check.stdout
    assert "not trusted yet: instructions file CLAUDE.local.md (Local)" in check.stdout


def test_a_trusted_projects_instructions_load_and_an_edited_file_still_loads(
    tmp_path: Path, project: Path
) -> None:
    trusted = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert trusted.returncode == 0, trusted.stderr
    assert "claude hooks: trusted: instructions file .claude/rules/style.md (Project)" in (
        trusted.stdout
    )
    done, log = run(tmp_path, project)
    assert project_notes(log) == {"ROOT", "IMPORTED", "DOT-CLAUDE", "LOCAL", "RULE"}
    assert notices(done) == []
    # Edited after trust: it loads as it is now, as in Claude Code (no per-file refusal).
    (project / "CLAUDE.local.md").write_text("PROJECT-LOCAL-NOTE and now something else\n")
    (project / "CLAUDE.md").write_text("PROJECT-ROOT-NOTE changed @docs/imported.md @new.md\n")
    (project / "new.md").write_text("PROJECT-NEW-IMPORT\n")
    done, log = run(tmp_path, project)
    assert project_notes(log) == {"ROOT", "IMPORTED", "DOT-CLAUDE", "LOCAL", "RULE"}
    assert "something else" in log
    assert "PROJECT-ROOT-NOTE changed" in log
    assert "PROJECT-NEW-IMPORT" in log
    assert notices(done) == []
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "Untrusted" not in check.stdout


def test_a_record_of_the_earlier_format_trusts_the_project(tmp_path: Path, project: Path) -> None:
    """A record written before: its ``instructions`` fingerprints of other texts, no
    ``plugins`` or ``permissions``; the project is trusted, its files load as they are."""
    from dsh.hook_protocol import write_record

    stale = [{"fingerprint": "0" * 64, "where": "instructions CLAUDE.md"}]
    records = tmp_path / "data" / "dsh" / "trust" / "claude"
    write_record(project, records, {"hooks": [], "instructions": stale})
    done, log = run(tmp_path, project)
    assert project_notes(log) == {"ROOT", "IMPORTED", "DOT-CLAUDE", "LOCAL", "RULE"}
    assert notices(done) == []


def test_trust_project_records_the_instructions_too(tmp_path: Path, project: Path) -> None:
    done, log = run(tmp_path, project, "--trust-project")
    assert project_notes(log) == {"ROOT", "IMPORTED", "DOT-CLAUDE", "LOCAL", "RULE"}
    assert "0 project hook(s), 5 instructions file(s)" in done.stdout
    _, log = run(tmp_path, project)
    assert len(project_notes(log)) == 5


def test_instructions_loaded_hooks_see_only_what_loaded(tmp_path: Path, project: Path) -> None:
    seen = tmp_path / "seen.txt"
    hook = (
        f'{sys.executable} -c "import json, sys; d = json.load(sys.stdin);'
        f" open({str(seen)!r}, 'a').write(d['file_path'] + '\\\\n')\""
    )
    group = {"hooks": [{"type": "command", "command": hook}]}
    user_settings = tmp_path / "home" / ".claude" / "settings.json"
    user_settings.write_text(json.dumps({"hooks": {"InstructionsLoaded": [group]}}))
    run(tmp_path, project)
    assert seen.read_text().splitlines() == [str(tmp_path / "home" / ".claude" / "CLAUDE.md")]
    seen.unlink()
    run(tmp_path, project, "--trust-project")
    assert len(seen.read_text().splitlines()) == 6


def install_plugin(tmp_path: Path, plugin_id: str = "marker@market") -> Path:
    """A plugin installed in the user's config directory whose UserPromptSubmit hook marks."""
    root = tmp_path / "plugins" / "marker"
    (root / "hooks").mkdir(parents=True)
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "marker"}))
    mark = f"{sys.executable} -c \"import os; open(os.environ['MARK'], 'a').write('p\\\\n')\""
    (root / "hooks" / "hooks.json").write_text(settings(mark))
    registry = tmp_path / "home" / ".claude" / "plugins" / "installed_plugins.json"
    registry.parent.mkdir(parents=True, exist_ok=True)
    entry = {"scope": "user", "installPath": str(root)}
    registry.write_text(json.dumps({"version": 2, "plugins": {plugin_id: [entry]}}))
    return root


def enable(path: Path, plugin_id: str = "marker@market") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"enabledPlugins": {plugin_id: True}}))


def test_a_plugin_the_project_enables_runs_only_once_trusted(tmp_path: Path, project: Path) -> None:
    root = install_plugin(tmp_path)
    enable(project / ".claude" / "settings.json")
    message = refused(tmp_path, project)  # headless, untrusted: the run does not start
    assert "not trusted yet: plugin marker@market enabled in .claude/settings.json" in message
    assert ran(tmp_path) == 0
    done, _ = run(tmp_path, project, SKIP)
    assert ran(tmp_path) == 0
    [notice] = notices(done)
    assert "1 plugin(s) its settings enable not run: marker@market (not trusted yet)" in notice
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    line = next(x for x in check.stdout.splitlines() if "trusted yet: plugin marker@" in x)
    assert "not trusted yet: plugin marker@market enabled in .claude/settings.json" in line
    assert f"({root}): its hooks UserPromptSubmit[0][0]:" in line
    trusted = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert "trusted: plugin marker@market" in trusted.stdout
    done, _ = run(tmp_path, project)
    assert ran(tmp_path) == 1
    assert notices(done) == []
    # The plugin's hook changing is a change of what was trusted.
    (root / "hooks" / "hooks.json").write_text(settings("true"))
    assert "changed since trusted: plugin marker@market" in refused(tmp_path, project)
    done, _ = run(tmp_path, project, SKIP)
    [notice] = notices(done)
    assert "marker@market (changed since trusted)" in notice


def test_a_plugin_the_user_enables_runs_without_project_trust(
    tmp_path: Path, project: Path
) -> None:
    install_plugin(tmp_path)
    enable(tmp_path / "home" / ".claude" / "settings.json")
    enable(project / ".claude" / "settings.json")  # the project enabling it too changes nothing
    done, _ = run(tmp_path, project)
    assert ran(tmp_path) == 1
    [notice] = notices(done)  # the instructions files are still untrusted, the plugin is not
    assert "plugin(s)" not in notice


def test_codex_agents_files_are_named_untrusted_and_trusting_loads_them(tmp_path: Path) -> None:
    from dsh.hooks.codex import CodexProfile

    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("CODEX-PROJECT-NOTE\n")
    home = tmp_path / "codex-home"
    home.mkdir()
    codex = CodexProfile(home=home, system_dir=None, env={}, trust_dir=tmp_path / "trust")
    [line] = codex.untrusted(project)
    assert f"{project / 'AGENTS.md'}: the project is not trusted" in line
    mount = codex.load(project)
    assert any(
        "1 AGENTS.md file(s) of the untrusted project not loaded" in d for d in mount.diagnostics
    )
    assert mount.catalog.project_trusted is False
    assert codex.trust(project) == (  # the AGENTS.md chain follows the project's trust
        f"trusted the project {project} in {home / 'config.toml'}",
    )
    assert codex.untrusted(project) == ()
    assert codex.load(project).catalog.project_trusted is True


def test_a_codex_run_reads_no_claude_md_trusted_or_not(tmp_path: Path, project: Path) -> None:
    # Codex reads AGENTS.md, never CLAUDE.md: under `--hooks codex` neither the untrusted
    # project's CLAUDE.md family nor the user's own reaches the model (it once did, ungated),
    # and trusting the project (Codex's trust, which loads its AGENTS.md) changes nothing.
    (project / "AGENTS.md").write_text("CODEX-PROJECT-NOTE\n")
    for extra in ((), ("--trust-project",)):
        model = f"scripted:{tmp_path / 'script.json'}"
        args = ("run", "hi", "--hooks", "codex", "--model", model, "--project", str(project))
        sessions = tmp_path / f"codex-s{len(extra)}"
        done = dsh(tmp_path, *args, "--session-dir", str(sessions), *extra)
        assert done.returncode == 0, done.stdout + done.stderr
        [log] = sessions.glob("*.jsonl")
        text = log.read_text()
        assert project_notes(text) == set()
        assert "USER-NOTE" not in text
    assert "CODEX-PROJECT-NOTE" in text  # trusted: Codex's own file, as Codex loads it
