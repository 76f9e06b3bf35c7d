"""Running one session from the command line: ``dsh run`` and the demo share this.

Turns the command line into ``HostOptions`` (Claude Code's flags into the
Claude Code profile), opens the host, runs the turns and prints the
transcript; the host closes the agent on every exit path, so session-end
listeners always fire.
"""

from __future__ import annotations

import contextlib
import enum
import importlib
import threading
import time
from collections.abc import Sequence
from dataclasses import field
from pathlib import Path
from typing import Literal

from dsh._frozen import slotted
from dsh.agent import Agent, SetupTrigger, TurnResult
from dsh.cli._render import TranscriptPrinter, plain_markup
from dsh.context import Plugin
from dsh.host import HostOptions, Profile, open_host
from dsh.models import Model, ModelError, ModelRequest, TextCallback
from dsh.session import AssistantMessage, SessionEvent, TurnEnd, TurnEndReason

__all__ = [
    "ExitCode",
    "RunOptions",
    "compact_command",
    "exit_code_for",
    "host_options",
    "run_session",
]


class ExitCode(enum.IntEnum):
    """``dsh run`` exit codes (documented in the README)."""

    OK = 0
    """The turn completed, was rejected by prompt policy, stopped, or halted by a hook."""
    TURN_ERROR = 1
    """The model API failed (after retries)."""
    USAGE = 2
    """Bad command line, or an input file dsh could not use."""
    MAX_STEPS = 3
    """The turn hit the step limit."""
    ABORTED = 4
    """The turn was aborted by the user, a timeout or an error (not by a hook)."""
    INTERNAL = 70
    """dsh itself failed."""


def exit_code_for(result: TurnResult) -> ExitCode:
    reason = result.end_reason
    if reason == TurnEndReason.error:
        return ExitCode.TURN_ERROR
    if reason == TurnEndReason.max_steps:
        return ExitCode.MAX_STEPS
    if reason == TurnEndReason.aborted:
        cause = result.cause
        return ExitCode.OK if cause is not None and cause.kind == "hook" else ExitCode.ABORTED
    return ExitCode.OK


class _NoModel:
    """The model of a ``dsh run --init-only`` given none: that run makes no model call."""

    @property
    def name(self) -> str:
        return "none"

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        raise ModelError("this run has no model (dsh run --init-only without --model)")


NO_MODEL: Model = _NoModel()


@slotted
class RunOptions:
    prompts: Sequence[str]
    model: Model
    project: Path
    session_dir: Path
    resume: str | None = None
    plugins: Sequence[Plugin] = field(default_factory=tuple)
    max_steps: int = 50
    claude_hooks: bool = True
    """Load the project's Claude Code hooks (user, project, local, managed, plugins)."""
    settings_files: Sequence[str] = field(default_factory=tuple)
    """Extra Claude Code settings files or inline JSON, as Claude Code's ``--settings``."""
    plugin_dirs: Sequence[Path] = field(default_factory=tuple)
    """Claude Code plugin directories loaded as enabled, as Claude Code's ``--plugin-dir``."""
    permission_mode: Literal["default", "bypassPermissions"] = "default"
    """The ``permission_mode`` Claude Code hooks are sent; ``default`` fires PermissionRequest."""
    claude_md: bool = True
    """Load Claude Code's instructions files (``CLAUDE.md``...) into the session's context."""
    setup: SetupTrigger | None = None
    """Fire ``agent/setup`` with this trigger before the session starts (``--init``...)."""
    profiles: Sequence[Profile] = field(default_factory=tuple)
    """Profiles mounted after ``plugins``, before the one ``claude_hooks`` asks for."""


def host_options(options: RunOptions) -> HostOptions:
    """The host a ``dsh run`` command line describes."""
    plugins = tuple(options.plugins)
    profiles = tuple(options.profiles)
    if options.claude_hooks or options.settings_files or options.plugin_dirs:
        from dsh.hooks.claude import ClaudeCodeProfile

        claude = ClaudeCodeProfile(
            settings_files=tuple(options.settings_files),
            plugin_roots=tuple(options.plugin_dirs),
            permission_mode=options.permission_mode,
            instructions=options.claude_md,
        )
        profiles += (claude,)
    elif options.claude_md:
        # The profile lives in the bridge's package: a run with no hooks loads
        # CLAUDE.md without importing the bridge (~16 ms of start-up).
        from dsh.instructions import claude_instructions_plugin

        plugins += (claude_instructions_plugin(),)
    return HostOptions(
        project=options.project,
        model=options.model,
        session_dir=options.session_dir,
        resume=options.resume,
        plugins=plugins,
        profiles=profiles,
        max_steps=options.max_steps,
    )


def compact_command(prompt: str) -> str | None:
    """The instructions of a ``/compact [instructions]`` prompt (``""`` for none), else ``None``."""
    text = prompt.strip()
    if text == "/compact":
        return ""
    if text.startswith("/compact") and text[len("/compact")].isspace():
        return text[len("/compact") :].strip()
    return None


def _import_in_background(*modules: str) -> None:
    """Import ``modules`` on a daemon thread while the session waits on hooks and the model.

    Importing is CPU work the run does not need until it prints; done while the
    main thread waits on a hook process or an API, it costs no wall time on a
    machine with a second core. Imports are thread-safe: a module the main
    thread asks for first is imported there, and the other waits for it.
    """

    def work() -> None:
        for name in modules:
            with contextlib.suppress(Exception):  # the main thread will report it
                importlib.import_module(name)

    threading.Thread(target=work, name="dsh-warm-imports", daemon=True).start()


class _Printed:
    """How much of the session's log the transcript has shown."""

    __slots__ = ("count", "printer")

    def __init__(self, printer: TranscriptPrinter) -> None:
        self.printer = printer
        self.count = 0

    def catch_up(self, events: tuple[SessionEvent, ...]) -> None:
        self.printer.print_events(events[self.count :])
        self.count = len(events)

    def summarize_earlier(self, events: tuple[SessionEvent, ...], before: float) -> None:
        """A resumed session's history as one line, not reprinted (this run's events still are)."""
        earlier = 0
        while earlier < len(events) and events[earlier].time < before:
            earlier += 1
        if earlier:
            turns = sum(1 for e in events[:earlier] if isinstance(e, TurnEnd))
            self.printer.console.print(
                f"[dim]resumed: {earlier} earlier events ({turns} turns) not shown;"
                " `dsh log` shows them[/dim]"
            )
        self.count = earlier


async def run_session(options: RunOptions, printer: TranscriptPrinter) -> ExitCode:
    """Run every prompt as one turn of a single session; returns the last turn's exit code."""
    printed = _Printed(printer)
    code = ExitCode.OK
    session = None
    opened = time.time()
    try:
        async with open_host(host_options(options)) as host:
            session = host.session
            if options.resume is not None:
                printed.summarize_earlier(session.events, opened)
            for diagnostic in host.diagnostics:
                printer.console.print(f"[yellow]{plain_markup(str(diagnostic))}[/yellow]")
            _import_in_background("rich.console", "rich.markup")
            code = await _run_prompts(host.agent, options, printed)
    finally:
        if session is not None:
            printed.catch_up(session.events)  # what closing the session added (SessionEnd)
    printer.console.print(f"[dim]session {session.id} ({session.path})[/dim]")
    return code


async def _run_prompts(agent: Agent, options: RunOptions, printed: _Printed) -> ExitCode:
    if options.setup is not None:
        await agent.setup(options.setup)
    if not options.prompts:
        await agent.start()  # `--init-only`: the session starts and ends, with no turn
    code = ExitCode.OK
    for prompt in options.prompts:
        instructions = compact_command(prompt)
        if instructions is not None:
            # Claude Code's `/compact [instructions]`: a compaction, not a turn.
            await agent.compact(instructions or None)
            printed.catch_up(agent.events)
            continue
        agent.send(prompt)
        result = await agent.run_turn()
        printed.catch_up(agent.events)
        code = exit_code_for(result)
        if code != ExitCode.OK:
            break
    return code
