"""A host for a person at a terminal: live output, a permission prompt, ``dsh run`` shown live.

``terminal_host`` opens the host ``RunOptions`` describe with the live view
listening (``on_event``/``on_text``, the model client's retries) and, when
standard input is a terminal too, the approval broker routed to the terminal
prompt. ``run_live`` is ``dsh run PROMPT`` on a terminal: the same turns as
``run_session``, shown as they happen instead of after each turn.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from dsh.agent import MESSAGE_DISPLAY, Agent, run_notifications
from dsh.approval import ApprovalBroker
from dsh.cli._render import TranscriptPrinter, plain_markup
from dsh.cli._run import (
    ExitCode,
    RunOptions,
    compact_command,
    exit_code_for,
    is_slash_command,
    prepared_host_options,
    with_mentions,
)
from dsh.host import Host, Profile, ProfileMount, open_host
from dsh.session import SessionLog

if TYPE_CHECKING:
    from dsh.cli._live import LiveView

__all__ = [
    "MAX_STDIN_PROMPT",
    "RecordingProfile",
    "TerminalHost",
    "prompt_from_stdin",
    "run_live",
    "stdin_is_terminal",
    "stdout_is_terminal",
    "terminal_host",
]

MAX_STDIN_PROMPT = 1_000_000
"""Characters of a prompt read from standard input (more is a usage error, not a request)."""


def _isatty(stream: Any) -> bool:
    try:
        return stream is not None and bool(stream.isatty())
    except (ValueError, OSError):
        return False


def stdin_is_terminal() -> bool:
    return _isatty(sys.stdin)


def stdout_is_terminal() -> bool:
    return _isatty(sys.stdout)


def prompt_from_stdin(*, allow_empty: bool = False) -> tuple[bool, tuple[str, ...]]:
    """For ``dsh run`` given no PROMPT: interactive (both ends a terminal), or stdin's prompt.

    Returns ``(True, ())`` for interactive mode, else ``(False, (text,))``;
    raises a usage error when there is neither (``allow_empty``: ``(False, ())`` for an
    empty stdin, a resumed session's own work).
    """
    missing = (
        "Missing argument 'PROMPT...'. Give one, pipe one in on standard input, "
        "or run dsh at a terminal for an interactive session."
    )
    if stdin_is_terminal():
        if stdout_is_terminal():
            return True, ()
        raise click.UsageError(missing)
    text = "" if sys.stdin is None else sys.stdin.read(MAX_STDIN_PROMPT + 1)
    if len(text) > MAX_STDIN_PROMPT:
        raise click.UsageError(
            f"the prompt on standard input is over {MAX_STDIN_PROMPT} characters"
        )
    if not text.strip():
        if allow_empty:
            return False, ()
        raise click.UsageError(missing)
    return False, (text.strip(),)


class RecordingProfile:
    """A profile that keeps what it mounted, so ``/hooks`` can say what runs and from where."""

    __slots__ = ("inner", "mount")

    def __init__(self, inner: Profile) -> None:
        self.inner = inner
        self.mount: ProfileMount | None = None

    @property
    def name(self) -> str:
        return self.inner.name

    def load(self, project: Path, /) -> ProfileMount:
        self.mount = self.inner.load(project)
        return self.mount


class TerminalHost:
    """An open host with its live view; ``agent`` is the current one (``/clear`` replaces it)."""

    def __init__(
        self,
        host: Host,
        view: LiveView,
        broker: ApprovalBroker,
        profiles: Sequence[RecordingProfile],
    ) -> None:
        self.host = host
        self.view = view
        self.broker = broker
        self.profiles = tuple(profiles)
        self.agent: Agent = host.agent
        self.sessions: list[SessionLog] = []
        """Sessions opened after the host's own (``/clear``); their owner closes them."""

    def steer(self, text: str) -> None:
        self.agent.steer(text)

    def interrupt(self, reason: str) -> None:
        if self.agent.running:
            self.agent.cancel(reason)

    def permission_waiting(self, last_key: Callable[[], float]) -> Callable[[], None]:
        """A permission question is shown: 2.1.332's terminal says ``Claude needs your
        permission`` (``permission_prompt``) once nothing was typed at it for 6 s (from
        ``last_key`` or the question, checked every 6 s); the returned function, called as it
        is answered, cancels that."""
        from dsh.agent import notify_when_idle, permission_notify_delay

        message, kind = "Claude needs your permission", "permission_prompt"
        return notify_when_idle(self.agent, message, kind, permission_notify_delay(), last_key)


def _ask_trust(printer: TranscriptPrinter, lines: Sequence[str]) -> bool:
    """Claude Code's workspace-trust question, before anything of the project runs."""
    printer.console.print(
        "[bold]This project declares hooks, permissions, plugins or instructions files that"
        " are not trusted yet:[/bold]"
    )
    for line in lines:
        printer.console.print(f"  {plain_markup(line)}")
    try:
        return click.confirm(
            "Trust this project's hooks and permissions, and run them?", default=False
        )
    except click.Abort:  # Ctrl-C or Ctrl-D at the question: not trusted
        return False


@contextlib.asynccontextmanager
async def terminal_host(
    options: RunOptions, printer: TranscriptPrinter, *, echo_prompts: bool = True
) -> AsyncIterator[TerminalHost]:
    """The host ``options`` describe, shown live on ``printer``'s terminal."""
    # Here, not at the top: a piped `dsh run` imports this module and needs neither.
    from dsh.cli._approval_prompt import TerminalApprovalPrompt
    from dsh.cli._live import LiveView

    view = LiveView(printer, project=options.host.project, echo_prompts=echo_prompts)
    base = prepared_host_options(
        options,
        lambda line: printer.console.print(f"[dim]{plain_markup(line)}[/dim]"),
        ask_trust=(lambda lines: _ask_trust(printer, lines)) if stdin_is_terminal() else None,
    )
    profiles = tuple(RecordingProfile(p) for p in base.profiles)
    broker = ApprovalBroker()
    holder: list[TerminalHost] = []
    if stdin_is_terminal():
        prompt = TerminalApprovalPrompt(
            view,
            steer=lambda text: holder[0].steer(text),
            interrupt=lambda reason: holder[0].interrupt(reason),
            waiting=lambda req, last_key: holder[0].permission_waiting(last_key),
        )
        broker = ApprovalBroker(prompt)
    _hear_retries(options.host.model, view)
    hopts = dataclasses.replace(
        base,
        profiles=profiles,
        approval=broker,
        on_event=view.on_event,
        on_text=view.on_text,
    )
    async with open_host(hopts) as host:
        # A display listener may replace the reply once it is whole: show it then.
        view.stream_text = not host.ctx.listeners(MESSAGE_DISPLAY)
        view.session_hint = f"dsh log {host.session.id}"
        term = TerminalHost(host, view, broker, profiles)
        holder.append(term)
        if host.assembly.mcp is not None and stdin_is_terminal():
            # After every other listener: the Claude Code bridge's Elicitation hooks first.
            from dsh.cli._elicit_form import TerminalElicitationForm
            from dsh.mcp import ELICITATION

            host.ctx.on(ELICITATION, TerminalElicitationForm(view).answer)
        for diagnostic in host.diagnostics:
            printer.console.print(f"[yellow]{plain_markup(str(diagnostic))}[/yellow]")
        try:
            yield term
        finally:
            view.close()
    view.close()  # what closing the session showed (SessionEnd hooks)


def _hear_retries(model: Any, view: LiveView) -> None:
    """Show an OpenAI-compatible client's retries (cause and delay) unless it reports elsewhere."""
    if hasattr(model, "on_retry") and getattr(model, "on_retry", None) is None:
        model.on_retry = view.on_retry


def _add_dir_refusal(prompt: str) -> str | None:
    """2.1.332's answer to a ``/add-dir`` prompt of ``claude -p`` (not a turn), else ``None``."""
    if not is_slash_command(prompt):
        return None
    from dsh.cli._add_dir import ADD_DIR_UNAVAILABLE, add_dir_command  # a slash command only

    return ADD_DIR_UNAVAILABLE if add_dir_command(prompt) is not None else None


async def run_live(options: RunOptions, printer: TranscriptPrinter) -> ExitCode:
    """``dsh run PROMPT...`` on a terminal: each prompt a turn (``/compact`` a compaction), live."""
    code = ExitCode.OK
    async with terminal_host(options, printer) as term:
        agent = term.agent
        if options.setup is not None:
            await agent.setup(options.setup)
        if not options.prompts:
            await agent.start()
        for prompt in options.prompts:
            refusal = _add_dir_refusal(prompt)
            if refusal is not None:  # a `dsh run` prompt is Claude Code's `-p`
                await agent.start()
                printer.console.print(refusal, markup=False, highlight=False)
                continue
            instructions = compact_command(prompt)
            if instructions is not None:
                await agent.compact(instructions or None)
                continue
            agent.send(with_mentions(prompt, options.host.project))
            result = await agent.run_turn()
            # As `claude -p`: each background subagent that finishes starts a notification turn.
            code = exit_code_for(await run_notifications(agent) or result)
            if code != ExitCode.OK:
                break
        session = term.host.session
    if options.show_session:
        printer.console.print(f"[dim]session {session.id} ({session.path})[/dim]")
    return code
