"""What a new user hits in the first minutes (issue 32): each a real ``dsh`` process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import dsh, write_script


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def _recording_hook(record: Path, word: str) -> dict[str, Any]:
    command = f"{sys.executable} -c \"open('{record}', 'a').write('{word}\\n')\""
    return {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}


def _run_args(tmp_path: Path, project: Path, responses: list[Any] | None = None) -> list[str]:
    script = write_script(tmp_path / "script.json", responses or [[{"type": "text", "text": "ok"}]])
    return [
        "--model",
        f"scripted:{script}",
        "--project",
        str(project),
        "--session-dir",
        str(tmp_path / "sessions"),
    ]


def test_no_claude_hooks_leaves_the_projects_hooks_out_with_settings_given(
    tmp_path: Path, project: Path
) -> None:
    record = tmp_path / "fired.txt"
    (project / ".claude").mkdir()
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"hooks": _recording_hook(record, "project")}))
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"hooks": _recording_hook(record, "settings")}))
    args = [*_run_args(tmp_path, project), "--settings", str(extra), "--no-claude-hooks"]
    done = dsh("run", "hi", *args, cwd=tmp_path, env_extra={"HOME": str(tmp_path / "home")})
    assert done.returncode == 0, done.stderr
    assert record.read_text().splitlines() == ["settings"]


def test_log_hooks_names_each_hooks_event_command_and_source(tmp_path: Path, project: Path) -> None:
    record = tmp_path / "fired.txt"
    (project / ".claude").mkdir()
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"hooks": _recording_hook(record, "project")}))
    args = _run_args(tmp_path, project)
    env = {"HOME": str(tmp_path / "home")}
    assert dsh("run", "hi", *args, cwd=tmp_path, env_extra=env).returncode == 0
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    shown = dsh(
        "log", log.stem, "--hooks", "--session-dir", str(tmp_path / "sessions"), cwd=tmp_path
    )
    assert shown.returncode == 0, shown.stderr
    assert "None" not in shown.stdout
    [invocation] = [line for line in shown.stdout.splitlines() if "hook/invocation" in line]
    assert f"UserPromptSubmit sh -c {sys.executable} -c" in invocation
    [result] = [line for line in shown.stdout.splitlines() if "hook/result" in line]
    assert "UserPromptSubmit exit 0" in result


PLUGIN = """
from dsh.tools import PRE_EXECUTE, PreToolDecision

def fn(ctx):
    @ctx.on(PRE_EXECUTE)
    async def refuse(call, next):
        if "secret" in str(call.arguments.get("command", "")):
            return PreToolDecision.deny("not that one")
        return await next()
"""


def test_a_plugins_denial_is_shown_with_the_plugins_name(tmp_path: Path, project: Path) -> None:
    (tmp_path / "myplug.py").write_text(PLUGIN)
    bash = {"type": "tool_use", "name": "Bash", "input": {"command": "cat secret"}}
    args = _run_args(tmp_path, project, [[bash], [{"type": "text", "text": "fine"}]])
    done = dsh("run", "hi", *args, "--plugin", "myplug:fn", "--no-claude-hooks", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "by plugin myplug:fn" in done.stdout
    assert "pre-execute policy" not in done.stdout
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    [result] = [e for e in events if e["type"] == "tool/result"]
    assert result["code"] == "DENIED"
    assert result["info"]["info"] == {"plugin": "myplug:fn"}


def test_user_level_codex_hooks_run_once_trusted_and_are_named_until_then(
    tmp_path: Path, project: Path
) -> None:
    record = tmp_path / "fired.txt"
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "hooks.json").write_text(json.dumps({"hooks": _recording_hook(record, "codex")}))
    env = {"CODEX_HOME": str(home), "HOME": str(tmp_path / "home")}
    args = _run_args(tmp_path, project, [[{"type": "text", "text": "ok"}]] * 2)
    first = dsh("run", "hi", *args, cwd=tmp_path, env_extra=env, trust=False)
    assert first.returncode == 0, first.stderr
    assert not record.exists()
    assert "not trusted" in first.stdout + first.stderr
    assert str(home / "hooks.json") in first.stdout + first.stderr
    trusted = dsh("hooks", "trust", "--project", str(project), cwd=tmp_path, env_extra=env)
    assert trusted.returncode == 0, trusted.stderr
    assert f"codex hooks: trusted {home / 'hooks.json'}:user_prompt_submit" in trusted.stdout
    again = dsh("run", "hi", *args, cwd=tmp_path, env_extra=env, trust=False)
    assert again.returncode == 0, again.stderr
    assert record.read_text().splitlines() == ["codex"]


@pytest.mark.parametrize("under", [False, True])
def test_a_data_dir_that_is_a_file_is_a_clear_error(
    tmp_path: Path, project: Path, under: bool
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    data = a_file / "sessions" if under else a_file
    args = _run_args(tmp_path, project)[:-2]  # no --session-dir: DSH_DATA_DIR says where
    done = dsh("run", "hi", *args, cwd=tmp_path, env_extra={"DSH_DATA_DIR": str(data)})
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"dsh: DSH_DATA_DIR {data} ")
    assert "not a directory" in done.stderr
    assert "internal error" not in done.stderr


def test_an_add_dir_that_does_not_exist_is_refused_in_claude_codes_words(
    tmp_path: Path, project: Path
) -> None:
    missing = tmp_path / "nowhere"
    done = dsh("run", "hi", *_run_args(tmp_path, project), "--add-dir", str(missing), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"dsh: --add-dir {missing}: Path {missing} was not found.\n"
    assert not (tmp_path / "sessions").exists()


@pytest.mark.parametrize("prompt", ["", "   \n"])
def test_an_empty_prompt_is_refused(tmp_path: Path, project: Path, prompt: str) -> None:
    done = dsh("run", prompt, *_run_args(tmp_path, project), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("Usage: ") or done.stderr.startswith("dsh: ")
    said = "only white space" if prompt else "Missing argument 'PROMPT...'"
    assert said in done.stderr
    assert not (tmp_path / "sessions").exists()


def test_a_corrupt_session_file_is_named_by_dsh_log_only(tmp_path: Path, project: Path) -> None:
    args = _run_args(tmp_path, project, [[{"type": "text", "text": "ok"}]] * 2)
    assert dsh("run", "hi", *args, cwd=tmp_path).returncode == 0
    bad = tmp_path / "sessions" / "broken.jsonl"
    bad.write_text("not a header\n")
    again = dsh("run", "more", *args, "-c", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "skipping" not in again.stdout + again.stderr
    listed = dsh("log", "--session-dir", str(tmp_path / "sessions"), cwd=project)
    assert listed.returncode == 0, listed.stderr
    assert listed.stderr.count("skipping") == 1
    assert f"dsh: skipping {bad}: " in listed.stderr
