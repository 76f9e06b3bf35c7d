"""The transcript's writer when stdout is not a terminal: rich's output, without importing rich.

A ``dsh run`` whose output goes to a pipe or a file prints plain lines; rich
(~25 ms of imports) would only strip the markup the transcript is written in.
``PlainConsole.print`` gives the same text for the markup the transcript uses:
style tags dropped, ``\\[`` escapes undone, the ``end`` appended. Whatever rich
would change further (an ``:emoji:`` code, a tab it expands, a control
character it strips, a tag it would read another way or refuse) makes that one
call go through a real rich ``Console``, imported then, so the bytes are always
rich's. ``markup_escape`` is ``rich.markup.escape``, written out.
``tests/cli/test_plain_console.py`` checks both against rich on generated text.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["Out", "PlainConsole", "markup_escape", "plain_output"]

# rich.markup's pattern of a tag, as rich 15 has it (its escape's is ``_escape``).
_TAGS: Final = re.compile(r"((\\*)\[([a-z#/@][^[]*?)])")
# What else rich changes in a text: a tab, the control characters its Text strips.
_RICH_CHANGES: Final = re.compile(r"[\t\x07\x08\x0b\x0c\r]")


# The patterns below are compiled when a text may hold what they match (most lines do not).
@functools.cache
def _escape() -> re.Pattern[str]:
    return re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")  # rich.markup's, as rich 15 has it


@functools.cache
def _emoji_code() -> re.Pattern[str]:
    return re.compile(r"(:(\S*?)(?:(?:\-)(emoji|text))?:)")  # rich's, on each piece between tags


def _has_emoji(piece: str) -> bool:
    """Whether rich would replace an emoji code in ``piece`` (its table loaded only for a
    candidate: a ``:name:`` such as a ``claude-hooks:Stop:`` source or a time of day)."""
    if piece.count(":") < 2:  # a code is two colons and what is between them
        return False
    codes = [m.group(2).lower() for m in _emoji_code().finditer(piece)]
    if not codes:
        return False
    from rich._emoji_codes import EMOJI  # a table only (~3 ms), not the console

    return any(code in EMOJI for code in codes)


class Out(Protocol):
    """What the headless transcript prints through (``rich.console.Console`` is one)."""

    def print(
        self,
        *objects: Any,
        end: str = "\n",
        markup: bool | None = None,
        highlight: bool | None = None,
    ) -> None: ...


def _escape_backslashes(match: re.Match[str]) -> str:
    backslashes, text = match.groups()
    return f"{backslashes}{backslashes}\\{text}"


def markup_escape(markup: str) -> str:
    """``rich.markup.escape``: ``markup`` with what rich would read as a tag escaped."""
    if "[" in markup:  # a tag starts with one
        markup = _escape().sub(_escape_backslashes, markup)
    if markup.endswith("\\") and not markup.endswith("\\\\"):
        return markup + "\\"
    return markup


def _plain_text(markup: str) -> str | None:
    """The text rich renders from ``markup`` (styles dropped), or ``None`` to leave it to rich."""
    out: list[str] = []  # rich's text pieces, each of which it scans for emoji codes
    open_tags: list[str] = []
    position = 0
    for match in _TAGS.finditer(markup):
        full_text, escapes, tag_text = match.groups()
        start, end = match.span()
        if start > position:
            out.append(markup[position:start].replace("\\[", "["))
        position = end
        if escapes:
            backslashes, escaped = divmod(len(escapes), 2)
            out.append("\\" * backslashes)
            if escaped:
                out.append(full_text[len(escapes) :].replace("\\[", "["))
                continue
        if tag_text.startswith("@") or "=" in tag_text:
            return None  # a handler or a parameter: rich's to read
        if tag_text.startswith("/"):
            name = tag_text[1:]
            if not name:
                if not open_tags:
                    return None  # rich refuses it
                open_tags.pop()
            elif open_tags and open_tags[-1] == name:
                open_tags.pop()
            else:
                return None  # rich searches the stack (or refuses): leave it to rich
        else:
            open_tags.append(tag_text)
    out.append(markup[position:].replace("\\[", "["))
    if any(_has_emoji(piece) for piece in out):
        return None
    text = "".join(out)
    return None if _RICH_CHANGES.search(text) else text


def plain_output() -> bool:
    """Whether rich would print without styles here: stdout not a terminal, none forced."""
    if "FORCE_COLOR" in os.environ or os.environ.get("TTY_COMPATIBLE") in ("0", "1"):
        return False
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        return isatty is None or not isatty()
    except ValueError:
        return True


class PlainConsole:
    """Prints the transcript's markup as rich's ``Console(highlight=False, soft_wrap=True)``
    does on a stdout that is not a terminal (to ``sys.stdout`` at each call, as rich)."""

    __slots__ = ("_rich",)

    def __init__(self) -> None:
        self._rich: Console | None = None

    def print(
        self,
        *objects: Any,
        end: str = "\n",
        markup: bool | None = None,
        highlight: bool | None = None,
    ) -> None:
        text: str | None = None
        if len(objects) == 1 and type(objects[0]) is str:
            given = objects[0]
            if markup is False or "[" not in given:
                changed = _has_emoji(given) or _RICH_CHANGES.search(given)
                text = None if changed else given
            else:
                text = _plain_text(given)
        elif not objects:
            text = ""
        if text is None:
            self._console().print(*objects, end=end, markup=markup, highlight=highlight)
            return
        out = sys.stdout
        out.write(text + end)
        out.flush()

    def _console(self) -> Console:
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(highlight=False, soft_wrap=True)
        return self._rich
