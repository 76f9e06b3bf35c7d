"""A readable transcript of session events, for ``dsh run``, ``dsh demo`` and ``dsh log``.

It reads events by their ``type`` tag, so an event type it does not know
(another package's, or an opaque one from disk) is shown by name, never lost.
An ``assistant/display`` event (an ``agent/message-display`` listener's
replacement) is shown in place of its message's text: the user sees what the
listener chose, the log keeps both.

Every text from a hook, a tool or the model is made terminal-safe before it is
printed (``terminal_safe``): a control character is shown as ``\\xNN``/``\\uNNNN``
rather than sent, so no output can retitle the terminal or clear the screen,
and rich markup in it is escaped.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dsh.cli._plain_console import Out, PlainConsole, markup_escape, plain_output
from dsh.messages import ToolReferenceBlock

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "TranscriptPrinter",
    "for_stream",
    "json_line",
    "plain_markup",
    "terminal_safe",
    "text_of",
]


@functools.cache
def _control() -> re.Pattern[str]:
    # C0 controls but newline and tab, DEL, C1 controls, and the bidi overrides that reorder a
    # line. None of them is printable (str.isprintable): a printable text needs no pattern.
    return re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _shown(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every control character shown as an escape instead of sent to the terminal."""
    if text.isprintable():  # most lines: the pattern is compiled (~0.3 ms) for the others
        return text
    return _control().sub(_shown, text)


def for_stream(text: str, stream: Any) -> str:
    """``text`` as it may be written to ``stream``: terminal-safe at a terminal, as is
    elsewhere (a pipe or a file gets the exact text, as Claude Code's ``-p`` gives it)."""
    isatty = getattr(stream, "isatty", None)
    try:
        at_terminal = bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):
        at_terminal = False
    return terminal_safe(text) if at_terminal else text


@functools.cache
def _json_unsafe() -> re.Pattern[str]:
    # What JSON leaves raw in a string but a terminal may act on: DEL, C1 controls (U+009B is
    # CSI), the line separators and the bidi overrides. Outside strings JSON is ASCII. None of
    # them is printable, as for ``_control``.
    return re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_line(value: Any, *, separators: tuple[str, str] | None = None) -> str:
    """``value`` as one JSON line (UTF-8 text as is) with nothing a terminal acts on: C0
    controls are JSON escapes already, the other controls become ``\\uNNNN`` too."""
    text = json.dumps(value, ensure_ascii=False, separators=separators)
    if text.isprintable():
        return text
    return _json_unsafe().sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def plain_markup(text: str) -> str:
    """``text`` made terminal-safe and escaped for rich, so it prints as written."""
    return markup_escape(terminal_safe(text))


_MAX_RESULT_LINES = 12


def _clip(text: str, lines: int = _MAX_RESULT_LINES) -> str:
    parts = text.rstrip("\n").split("\n")
    if len(parts) <= lines:
        return "\n".join(parts)
    return "\n".join([*parts[:lines], f"… ({len(parts) - lines} more lines)"])


def _indent(text: str, prefix: str = "    ") -> str:
    """Continuation lines of a result, indented under its first line."""
    return text.replace("\n", "\n" + prefix)


def text_of(content: Any) -> str:
    """The text of a message or result's content (a string, or blocks with ``text``; a
    ToolSearch result's tool references as ``loaded NAME``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        return "\n".join(
            f"loaded {b.tool_name}"
            if isinstance(b, ToolReferenceBlock)
            else str(getattr(b, "text", ""))
            for b in content
        )
    return str(content)


def _brief_args(arguments: Any) -> str:
    if isinstance(arguments, dict):
        for key in ("command", "file_path", "pattern", "prompt"):
            if key in arguments:
                return str(arguments[key])
    return json.dumps(arguments, ensure_ascii=False, default=str)[:120]


class TranscriptPrinter:
    """Prints session events as they are appended (or all at once, for a stored log)."""

    def __init__(
        self, console: Console | None = None, *, verbose: bool = False, project: Path | None = None
    ) -> None:
        # rich is imported on first use, and not at all where `out` prints plain lines.
        self._console = console
        self._given = console is not None
        self._out: Out | None = console
        self.verbose = verbose
        self.project = project
        """Where an attached file's path is shown from (else the working directory)."""
        self._tool_names: dict[str, str] = {}
        self._last_blocked: str | None = None
        # Replacements seen ahead of their message (print_events looks ahead in its batch).
        self._shown: dict[str, str] = {}
        self._replaced: set[str] = set()

    @property
    def console(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(highlight=False, soft_wrap=True)
        return self._console

    @property
    def plain(self) -> bool:
        """Whether ``out`` prints without rich (stdout not a terminal, no console given)."""
        return not self._given and plain_output()

    @property
    def out(self) -> Out:
        """Where the transcript prints: ``console``, or on a stdout that is not a terminal a
        ``PlainConsole`` (rich's same bytes, rich imported only for what needs it)."""
        if self._out is None:
            self._out = PlainConsole() if self.plain else self.console
        return self._out

    def print_events(self, events: Iterable[Any]) -> None:
        batch = list(events)
        for event in batch:
            if getattr(event, "type", None) == "assistant/display":
                self._shown[event.message_id] = event.text
        for event in batch:
            self.print_event(event)

    def print_reads(self, content: Any) -> None:
        """A ``Read PATH (N lines)`` line for each file a prompt attaches (``@path``)."""
        from dsh.cli._attachments import attached_reads, read_line  # a prompt was printed

        for path, lines in attached_reads(content):
            line = read_line(path, lines, self.project)
            self.out.print(f"  [dim]⎿ {plain_markup(line)}[/dim]")

    def print_event(self, event: Any) -> None:
        escape = plain_markup
        kind = getattr(event, "type", None)
        out = self.out.print
        if kind == "turn/start":
            out("[dim]── turn ──[/dim]")
        elif kind == "user/message":
            # What 2.1.332 shows of a prompt: the text as typed, a line for each @file.
            from dsh.cli._attachments import typed_text  # a blocked prompt prints none

            out(f"[bold cyan]> {escape(typed_text(event.content))}[/bold cyan]")
            self.print_reads(event.content)
        elif kind == "assistant/message":
            text = event.text
            if event.id in self._shown:
                text = self._shown.pop(event.id)
                self._replaced.add(event.id)
            if text:
                out(f"[bold]●[/bold] {escape(text)}")
            for call in event.tool_calls:
                self._tool_names[call.id] = call.name
        elif kind == "assistant/display":
            if event.message_id in self._replaced:
                self._replaced.discard(event.message_id)
            else:
                # Its message was printed before the replacement arrived (one event at a time).
                out(f"  [dim]↳ shown as:[/dim] {escape(event.text)}")
        elif kind == "tool/call":
            self._tool_names[event.tool_use_id or ""] = event.tool_name
            name, args = escape(event.tool_name), escape(_brief_args(event.arguments))
            out(f"[yellow]⏺ {name}[/yellow]({args})")
        elif kind == "tool/result":
            text = _indent(_clip(text_of(event.content)))
            if event.is_error:
                # Only a failed tool call needs them; a run without one never imports them.
                from dsh.cli._attribution import approval_denial_hint, decided_by

                code = f" [{event.code}]" if event.code else ""
                who = decided_by(event.info) if event.code == "DENIED" else None
                code += f" by {who}" if who else ""
                out(f"  [red]⎿ error{escape(code)}: {escape(text)}[/red]")
                hint = approval_denial_hint(event.info)
                if hint is not None:
                    out(f"    [yellow]{escape(hint)}[/yellow]")
            else:
                out(f"  [dim]⎿ {escape(text)}[/dim]")
        elif kind == "context/message":
            source, text = escape(event.source), escape(_indent(event.text))
            out(f"  [magenta]+ context from {source}:[/magenta] {text}")
        elif kind == "steering/message":
            out(f"  [magenta]↻ steering:[/magenta] {escape(_indent(event.text))}")
        elif kind == "prompt/blocked":
            self._last_blocked = event.reason
            by = getattr(event, "by", None)
            who = f" ({escape(by)})" if by else ""
            out(f"[red]✗ prompt blocked by policy{who}: {escape(event.reason)}[/red]")
        elif kind == "notice":
            # The loop pairs every blocked prompt with a notice of the same reason.
            if event.text != self._last_blocked:
                out(f"[blue]ℹ {escape(event.text)}[/blue]")
            self._last_blocked = None
        elif kind == "compaction/end":
            out(f"[dim]── compacted: {escape(_clip(event.summary, 3))} ──[/dim]")
        elif kind == "subagent/start":
            out(f"[yellow]⤷ subagent {escape(str(event.agent_type))} started[/yellow]")
        elif kind == "subagent/end":
            out(f"[yellow]⤶ subagent ended ({escape(str(event.end_reason))})[/yellow]")
        elif kind == "turn/end":
            reason = str(event.reason)
            cause = getattr(event, "cause", None)
            detail = f": {cause.kind}: {cause.reason}" if cause is not None else ""
            error = getattr(event, "error", None)
            if error:
                detail += f": {error}"
            style = "green" if reason in ("completed",) else "yellow"
            out(f"[{style}]── turn ended: {escape(reason + detail)} ──[/{style}]")
        elif self.verbose:
            out(f"[dim]· {escape(str(kind))}[/dim]")
