"""What the interactive prompt makes of a line: ``@path`` mentions, ``!command``, completion.

As Claude Code 2.1.332 does (``tests/fixtures/claude_input.json``, recorded by
``benchmarks/record_claude_input.py``):

- each ``@path`` naming a readable text file attaches it: before the prompt's text, a
  ``<system-reminder>`` saying the Read tool was called on its absolute path, and one with
  the result (each line numbered ``N<TAB>line``); the prompt's text is kept as typed. A
  mention that names no file stays text.
- ``!command`` runs in the shell at the project (contained and ended as the Bash tool's
  processes are), its output shown, and the conversation gets ``<bash-input>command
  </bash-input>`` and ``<bash-stdout>…</bash-stdout><bash-stderr>…</bash-stderr>`` (on
  a failure, the output is the stderr part, as Claude Code gives it); a turn follows.
- ``PromptCompleter`` completes slash commands at the start of the line and ``@`` paths
  anywhere (relative to the project).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from prompt_toolkit.completion import Completer, Completion

from dsh.cli._attachments import attachment_blocks
from dsh.messages import Content, TextBlock

__all__ = [
    "PromptCompleter",
    "attach_mentions",
    "bash_blocks",
    "run_bang",
]

MAX_ATTACHED_BYTES: Final = 256 * 1024
"""What an ``@file`` attaches at most (and ``_attachments.MAX_ATTACHED_LINES`` lines)."""
MAX_BANG_OUTPUT: Final = 30_000
"""Characters of a ``!command``'s output kept for the conversation (Bash's own cut)."""
_MENTION: Final = re.compile(r'(?:^|(?<=\s))@("[^"\n]+"|[^\s"]+)')


def _mentioned(text: str) -> Iterator[str]:
    for match in _MENTION.finditer(text):
        yield match.group(1).strip('"')


def _read_text(path: Path) -> str | None:
    try:
        if not path.is_file():
            return None
        with path.open("rb") as f:
            raw = f.read(MAX_ATTACHED_BYTES)
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return None if "\x00" in text else text


def attach_mentions(text: str, project: Path) -> Content:
    """``text`` with the files it mentions attached, as Claude Code attaches them (``text``
    itself when it mentions none)."""
    blocks: list[TextBlock] = []
    seen: set[Path] = set()
    for given in _mentioned(text):
        path = Path(os.path.expanduser(given))
        path = Path(os.path.abspath(path if path.is_absolute() else project / path))
        if path in seen:
            continue
        body = _read_text(path)
        if body is None:
            continue
        seen.add(path)
        blocks.extend(attachment_blocks(path, body))
    if not blocks:
        return text
    return (*blocks, TextBlock(text))


def bash_blocks(command: str, stdout: str, stderr: str, code: int) -> tuple[TextBlock, ...]:
    """What a ``!command`` adds to the conversation (2.1.332's shape)."""
    if code != 0:
        stdout, stderr = "", stdout + stderr
    else:
        stdout, stderr = stdout.rstrip("\n"), stderr.rstrip("\n")
    return (
        TextBlock(f"<bash-input>{command}</bash-input>\n"),
        TextBlock(f"<bash-stdout>{stdout}</bash-stdout><bash-stderr>{stderr}</bash-stderr>"),
    )


def _bounded(f: Any) -> str:
    f.seek(0)
    raw: bytes = f.read(MAX_BANG_OUTPUT * 4 + 1)
    text = raw.decode("utf-8", errors="replace")
    if len(text) > MAX_BANG_OUTPUT:
        text = text[:MAX_BANG_OUTPUT] + "\n… (output cut)"
    return text


async def run_bang(command: str, cwd: Path) -> tuple[str, str, int]:
    """Run ``command`` with bash at ``cwd``: ``(stdout, stderr, exit status)``, each output
    bounded. Cancelling the awaiting task ends the command's whole process tree."""
    from dsh.tools.builtin._process import run_in_group

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        done = await run_in_group(
            ["bash", "-c", command],
            cwd=cwd,
            env=dict(os.environ),
            stdout=out,
            stderr=err,
            signal=None,
            timeout=None,
        )
        return _bounded(out), _bounded(err), done.returncode


class PromptCompleter(Completer):
    """prompt_toolkit completions: ``/command`` at the line's start, ``@path`` anywhere."""

    def __init__(self, project: Path, commands: Iterable[tuple[str, str]]) -> None:
        self.project = project
        self.commands = tuple(commands)

    def get_completions(self, document: Any, complete_event: Any) -> Iterator[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            for name, meta in self.commands:
                if name.startswith(before):
                    yield Completion(name, start_position=-len(before), display_meta=meta)
            return
        word = before.split()[-1] if before and not before[-1].isspace() else ""
        if not word.startswith("@"):
            return
        for path in self._paths(word[1:]):
            yield Completion("@" + path, start_position=-len(word))

    def _paths(self, given: str) -> list[str]:
        head, _, stem = given.rpartition("/")
        base = Path(os.path.expanduser(head)) if head else Path()
        folder = base if base.is_absolute() else self.project / base
        try:
            names = sorted(e.name for e in os.scandir(folder) if e.name.startswith(stem))
        except OSError:
            return []
        shown = []
        for name in names[:200]:
            if name.startswith(".") and not stem.startswith("."):
                continue
            text = f"{head}/{name}" if head else name
            shown.append(text + "/" if (folder / name).is_dir() else text)
        return shown
