"""Codex's ``notify`` program through ``dsh run``: started once per turn with the turn's JSON
as Codex 0.171 appends it (``tests/fixtures/codex_notify.json``, recorded with the real
binary by ``benchmarks/record_codex_notify.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dsh.hooks.codex import load_codex_catalog
from tests.hooks_codex.test_cli import dsh

FIXTURE = Path(__file__).parents[1] / "fixtures" / "codex_notify.json"
RECORDER = (
    "import json, os, sys\n"
    "with open(os.environ['NOTIFY_LOG'], 'a') as f:\n"
    "    f.write(json.dumps({'argv': sys.argv[1:], 'cwd': os.getcwd()}) + '\\n')\n"
)


def test_notify_runs_after_each_turn_with_codex_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    project.mkdir()
    recorder, log = tmp_path / "recorder.py", tmp_path / "notify.jsonl"
    recorder.write_text(RECORDER)
    (home / ".codex" / "config.toml").write_text(
        f"notify = [{json.dumps(sys.executable)}, {json.dumps(str(recorder))}, 'x']\n"
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n'
    )
    script = tmp_path / "script.json"
    replies = [
        [{"type": "auto_shell", "command": "echo hi"}],
        [{"type": "text", "text": "CASE-NOTIFY-DONE"}],
    ]
    script.write_text(json.dumps({"openai": {"rules": [{"responses": replies}]}}))
    args: tuple[str, ...] = ("run", "--model", f"scripted:{script}", "--project", str(project))
    args += ("--session-dir", str(tmp_path / "s"), "--hooks", "codex")
    monkeypatch.setenv("NOTIFY_LOG", str(log))  # the run inherits it
    done = dsh(*args, "--", "CASE-NOTIFY-PROMPT", cwd=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    (call,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert call["cwd"] == str(project.resolve())
    assert call["argv"][0] == "x"
    got = json.loads(call["argv"][1])
    recorded = json.loads(json.loads(FIXTURE.read_text())["notify"]["calls"][0]["argv"][0])
    assert list(got) == list(recorded)
    assert got["type"] == recorded["type"] == "agent-turn-complete"
    assert got["client"] == recorded["client"]
    assert got["input-messages"] == recorded["input-messages"] == ["CASE-NOTIFY-PROMPT"]
    assert got["last-assistant-message"] == recorded["last-assistant-message"]
    assert got["cwd"] == str(project.resolve())
    assert isinstance(got["thread-id"], str)
    assert isinstance(got["turn-id"], str)
    # The JSON is compact, as Codex writes it.
    assert call["argv"][1] == json.dumps(got, separators=(",", ":"), ensure_ascii=False)


def test_a_notify_that_is_not_a_list_of_strings_is_diagnosed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text('notify = "say done"\n')
    catalog = load_codex_catalog(tmp_path, home=home / ".codex", system_dir=None, env={})
    assert catalog.notify == ()
    assert any("notify: not a list of strings" in d.reason for d in catalog.diagnostics)


def test_a_trusted_projects_notify_and_otel_are_ignored_as_codex_ignores_them(
    tmp_path: Path,
) -> None:
    """Codex 0.171 drops ``notify`` and ``[otel]`` from a project's config.toml (its project
    denylist, recorded in tests/fixtures/codex_model_config.json); the user's stay."""
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    (project / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        "notify = ['user-notify']\n[otel]\nenvironment = 'user'\n"
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n'
    )
    (project / ".codex" / "config.toml").write_text(
        "notify = ['project-notify']\n[otel]\nenvironment = 'project'\nexporter = 'otlp-http'\n"
    )
    catalog = load_codex_catalog(project, home=home / ".codex", system_dir=None, env={})
    assert catalog.project_trusted
    assert catalog.notify == ("user-notify",)
    assert dict(catalog.otel) == {"environment": "user"}


def test_a_turn_a_stop_hook_continues_notifies_once_at_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    (project / ".codex").mkdir(parents=True)
    recorder, log = tmp_path / "recorder.py", tmp_path / "notify.jsonl"
    recorder.write_text(RECORDER)
    (home / ".codex" / "config.toml").write_text(
        f"notify = [{json.dumps(sys.executable)}, {json.dumps(str(recorder))}]\n"
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n'
    )
    block_once = (
        "import json, sys; d = json.load(sys.stdin);"
        " print('' if d['stop_hook_active'] else json.dumps({'decision': 'block', 'reason': 'R'}))"
    )
    hook = {"type": "command", "command": f'{sys.executable} -c "{block_once}"'}
    (project / ".codex" / "hooks.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}})
    )
    script = tmp_path / "script.json"
    replies = [[{"type": "text", "text": "first"}], [{"type": "text", "text": "second"}]]
    script.write_text(json.dumps({"openai": {"rules": [{"responses": replies}]}}))
    args: tuple[str, ...] = ("run", "--model", f"scripted:{script}", "--project", str(project))
    args += ("--session-dir", str(tmp_path / "s"), "--dangerously-bypass-hook-trust")
    monkeypatch.setenv("NOTIFY_LOG", str(log))
    done = dsh(*args, "--", "go", cwd=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert [json.loads(c["argv"][0])["last-assistant-message"] for c in calls] == ["second"]
