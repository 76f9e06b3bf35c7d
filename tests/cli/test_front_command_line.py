"""Bare ``dsh`` takes Claude Code's command line (``-p``, ``-c``, ``-r``, ``--model``, ...)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.cli._front import tool_rules
from tests.cli.test_cli import dsh, write_script


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def _flags(tmp_path: Path, responses: list[Any]) -> list[str]:
    script = write_script(tmp_path / "script.json", responses)
    return ["--model", f"scripted:{script}", "--session-dir", str(tmp_path / "sessions")]


def _events(tmp_path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for log in sorted((tmp_path / "sessions").glob("*.jsonl")):
        out += [json.loads(line) for line in log.read_text().splitlines()]
    return out


def _prompts(tmp_path: Path) -> list[str]:
    return [e["content"] for e in _events(tmp_path) if e["type"] == "user/message"]


def test_print_runs_the_prompt_headless_with_options_after_it(
    tmp_path: Path, project: Path
) -> None:
    flags = _flags(tmp_path, [[{"type": "text", "text": "HELLO-BACK"}]])
    done = dsh("-p", "say hello", *flags, "--output-format", "text", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "HELLO-BACK\n"
    assert _prompts(tmp_path) == ["say hello"]


def test_a_prompt_away_from_a_terminal_runs_as_dsh_run(tmp_path: Path, project: Path) -> None:
    flags = _flags(tmp_path, [[{"type": "text", "text": "HELLO-BACK"}]])
    done = dsh(*flags, "say", "hello", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "HELLO-BACK" in done.stdout
    assert _prompts(tmp_path) == ["say hello"]


def test_print_reads_the_prompt_from_stdin(tmp_path: Path, project: Path) -> None:
    flags = _flags(tmp_path, [[{"type": "text", "text": "OK"}]])
    done = dsh("-p", *flags, cwd=project, stdin="from stdin\n")
    assert done.returncode == 0, done.stderr
    assert _prompts(tmp_path) == ["from stdin"]


def test_a_command_name_is_the_command_unless_after_p_or_dashes(
    tmp_path: Path, project: Path
) -> None:
    flags = _flags(tmp_path, [[{"type": "text", "text": "OK"}]] * 2)
    listed = dsh("log", "--session-dir", str(tmp_path / "sessions"), cwd=project)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("no sessions")
    assert dsh("-p", "log", *flags, cwd=project).returncode == 0
    assert dsh(*flags, "--", "config", cwd=project).returncode == 0
    assert sorted(_prompts(tmp_path)) == ["config", "log"]


def test_continue_resume_and_max_turns(tmp_path: Path, project: Path) -> None:
    bash = {"type": "tool_use", "name": "Bash", "input": {"command": "echo x"}}
    flags = _flags(tmp_path, [[{"type": "text", "text": "ONE"}], [{"type": "text", "text": "TWO"}]])
    assert dsh("-p", "first", *flags, cwd=project).returncode == 0
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    assert dsh("-c", "-p", "second", *flags, cwd=project).returncode == 0
    assert dsh("-p", "third", "-r", log.stem[:8], *flags, cwd=project).returncode == 0
    assert len(list((tmp_path / "sessions").glob("*.jsonl"))) == 1
    assert _prompts(tmp_path) == ["first", "second", "third"]
    limited = _flags(tmp_path, [[bash], [bash], [{"type": "text", "text": "never"}]])
    done = dsh("-p", "loop", *limited, "--max-turns", "1", cwd=project)
    assert done.returncode == 3, done.stderr
    assert "the step limit" in done.stdout


def test_disallowed_tools_are_denied_as_claude_codes_rules(tmp_path: Path, project: Path) -> None:
    bash = {"type": "tool_use", "name": "Bash", "input": {"command": "echo RAN > ran.txt"}}
    flags = _flags(tmp_path, [[bash], [{"type": "text", "text": "done"}]])
    flags += ["--permission-mode", "bypassPermissions"]
    done = dsh("-p", "go", *flags, "--disallowedTools", "Edit,Bash(echo *)", cwd=project)
    assert done.returncode == 0, done.stderr
    assert not (project / "ran.txt").exists()
    [result] = [e for e in _events(tmp_path) if e["type"] == "tool/result"]
    assert result["code"] == "DENIED"


def test_tool_lists_split_as_claude_code_splits_them() -> None:
    assert tool_rules(("Bash(git log:*) Edit", "Read,Write")) == [
        "Bash(git log:*)",
        "Edit",
        "Read",
        "Write",
    ]


def test_print_with_no_prompt_at_all_says_so(tmp_path: Path, project: Path) -> None:
    done = dsh("-p", *_flags(tmp_path, []), cwd=project)
    assert done.returncode == 2
    assert "Missing argument" in done.stderr


def test_the_first_run_error_names_flags_bare_dsh_takes(tmp_path: Path, project: Path) -> None:
    done = dsh("hello", cwd=project, env_extra={"DSH_CONFIG_DIR": str(tmp_path / "cfg")})
    assert done.returncode == 2
    assert "no model: pass --model scripted:FILE or --model NAME --base-url URL" in done.stderr
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "OK"}]])
    sessions = str(tmp_path / "sessions")
    named = ["--model", f"scripted:{script}", "--base-url", "http://127.0.0.1:9", "hello"]
    again = dsh(*named, "--session-dir", sessions, cwd=project)
    assert again.returncode == 0, again.stderr


def test_claudes_session_flags_on_bare_dsh(tmp_path: Path, project: Path) -> None:
    """``--append-system-prompt``, ``--permission-mode``, ``--settings``, ``--add-dir`` and
    ``--output-format`` on bare ``dsh`` do what they do on ``claude``."""
    write = {"type": "tool_use", "name": "Write", "input": {"file_path": "f.txt", "content": "x"}}
    script = tmp_path / "script.json"
    rule = {"contains": "APPENDED-PROMPT", "responses": [[write], [{"type": "text", "text": "OK"}]]}
    script.write_text(json.dumps({"rules": [rule], "default": [{"type": "text", "text": "NO"}]}))
    (tmp_path / "extra").mkdir()
    hook = {"hooks": [{"type": "command", "command": "echo SETTINGS-HOOK >> hook.log"}]}
    settings = json.dumps({"hooks": {"UserPromptSubmit": [hook]}})
    sessions = ["--session-dir", str(tmp_path / "sessions")]
    done = dsh(
        "--model", f"scripted:{script}", *sessions, "--append-system-prompt", "APPENDED-PROMPT",
        "--permission-mode", "plan", "--settings", settings, "--add-dir", str(tmp_path / "extra"),
        "--output-format", "json", "--trust-project", "-p", "go", cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "OK"
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Write"]  # plan mode
    assert not (project / "f.txt").exists()
    assert (project / "hook.log").read_text() == "SETTINGS-HOOK\n"


def test_stream_json_input_on_bare_dsh(tmp_path: Path, project: Path) -> None:
    flags = _flags(tmp_path, [[{"type": "text", "text": "STREAMED"}]])
    line = json.dumps({"type": "user", "message": {"role": "user", "content": "from a line"}})
    done = dsh(
        "-p", *flags, "--input-format", "stream-json", "--output-format", "stream-json",
        cwd=project, stdin=line + "\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["result"] == "STREAMED"
    assert _prompts(tmp_path) == ["from a line"]


def test_every_dsh_run_option_is_a_bare_dsh_option() -> None:
    """Bare ``dsh`` takes ``dsh run``'s options as they are declared (so one added there,
    ``--mcp-config`` for one, is Claude's command line here too)."""
    from dsh.cli._main import cli, run

    bare = {opt for p in cli.params for opt in p.opts}
    for param in run.params:
        if param.param_type_name == "option":
            assert set(param.opts) <= bare, param.opts


def test_print_attaches_a_mentioned_file_as_claude_p_does(tmp_path: Path, project: Path) -> None:
    """``dsh -p "… @note.txt"`` attaches the file as the interactive prompt does (2.1.332's
    ``-p`` gives the same shape, ``tests/fixtures/claude_input.json``); the prompt's hooks see
    the text as typed."""
    (project / "note.txt").write_text("line one\nline two\n")
    seen = "Result of calling the Read tool:\n1\tline one\n2\tline two\n3\t\n</system-reminder>"
    rule = {"contains": seen, "responses": [[{"type": "text", "text": "SAW-IT"}]]}
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"rules": [rule], "default": [{"type": "text", "text": "NO"}]}))
    hook = tmp_path / "prompt_hook.py"
    prompts = tmp_path / "prompts.txt"
    hook.write_text(
        f"import json, sys\nopen({str(prompts)!r}, 'a').write(json.load(sys.stdin)['prompt'])\n"
    )
    command = {"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}
    settings = json.dumps({"hooks": {"UserPromptSubmit": [command]}})
    done = dsh(
        "-p", "look at @note.txt", "--model", f"scripted:{script}", "--settings", settings,
        "--session-dir", str(tmp_path / "sessions"), "--trust-project", "--output-format", "text",
        cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "SAW-IT\n"
    [prompt] = _prompts(tmp_path)
    assert isinstance(prompt, list)
    assert prompt[-1] == {"type": "text", "text": "look at @note.txt"}
    assert f'"file_path":"{project / "note.txt"}"' in prompt[0]["text"]
    assert prompts.read_text() == "look at @note.txt"


def test_plain_run_shows_an_attached_prompt_as_typed(tmp_path: Path, project: Path) -> None:
    """Plain ``dsh run "… @note.txt"`` (and ``dsh log``) shows the prompt as typed and a
    ``Read note.txt (N lines)`` line, as 2.1.332 shows it, not the blocks the model reads."""
    (project / "note.txt").write_text("line one\nline two\n")
    flags = _flags(tmp_path, [[{"type": "text", "text": "SAW-IT"}]])
    done = dsh("run", "look at @note.txt", *flags, cwd=project)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = lines.index("> look at @note.txt")
    assert lines[at + 1] == "  ⎿ Read note.txt (3 lines)"
    assert "system-reminder" not in done.stdout
    assert "line one" not in done.stdout
    [prompt] = _prompts(tmp_path)  # the model still reads the file
    assert isinstance(prompt, list)
    assert "1\tline one" in prompt[1]["text"]
    sessions = ["--session-dir", str(tmp_path / "sessions")]
    table = dsh("log", *sessions, cwd=project)
    assert table.stdout.splitlines()[1].endswith("look at @note.txt"), table.stdout
    [row] = [
        json.loads(line)
        for line in dsh("log", "--json", *sessions, cwd=project).stdout.splitlines()
    ]
    timeline = dsh("log", row["id"], *sessions, cwd=project)
    assert "user/message        > look at @note.txt\n" in timeline.stdout
    assert "system-reminder" not in table.stdout + timeline.stdout
