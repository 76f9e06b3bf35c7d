"""``@file`` and ``!command`` become what Claude Code 2.1.332 sends (the recorded fixture)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dsh.cli._prompt_input import PromptCompleter, attach_mentions, bash_blocks
from dsh.messages import TextBlock

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "claude_input.json").read_text())


def _merged(user_messages: list[Any], project: Path) -> list[str]:
    """The recorded user messages as one message's text blocks (the API merges them, and so
    does dsh's Anthropic body)."""
    texts: list[str] = []
    for content in user_messages:
        blocks = [content] if isinstance(content, str) else [b["text"] for b in content]
        texts += [t.replace("$PROJECT", str(project)) for t in blocks]
    return texts


def test_an_at_mention_attaches_the_file_as_claude_code_does(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_text(FIXTURE["note_txt"])
    case = FIXTURE["at-file"]
    content = attach_mentions(case["typed"][0], tmp_path)
    assert isinstance(content, tuple)
    assert [b.text for b in content if isinstance(b, TextBlock)] == _merged(
        case["user_messages"], tmp_path
    )


def test_a_mention_of_no_file_is_text(tmp_path: Path) -> None:
    (tmp_path / "bin").write_bytes(b"\x00\x01")
    (tmp_path / "dir").mkdir()
    text = "see @missing.txt @dir and @bin, or mail a@b.c"
    assert attach_mentions(text, tmp_path) == text


def test_a_bang_command_becomes_claude_codes_blocks(tmp_path: Path) -> None:
    ok = bash_blocks("echo hello-bang", "hello-bang\n", "", 0)
    assert [b.text for b in ok] == _merged(FIXTURE["bang-ok"]["user_messages"], tmp_path)
    failed = bash_blocks("echo out; echo err >&2; exit 3", "out\n", "err\n", 3)
    assert [b.text for b in failed] == _merged(FIXTURE["bang-fail"]["user_messages"], tmp_path)


def test_completion_of_commands_and_paths(tmp_path: Path) -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("")
    (tmp_path / "note.txt").write_text("")
    completer = PromptCompleter(tmp_path, [("/status", "s"), ("/stop", "t"), ("/model", "m")])

    def texts(typed: str) -> list[str]:
        found = completer.get_completions(Document(typed), CompleteEvent(completion_requested=True))
        return [c.text for c in found]

    assert texts("/st") == ["/status", "/stop"]
    assert texts("look at @no") == ["@note.txt", "@notes/"]
    assert texts("@notes/") == ["@notes/a.md"]
    assert texts("/status @") == ["@note.txt", "@notes/"]
