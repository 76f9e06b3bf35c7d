"""``PlainConsole`` prints what rich prints off a terminal, byte for byte, without rich.

The reference is the transcript's rich console (``Console(highlight=False,
soft_wrap=True)``) writing to a file that is not a terminal; the markup is built
from the transcript's own tags and escaped texts, and from fragments rich reads
specially (emoji codes, tabs, backslashes, brackets, stray tags).
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.markup import escape as rich_escape

from dsh.cli._plain_console import PlainConsole, markup_escape, plain_output
from dsh.cli._render import plain_markup

_TAGS = ["dim", "bold", "bold cyan", "bold yellow", "red", "yellow", "magenta", "blue", "green"]
_FRAGMENTS = [
    ":smile:",
    ":thumbs_up:",
    ":not-an-emoji:",
    ":Smile:",
    ":smile-emoji:",
    ":thumbs_up-text:",
    "claude-hooks:Stop:",
    "12:30:45",
    "::",
    "http://127.0.0.1:8080/",
    "\t",
    "\\",
    "\\\\",
    "[",
    "]",
    "\\[",
    "[/]",
    "[/red]",
    "[link=https://example.com]",
    "[@click]",
    "[x]",
    "\r",
    "\x0b",
    " ",
    "\n",
    "● ⎿ ✗ ↳",
]


def _rich(text: str, **kwargs: object) -> tuple[str, type[BaseException] | None]:
    buffer = io.StringIO()
    try:
        Console(file=buffer, highlight=False, soft_wrap=True).print(text, **kwargs)  # type: ignore[arg-type]
    except Exception as exc:
        return buffer.getvalue(), type(exc)
    return buffer.getvalue(), None


def _plain(text: str, **kwargs: object) -> tuple[str, type[BaseException] | None]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            PlainConsole().print(text, **kwargs)  # type: ignore[arg-type]
        except Exception as exc:
            return buffer.getvalue(), type(exc)
    return buffer.getvalue(), None


@st.composite
def _markup(draw: st.DrawFn) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["open", "close", "text", "fragment", "escaped"]))
        if kind == "open":
            parts.append(f"[{draw(st.sampled_from(_TAGS))}]")
        elif kind == "close":
            parts.append(f"[/{draw(st.sampled_from(_TAGS))}]")
        elif kind == "text":
            parts.append(draw(st.text(max_size=20)))
        elif kind == "fragment":
            parts.append(draw(st.sampled_from(_FRAGMENTS)))
        else:
            pieces = st.sampled_from([*_FRAGMENTS, "a", "é", "[b]"])
            parts.append(plain_markup("".join(draw(st.lists(pieces, max_size=6)))))
    return "".join(parts)


@pytest.fixture(autouse=True)
def _no_forced_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)


@settings(max_examples=400, deadline=None)
@given(_markup())
def test_markup_prints_as_rich_prints_it(text: str) -> None:
    assert _plain(text) == _rich(text)


@settings(max_examples=200, deadline=None)
@given(_markup(), st.sampled_from(["\n", "", " end\n"]))
def test_without_markup_and_other_ends_too(text: str, end: str) -> None:
    assert _plain(text, markup=False, highlight=False) == _rich(text, markup=False, highlight=False)
    assert _plain(text, end=end) == _rich(text, end=end)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_escape_is_riches(text: str) -> None:
    assert markup_escape(text) == rich_escape(text)
    # An escaped text prints as written (made terminal-safe first, as the transcript does).
    assert _plain(plain_markup(text)) == _rich(plain_markup(text))


def test_the_transcripts_lines_print_plain() -> None:
    # The common lines take the plain path: no rich Console is built for them.
    console = PlainConsole()
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        console.print("[dim]── turn ──[/dim]")
        prompt, reply = plain_markup("say [b]hi[/b] \\"), plain_markup("hello\nthere")
        console.print(f"[bold cyan]> {prompt}[/bold cyan]")
        console.print(f"[bold]●[/bold] {reply}")
    assert console._rich is None
    assert buffer.getvalue() == "── turn ──\n> say [b]hi[/b] \\\n● hello\nthere\n"


def test_a_colon_that_is_no_emoji_code_prints_plain() -> None:
    # A hook's context source ("claude-hooks:Stop:") or a time of day is no emoji: plain.
    console = PlainConsole()
    buffer = io.StringIO()
    line = "  [magenta]+ context from claude-hooks:Stop:[/magenta] at 12:30:45"
    with contextlib.redirect_stdout(buffer):
        console.print(line)
    assert console._rich is None
    assert (buffer.getvalue(), None) == _rich(line)


def test_plain_only_off_a_terminal_with_no_colour_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert plain_output()
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not plain_output()
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    assert not plain_output()


def test_a_piped_run_with_forced_colour_still_prints_through_rich(tmp_path: object) -> None:
    # FORCE_COLOR makes rich style a pipe: the transcript's printer follows it.
    code = (
        "from dsh.cli._render import TranscriptPrinter\n"
        "p = TranscriptPrinter()\n"
        "p.out.print('[red]x[/red]')\n"
    )
    env = {"FORCE_COLOR": "1", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert "\x1b[" in out
    assert "x" in out
