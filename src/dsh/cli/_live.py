"""``LiveView``: a running session shown on a terminal as it happens.

It hears every session event as it is appended (``HostOptions.on_event``),
the model's text as it streams (``on_text``) and the model client's retries
(``on_retry``). What is finished is printed for good; what is running (the
paragraph the model is still writing, each tool call and hook process) sits
in a transient rich ``Live`` region below it, with a spinner and its elapsed
time. Assistant text is rendered as Markdown a paragraph at a time, a
Write/Edit as a coloured diff of the file, long context blocks (CLAUDE.md...)
folded to a few lines (the log keeps them whole). Events it has no live form
for are printed by the ``TranscriptPrinter``, so a turn reads as ``dsh log``
does. Only for a terminal: piped output keeps the printer's plain lines.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dsh.cli._attribution import approval_denial_hint, decided_by
from dsh.cli._live_blocks import (
    EDIT_TOOLS,
    command_text,
    file_diff,
    fold,
    hook_decision,
    hook_failure,
    read_snapshot,
)
from dsh.cli._render import TranscriptPrinter, plain_markup, terminal_safe, text_of

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.live import Live

__all__ = ["LiveView"]

_FOLD_LINES: Final = 4
_RESULT_LINES: Final = 6
_QUIET_EVENTS: Final = frozenset({"turn/start", "session/header"})
# What comes between a reply and its replacement: the display hooks' own runs.
_KEEP_HOLDING: Final = frozenset({"assistant/display", "hook/invocation", "hook/result"})
# Hooks that run after a tool but before its result is logged: shown below its line.
_AFTER_TOOL_HOOKS: Final = frozenset({"PostToolUse", "PostToolUseFailure"})


class _Running:
    """A tool call or hook process on screen with a spinner, until its result arrives."""

    __slots__ = ("label", "started")

    def __init__(self, label: str) -> None:
        self.label = label
        self.started = time.monotonic()


class LiveView:
    """Prints a session's events on a terminal as they happen (see the module docstring).

    ``echo_prompts``: print the user's prompts (off in interactive mode, where
    the prompt line already shows them). ``stream_text``: print text as it
    streams; off when a display listener may replace it once the reply is whole.
    """

    def __init__(
        self,
        printer: TranscriptPrinter,
        *,
        project: Path,
        echo_prompts: bool = True,
        stream_text: bool = True,
    ) -> None:
        self.printer = printer
        self.console = printer.console
        self.project = project
        self.echo_prompts = echo_prompts
        self.stream_text = stream_text
        self.session_hint = "dsh log"
        self._lock = threading.Lock()
        self._running: dict[str, _Running] = {}
        self._text = ""
        self._streamed = False
        self._held: Any = None
        self._calls: dict[str, tuple[str, str, float, Path | None, str | None]] = {}
        self._hooks: dict[str, str] = {}
        self._live: Live | None = None
        self._paused = 0
        self._last_blocked: str | None = None
        self._after_tool: list[Any] = []
        self._working: float | None = None
        self._turn_began: float | None = None
        self.on_pause: Callable[[bool], None] | None = None
        """Told when a prompt takes the terminal (``True``) and gives it back (``False``)."""
        self.typed_ahead: Callable[[], tuple[str, bool]] = lambda: ("", False)
        """A line typed before a prompt asked, and whether Enter ended it."""

    def working(self, on: bool) -> None:
        """A turn begins (the person pressed Enter) or ends: until the model's first token
        (and again after each tool result) a line says it works, for how long, how to stop."""
        now = time.monotonic()
        self._turn_began = now if on else None
        self._working = now if on else None
        self._refresh()

    def _still_working(self, kind: object) -> None:
        """What ``kind`` of event says about the working line."""
        if self._turn_began is None:
            return
        if kind in ("assistant/message", "tool/call", "turn/end"):
            self._working = None
        elif kind == "tool/result":
            self._working = self._turn_began

    # -- the callbacks ---------------------------------------------------------------

    def on_text(self, delta: str) -> None:
        """A piece of the model's reply: whole paragraphs are printed, the rest shown live."""
        if delta:
            self._working = None
        if not self.stream_text or not delta:
            return
        with self._shielded("streamed text"):
            self._stream(delta)

    def _stream(self, delta: str) -> None:
        self._streamed = True
        with self._lock:
            self._text += delta
            done, self._text = _split_paragraphs(self._text)
        if done:
            self._markdown(done)
        self._refresh()

    def on_retry(self, notice: Any) -> None:
        """The model client failed an attempt and will retry (``RetryNotice``)."""
        with self._shielded("a retry"):
            self._retry(notice)

    def _retry(self, notice: Any) -> None:
        error = plain_markup(str(getattr(notice, "error", "error")))
        delay = float(getattr(notice, "delay", 0.0))
        attempt = getattr(notice, "attempt", "?")
        self.console.print(
            f"[yellow]↻ model request failed (attempt {attempt}): {error}; "
            f"retrying in {delay:.1f}s[/yellow]"
        )

    def on_event(self, event: Any) -> None:
        """One session event, as it is appended."""
        with self._shielded(f"a {getattr(event, 'type', '?')} event"):
            self._show(event)

    @contextlib.contextmanager
    def _shielded(self, what: str) -> Iterator[None]:
        """A failure to show something is one line: the session goes on, the log has it all."""
        try:
            yield
        except Exception as exc:
            self._stop_live()
            with contextlib.suppress(Exception):
                self.console.print(
                    f"[red]dsh: could not show {plain_markup(what)}: "
                    f"{plain_markup(type(exc).__name__)}: {plain_markup(str(exc)[:200])}[/red]"
                )

    def _show(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        self._still_working(kind)
        if self._held is not None and kind not in _KEEP_HOLDING:
            held, self._held = self._held, None
            self._assistant_text(held.text)
        handler = _HANDLERS.get(str(kind))
        if handler is not None:
            handler(self, event)
        elif kind not in _QUIET_EVENTS:
            self.printer.print_event(event)
        self._refresh()

    # -- live region -----------------------------------------------------------------

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """No live region while the body runs (a prompt owns the terminal meanwhile)."""
        self._paused += 1
        self._stop_live()
        began = time.monotonic()
        if self.on_pause is not None and self._paused == 1:
            self.on_pause(True)
        try:
            yield
        finally:
            self._paused -= 1
            if self.on_pause is not None and self._paused == 0:
                self.on_pause(False)
            self._not_counting(time.monotonic() - began)
            self._refresh()

    def _not_counting(self, waited: float) -> None:
        """The time a prompt owned the terminal (an approval) is left out of what runs."""
        for token, (name, brief, started, path, before) in list(self._calls.items()):
            self._calls[token] = (name, brief, started + waited, path, before)
        with self._lock:
            for running in self._running.values():
                running.started += waited

    def close(self) -> None:
        """Print what is still pending and remove the live region."""
        with self._lock:
            text, self._text = self._text, ""
        if text.strip():
            self._markdown(text)
        if self._held is not None:
            held, self._held = self._held, None
            self._assistant_text(held.text)
        after, self._after_tool = self._after_tool, []
        for hook in after:  # a turn that ended before its tool's result
            self._hook_lines(hook)
        self._stop_live()

    def _refresh(self) -> None:
        with self._lock:
            busy = bool(self._running) or bool(self._text.strip()) or self._working is not None
        if busy and not self._paused:
            if self._live is None:
                from rich.live import Live

                self._live = Live(
                    console=self.console,
                    get_renderable=self._renderable,
                    refresh_per_second=8,
                    transient=True,
                    redirect_stdout=False,
                    redirect_stderr=False,
                )
                self._live.start()
            else:
                self._live.refresh()
        elif not busy:
            self._stop_live()

    def _stop_live(self) -> None:
        live, self._live = self._live, None
        if live is not None:
            live.stop()

    def _renderable(self) -> RenderableType:
        from rich.console import Group
        from rich.markdown import Markdown
        from rich.spinner import Spinner
        from rich.text import Text

        with self._lock:
            text = self._text
            running = [(r.label, time.monotonic() - r.started) for r in self._running.values()]
        parts: list[RenderableType] = []
        working = self._working
        if working is not None:
            said = f"Working… ({time.monotonic() - working:.0f}s · esc to interrupt)"
            parts.append(Spinner("dots", text=Text(said), style="magenta"))
        if text.strip():
            parts.append(Markdown(terminal_safe(text)))
        for label, elapsed in running:
            line = Text.from_markup(f"{label} [dim]{elapsed:.1f}s[/dim]")
            parts.append(Spinner("dots", text=line, style="yellow"))
        return Group(*parts)

    # -- what each event shows ---------------------------------------------------------

    def _markdown(self, text: str) -> None:
        from rich.markdown import Markdown

        self.console.print(Markdown(terminal_safe(text)))

    def _assistant_text(self, text: str) -> None:
        if text:
            self._markdown(text)

    def _user(self, event: Any) -> None:
        if self.echo_prompts or getattr(event, "source", "user") != "user":
            self.printer.print_event(event)
        else:  # the prompt line stays on the screen as typed: only the files it attached
            self.printer.print_reads(event.content)

    def _assistant(self, event: Any) -> None:
        with self._lock:
            rest, self._text = self._text, ""
        if self._streamed:
            if rest.strip():
                self._markdown(rest)
        elif event.text and not self.stream_text:
            self._held = event  # an assistant/display replacement may follow it
        else:
            self._assistant_text(event.text)
        self._streamed = False
        self.printer.print_event(_without_text(event))

    def _display(self, event: Any) -> None:
        if self._held is not None and self._held.id == event.message_id:
            self._held = None
            self._assistant_text(event.text)
        else:
            self.console.print(f"  [dim]↳ shown as:[/dim] {plain_markup(event.text)}")

    def _tool_call(self, event: Any) -> None:
        name = str(event.tool_name)
        args = event.arguments if isinstance(event.arguments, Mapping) else {}
        brief = _brief(args)
        path: Path | None = None
        before: str | None = None
        if name in EDIT_TOOLS and isinstance(args.get("file_path"), str):
            path = self._path(args["file_path"])
            before = read_snapshot(path)
        token = str(event.token)
        self._calls[token] = (name, brief, time.monotonic(), path, before)
        label = f"[yellow]⏺ {plain_markup(name)}[/yellow]({plain_markup(brief)})"
        with self._lock:
            self._running[f"tool:{token}"] = _Running(label)

    def _tool_result(self, event: Any) -> None:
        try:
            self._tool_result_lines(event)
        finally:
            after, self._after_tool = self._after_tool, []
            for hook in after:
                self._hook_lines(hook)

    def _tool_result_lines(self, event: Any) -> None:
        token = str(event.token)
        with self._lock:
            self._running.pop(f"tool:{token}", None)
        name, brief, started, path, before = self._calls.pop(
            token, ("tool", "", time.monotonic(), None, None)
        )
        took = time.monotonic() - started
        self.console.print(
            f"[yellow]⏺ {plain_markup(name)}[/yellow]({plain_markup(brief)}) "
            f"[dim]· {took:.1f}s[/dim]"
        )
        if event.is_error:
            self._tool_error(event)
            return
        if path is not None:
            diff = file_diff(path.name, before, read_snapshot(path))
            if diff is not None:
                self.console.print(diff, end="")
                return
        text, more = fold(text_of(event.content), _RESULT_LINES)
        tail = f"\n    … ({more} more lines)" if more else ""
        self.console.print(f"  [dim]⎿ {plain_markup(_indent(text))}{tail}[/dim]")

    def _tool_error(self, event: Any) -> None:
        code = f" [{event.code}]" if event.code else ""
        who = decided_by(event.info) if event.code == "DENIED" else None
        by = f" by {who}" if who else ""
        text, more = fold(text_of(event.content), _RESULT_LINES)
        tail = f"\n    … ({more} more lines)" if more else ""
        self.console.print(
            f"  [red]⎿ error{plain_markup(code)}{plain_markup(by)}: "
            f"{plain_markup(_indent(text))}{tail}[/red]"
        )
        hint = approval_denial_hint(event.info)
        if hint is not None:
            self.console.print(f"    [yellow]{plain_markup(hint)}[/yellow]")

    def _compacted(self, event: Any) -> None:
        """The summary streamed as the model wrote it; its line replaces what is left of it
        (no assistant message follows to take it out of the live region)."""
        with self._lock:
            self._text = ""
        self._streamed = False
        self._stop_live()
        self.printer.print_event(event)

    def _hook_invocation(self, event: Any) -> None:
        command = command_text(tuple(event.command))
        self._hooks[str(event.id)] = command
        label = f"[blue]⚙ {plain_markup(event.hook_event)} hook[/blue] {plain_markup(command)}"
        with self._lock:
            self._running[f"hook:{event.id}"] = _Running(label)

    def _hook_result(self, event: Any) -> None:
        key = str(event.invocation_id)
        with self._lock:
            self._running.pop(f"hook:{key}", None)
        if event.hook_event in _AFTER_TOOL_HOOKS and self._calls:
            self._after_tool.append(event)  # printed below the tool's line, when it comes
            return
        self._hook_lines(event)

    def _hook_lines(self, event: Any) -> None:
        command = self._hooks.pop(str(event.invocation_id), event.source)
        decision = hook_decision(event)
        exited = event.exit_code not in (None, 0) and "exit" not in decision
        status = f", exit {event.exit_code}" if exited else ""
        self.console.print(
            f"  [blue]⚙ {plain_markup(event.hook_event)} hook[/blue] "
            f"[dim]{plain_markup(command)} → {plain_markup(decision + status)} "
            f"· {float(event.duration) * 1000:.0f}ms[/dim]"
        )
        failure = hook_failure(event, command)
        if failure is not None:
            self.console.print(f"  [yellow]{plain_markup(_indent(failure))}[/yellow]")

    def _context(self, event: Any) -> None:
        text, more = fold(str(event.text), _FOLD_LINES)
        tail = (
            f"\n    [dim]… ({more} more lines; the whole text: {self.session_hint})[/dim]"
            if more
            else ""
        )
        self.console.print(
            f"  [magenta]+ context from {plain_markup(event.source)}:[/magenta] "
            f"{plain_markup(_indent(text))}{tail}"
        )

    def _blocked(self, event: Any) -> None:
        self._last_blocked = str(event.reason)
        self.printer.print_event(event)

    def _notice(self, event: Any) -> None:
        level = getattr(event, "level", "info")
        blocked, self._last_blocked = self._last_blocked, None
        if level == "info" or event.text == blocked:
            # The loop pairs each blocked prompt with a notice of its reason: shown once.
            self.printer.print_event(event)
            return
        style, mark = ("red", "✗") if level == "error" else ("yellow", "⚠")
        self.console.print(f"[{style}]{mark} {plain_markup(_indent(str(event.text)))}[/{style}]")

    def _path(self, given: str) -> Path:
        path = Path(given).expanduser()
        return path if path.is_absolute() else self.project / path


_HANDLERS: Final = {
    "user/message": LiveView._user,
    "assistant/message": LiveView._assistant,
    "assistant/display": LiveView._display,
    "tool/call": LiveView._tool_call,
    "tool/result": LiveView._tool_result,
    "hook/invocation": LiveView._hook_invocation,
    "hook/result": LiveView._hook_result,
    "context/message": LiveView._context,
    "notice": LiveView._notice,
    "prompt/blocked": LiveView._blocked,
    "compaction/end": LiveView._compacted,
}


def _split_paragraphs(text: str) -> tuple[str, str]:
    """``text`` cut after its last blank line outside a code fence: (finished, still open)."""
    cut = 0
    fenced = False
    pos = 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and not line.strip() and line.endswith("\n"):
            cut = pos
    return text[:cut], text[cut:]


class _NoText:
    """An assistant message seen by the printer for its tool calls only."""

    __slots__ = ("id", "text", "tool_calls", "type")

    def __init__(self, event: Any) -> None:
        self.type = "assistant/message"
        self.id = event.id
        self.text = ""
        self.tool_calls = event.tool_calls


def _without_text(event: Any) -> _NoText:
    return _NoText(event)


def _brief(arguments: Mapping[str, Any]) -> str:
    for key in ("command", "file_path", "pattern", "prompt", "description"):
        value = arguments.get(key)
        if isinstance(value, str):
            return " ".join(value.split())[:120]
    return json.dumps(arguments, ensure_ascii=False, default=str)[:120]


def _indent(text: str) -> str:
    return text.replace("\n", "\n    ")
