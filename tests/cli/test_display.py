"""The printer shows an ``assistant/display`` replacement in place of the message's text."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from rich.console import Console

from dsh.cli._render import TranscriptPrinter
from dsh.session import (
    AssistantDisplayEvent,
    AssistantMessageEvent,
    ContextMessageEvent,
    NoticeEvent,
    SteeringMessageEvent,
)
from tests.cli.test_cli import dsh, write_script

HIDE = (
    "import json, sys\n"
    "p = json.load(sys.stdin)\n"
    "shown = p['delta'].replace('SECRET-42', '[hidden]')\n"
    "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'MessageDisplay',\n"
    "    'displayContent': shown}}))\n"
)


def _printer() -> tuple[TranscriptPrinter, io.StringIO]:
    out = io.StringIO()
    return TranscriptPrinter(Console(file=out, width=200, no_color=True, highlight=False)), out


def test_dsh_run_and_dsh_log_show_the_hooks_replacement(tmp_path: Path) -> None:
    project = tmp_path / "project"
    hook = project / ".claude" / "hooks" / "hide.py"
    hook.parent.mkdir(parents=True)
    hook.write_text(HIDE)
    command = f'{sys.executable} "$CLAUDE_PROJECT_DIR/.claude/hooks/hide.py"'
    settings = {"hooks": {"MessageDisplay": [{"hooks": [{"type": "command", "command": command}]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    script = write_script(
        tmp_path / "script.json", [[{"type": "text", "text": "The key is SECRET-42."}]]
    )
    home = tmp_path / "home"
    home.mkdir()
    sessions = tmp_path / "s"
    done = dsh(
        "run",
        "what is the key?",
        "--model",
        f"scripted:{script}",
        "--project",
        str(project),
        "--session-dir",
        str(sessions),
        cwd=tmp_path,
        env_extra={"HOME": str(home)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The key is [hidden]." in done.stdout
    assert "SECRET-42" not in done.stdout
    [log] = sessions.glob("*.jsonl")
    assert "SECRET-42" in log.read_text()  # the log keeps what the model said
    shown = dsh("log", log.stem, "--session-dir", str(sessions), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "The key is [hidden]." in shown.stdout
    assert "SECRET-42" not in shown.stdout


def test_a_replacement_printed_after_its_message_is_shown_beneath_it() -> None:
    printer, out = _printer()
    message = AssistantMessageEvent(text="original")
    printer.print_event(message)
    printer.print_event(NoticeEvent(text="between"))
    printer.print_event(AssistantDisplayEvent(message_id=message.id, text="replacement"))
    lines = out.getvalue().splitlines()
    assert lines[0].endswith("original")
    assert lines[-1].strip() == "↳ shown as: replacement"


def test_an_empty_replacement_hides_the_message_in_a_batch() -> None:
    printer, out = _printer()
    message = AssistantMessageEvent(text="hide me")
    printer.print_events([message, AssistantDisplayEvent(message_id=message.id, text="")])
    assert "hide me" not in out.getvalue()
    assert "shown as" not in out.getvalue()


def test_multi_line_steering_and_context_stay_indented_under_their_label() -> None:
    printer, out = _printer()
    printer.print_events(
        [
            SteeringMessageEvent(text="Stop hook feedback:\nsummarise first", source="hook"),
            ContextMessageEvent(source="hook", text="line one\nline two"),
        ]
    )
    assert out.getvalue().splitlines() == [
        "  ↻ steering: Stop hook feedback:",
        "    summarise first",
        "  + context from hook: line one",
        "    line two",
    ]
