"""Interactive mode: ``dsh`` (or ``dsh run`` with no prompt) at a terminal.

One session, prompts read with prompt_toolkit (line editing, a history file in
dsh's data directory) until Ctrl-D, ``/exit`` or a second Ctrl-C. Each prompt
is a turn shown live; slash commands are Claude Code's: ``/compact
[instructions]``, ``/clear`` (SessionEnd ``clear``, a new session,
SessionStart ``clear``), ``/hooks`` (what is mounted and from where),
``/add-dir DIR`` (a working directory: DirectoryAdded ``slash_command``),
``/exit``, ``/help``; any other ``/word`` goes to the agent as a prompt, as
``dsh run`` sends it. Ctrl-C during a turn cancels it (the running tool's
process group is killed and the call logged ``ABORTED``); a second Ctrl-C, or
one at an empty prompt after that, leaves. Leaving ends the session with
Claude Code's ``prompt_input_exit``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, Final

from dsh._data_dir import user_data_dir
from dsh.agent import (
    NOTIFICATION,
    Settlement,
    notifications_ready,
    run_ready_notifications,
    watch_background,
)
from dsh.base import thaw_json
from dsh.cli._keys import WorkKeys
from dsh.cli._render import TranscriptPrinter, plain_markup, terminal_safe
from dsh.cli._run import ExitCode, RunOptions
from dsh.cli._slash import COMMANDS, command_of
from dsh.cli._slash_builtin import BUILTIN
from dsh.cli._terminal import TerminalHost, terminal_host

__all__ = ["history_path", "run_interactive"]

HISTORY_FILE: Final = "prompt_history"
_WOKEN: Final = "\x00dsh-background-finished"
"""What a read returns when a background subagent's finishing ended it (never typed)."""
_IDLE_SECONDS: Final = 60.0
_HISTORY_TURNS: Final = 3
_HISTORY_EVENTS: Final = frozenset(
    {"user/message", "assistant/message", "tool/call", "tool/result", "turn/end"}
)


def _home(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home) :] if path == home or path.startswith(home + "/") else path


def _claude_idle_ms() -> float | None:
    """``messageIdleNotifThresholdMs`` of Claude Code's global config, if it sets one."""
    from dsh.base import UnsafeJSONError, load_json, read_bounded

    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    home = Path(configured).expanduser() if configured else Path.home()
    try:
        data = load_json(read_bounded(home / ".claude.json", 4 << 20, "Claude Code's config"))
    except (OSError, UnsafeJSONError):
        return None
    value = data.get("messageIdleNotifThresholdMs") if isinstance(data, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return float(value)


def history_path() -> Path:
    """The prompt history file: ``$DSH_DATA_DIR`` or dsh's user data dir, ``prompt_history``."""
    override = os.environ.get("DSH_DATA_DIR")
    base = Path(override).expanduser() if override else user_data_dir()
    return base / HISTORY_FILE


def _open_history(path: Path) -> Any:
    """A prompt_toolkit history on ``path`` (created 0600: prompts may hold secrets)."""
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600)
        os.close(fd)
    except OSError:
        return InMemoryHistory()  # no history is better than no session
    return FileHistory(str(path))


class _Repl:
    """The prompt loop of one interactive run."""

    def __init__(self, term: TerminalHost, options: RunOptions, history: Path) -> None:
        from prompt_toolkit import PromptSession

        from dsh.cli._prompt_input import PromptCompleter

        self.term = term
        self.options = options
        self.out = term.view.console.print
        assert BUILTIN  # the built-in commands are in the table
        listed = [(name, c.description) for name, c in sorted(COMMANDS.items())]
        self.prompts: PromptSession[str] = PromptSession(
            history=_open_history(history),
            completer=PromptCompleter(options.host.project, listed),
            complete_while_typing=False,
        )
        self.interrupts = 0
        self.work: asyncio.Future[Any] | None = None
        self.leaving = False
        self.draft = ""
        self.cancellable = False
        self.keys = WorkKeys(self._escape)
        term.view.on_pause = self.keys.suspend
        term.view.typed_ahead = self.keys.take_line
        self._idle_task: asyncio.Future[None] | None = None
        self._idle_after: float | None = None

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, self._sigint)
        try:
            self._banner()
            if self.options.host.resume is not None:
                self.recent_history()
            if self.options.setup is not None:
                await self.term.agent.setup(self.options.setup)
            # SessionStart's hooks: Esc or Ctrl-C ends them (their process groups killed)
            # and the session goes on with what they gave so far.
            await self.guarded(self.term.agent.start(), cancellable=True)
            self.out("[dim]dsh: /help for commands, Ctrl-D to leave[/dim]")
            for first in self.options.prompts if not self.leaving else ():  # `dsh PROMPT`
                self.out(f"> {terminal_safe(first)}", markup=False, highlight=False)
                await self.handle(first)
            while not self.leaving:
                # A background subagent that finished gets its notification turn (2.1.332's).
                await self.guarded(run_ready_notifications(self.term.agent))
                if self.leaving:
                    break
                await self._settle_deferred()  # a call a hook deferred waits on the person
                if self.leaving:
                    break
                text = await self._read()
                if text is None:
                    break
                if text:
                    await self.handle(text)
            # SessionEnd's hooks: Esc or Ctrl-C ends them, as everything else.
            await self.guarded(self.term.agent.close("prompt_input_exit"), cancellable=True)
        finally:
            loop.remove_signal_handler(signal.SIGINT)

    def _banner(self) -> None:
        """dsh's version, the model and the directory, as Claude Code's welcome box says."""
        from dsh import __version__

        model = getattr(self.options.host.model, "name", "?")
        where = _home(str(self.options.host.project))
        line = f"✻ dsh {__version__} · model {model} · {where}"
        self.out(f"[bold]{plain_markup(terminal_safe(line))}[/bold]")

    def recent_history(self) -> None:
        """A resumed session's last turns, as the transcript shows them."""
        events = list(self.term.agent.session.events)
        starts = [i for i, e in enumerate(events) if e.type == "turn/start"]
        if not starts:
            return
        recent = events[starts[-_HISTORY_TURNS:][0] :]
        turns = min(len(starts), _HISTORY_TURNS)
        self.out(
            f"[dim]── the last {turns} turn(s) of session {self.term.agent.session.id[:8]} ──[/]"
        )
        printer = self.term.view.printer
        for event in recent:
            if event.type in _HISTORY_EVENTS:
                printer.print_event(event)
        self.out("[dim]── resumed ──[/dim]")

    async def _read(self) -> str | None:
        """The next prompt (``""``: nothing to do), or ``None`` to leave. A background
        subagent finishing ends the read with ``""``, what was typed kept for the next one."""
        remove = watch_background(self.term.agent, self._wake)
        if notifications_ready(self.term.agent):  # one finished before the watch began
            remove()
            return ""
        ahead, entered = self.keys.take_line()
        if entered:  # typed whole while the last turn ran: the next prompt, as typed
            remove()
            self.out(f"> {terminal_safe(self.draft + ahead)}", markup=False, highlight=False)
            line, self.draft = self.draft + ahead, ""
            return line.strip()
        self.draft += ahead
        idle = self._idle_timer()
        try:
            line = await self.prompts.prompt_async("> ", handle_sigint=False, default=self.draft)
        except EOFError:
            return None
        except KeyboardInterrupt:
            self.interrupts += 1
            if self.interrupts >= 2:
                return None
            self.out("[dim](Ctrl-C again or Ctrl-D to leave)[/dim]")
            return ""
        finally:
            remove()
            if idle is not None:
                idle.cancel()
        if line == _WOKEN:
            return ""
        self.draft = ""
        self.interrupts = 0
        return line.strip()

    async def _settle_deferred(self) -> None:
        """Each deferred tool call of the session, shown and put to the person: run it, or
        not (its turn goes on either way); Ctrl-C or Ctrl-D leaves it pending."""
        from prompt_toolkit import PromptSession

        agent = self.term.agent
        for call in agent.pending_calls:
            shown = json.dumps(thaw_json(call.arguments), ensure_ascii=False)
            shown = shown if len(shown) <= 300 else shown[:299] + "…"
            self.out(
                terminal_safe(f"⏸ deferred: {call.tool_name} {shown} ({call.by or 'a policy'})"),
                markup=False,
                highlight=False,
            )
            try:
                answer = await PromptSession[str]().prompt_async(
                    "Run it? [y/N] ", handle_sigint=False
                )
            except (EOFError, KeyboardInterrupt):
                self.out("[dim]left pending: it is asked again at the next prompt[/dim]")
                return
            run = answer.strip().lower() in ("y", "yes")
            reason = None if run else "the user declined it"
            outcome: Settlement = "approved" if run else "rejected"
            settle = agent.settle_deferred(call.tool_use_id, outcome, by="terminal", reason=reason)
            await self.guarded(settle)

    def _idle_seconds(self) -> float:
        """``DSH_IDLE_NOTIFY_SECONDS``, else 2.1.332's ``messageIdleNotifThresholdMs`` from
        its global config (``~/.claude.json``, or ``$CLAUDE_CONFIG_DIR/.claude.json``), else
        its default 60 s; read once."""
        if self._idle_after is None:
            self._idle_after = _IDLE_SECONDS
            given = os.environ.get("DSH_IDLE_NOTIFY_SECONDS")
            try:
                if given:
                    self._idle_after = max(float(given), 0.0)
                else:
                    found = _claude_idle_ms()
                    if found is not None:
                        self._idle_after = found / 1000
            except ValueError:
                pass
        return self._idle_after

    def _idle_timer(self) -> asyncio.TimerHandle | None:
        """After a turn, 2.1.332's ``idle_prompt`` notification once the person has left the
        prompt waiting (``_idle_seconds``); once per wait, none once they answered."""
        agent = self.term.agent
        if not any(e.type == "turn/end" for e in agent.events):
            return None
        seconds = self._idle_seconds()

        def notify() -> None:
            message = "Claude is waiting for your input"
            work = agent.ctx.emit(NOTIFICATION, agent, message, "idle_prompt")
            self._idle_task = asyncio.ensure_future(work)

        return asyncio.get_running_loop().call_later(max(seconds, 0.0), notify)

    def _wake(self) -> None:
        """A background subagent finished while the prompt is open: end the read (its
        notification turn runs next), keeping the line being typed."""
        app = self.prompts.app
        if not app.is_running or app.future is None or app.future.done():
            return
        self.draft = self.prompts.default_buffer.text
        app.exit(result=_WOKEN)

    def _sigint(self) -> None:
        """Ctrl-C while a turn (or compaction, or ``!command``) runs: interrupt it; a second
        one leaves."""
        work = self.work
        if work is None or work.done():
            return
        self.interrupts += 1
        if self.interrupts == 1:
            self._interrupt("Ctrl-C", "(Ctrl-C again to leave)")
        else:
            self.leaving = True
            work.cancel()

    def _escape(self) -> None:
        """Esc while something runs: interrupt it, as the first Ctrl-C does (it never leaves)."""
        work = self.work
        if work is not None and not work.done():
            self._interrupt("Esc", "")

    def _interrupt(self, key: str, more: str) -> None:
        work = self.work
        if work is None:
            return
        if self.term.agent.running:
            self.term.interrupt(f"interrupted by the user ({key})")
            self.out(f"[yellow]⏹ interrupted {more}[/yellow]".replace(" [/", "[/"))
        elif self.cancellable:  # a compaction, a session start or a shell command: it ends here
            work.cancel()
            self.out(f"[yellow]⏹ interrupted {more}[/yellow]".replace(" [/", "[/"))
        else:  # between a settled call or a notification and its turn: nothing to stop yet
            self.out("[yellow]not a turn: it finishes on its own (Ctrl-C again to leave)[/]")

    async def guarded(self, work: Awaitable[Any], *, cancellable: bool = False) -> Any:
        """Run ``work`` so that Ctrl-C or Esc interrupts it (a turn is cancelled through the
        agent; ``cancellable`` work, a compaction, a session start or a command, is cancelled
        outright)."""
        self.work = asyncio.ensure_future(work)
        self.cancellable = cancellable
        try:
            with self.keys.watching():
                return await self.work
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            return None
        finally:
            self.work = None

    def say(self, text: str) -> None:
        self.out(terminal_safe(text), markup=False, highlight=False)

    async def handle(self, text: str) -> None:
        """One line typed at the prompt: a slash command, a ``!command`` or a prompt."""
        found = command_of(text)
        if found is not None:
            command, rest = found
            await command.run(self, rest)
            return
        if text.startswith("!") and text[1:].strip():
            await self._bang(text[1:].strip())
            return
        await self.send(text)

    async def send(self, text: str) -> None:
        """``text`` as a turn, the files it mentions (``@path``) attached."""
        from dsh.cli._prompt_input import attach_mentions

        agent = self.term.agent
        agent.send(attach_mentions(text, self.options.host.project))
        self.term.view.working(True)
        try:
            await self.guarded(agent.run_turn())
        finally:
            self.term.view.working(False)

    async def _bang(self, command: str) -> None:
        """``!command``: run in the shell, shown, then sent with its output (a turn)."""
        from dsh.cli._prompt_input import bash_blocks, run_bang

        ran = await self.guarded(run_bang(command, self.options.host.project), cancellable=True)
        if ran is None:
            return
        stdout, stderr, code = ran
        shown = (stdout + stderr).rstrip("\n")
        self.say("\n".join(f"  ⎿ {line}" for line in (shown or "(no output)").splitlines()))
        if code != 0:
            self.say(f"  ⎿ exit {code}")
        agent = self.term.agent
        agent.send(bash_blocks(command, stdout, stderr, code))
        self.term.view.working(True)
        try:
            await self.guarded(agent.run_turn())
        finally:
            self.term.view.working(False)


async def run_interactive(
    options: RunOptions, printer: TranscriptPrinter, *, history: Path | None = None
) -> ExitCode:
    """Read prompts at the terminal until the user leaves; each is a turn, shown live.

    Exits 0 however the turns ended: the person saw each of them.
    """
    async with terminal_host(options, printer, echo_prompts=False) as term:
        try:
            await _Repl(term, options, history or history_path()).run()
        finally:
            # The host closes its own agent; the ones /clear made are closed here.
            if term.agent is not term.host.agent:
                await term.agent.close("other")
            for session in term.sessions:
                with contextlib.suppress(Exception):
                    session.close()
        session = term.agent.session
    printer.console.print(f"[dim]session {session.id} ({session.path})[/dim]")
    return ExitCode.OK
