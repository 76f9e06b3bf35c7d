"""Running one session from the command line: ``dsh run`` and the demo share this.

Assembles the host (context, tool registry with the built-in tools, plugins),
opens or resumes a session, runs the turns, and closes the agent on every
exit path so session-end listeners always fire.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import importlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import field
from pathlib import Path
from typing import Literal

from dsh._frozen import slotted
from dsh.agent import Agent, SetupTrigger, TurnResult
from dsh.approval import APPROVAL, ApprovalBroker
from dsh.cli._render import TranscriptPrinter
from dsh.context import Context
from dsh.models import Model, ModelError, ModelRequest, TextCallback
from dsh.session import AssistantMessage, JsonlSessionStore, SessionLog, TurnEndReason
from dsh.tools import TOOLS, ToolRegistry, Workspace, builtin_tools

__all__ = ["ExitCode", "RunOptions", "compact_command", "exit_code_for", "run_session"]


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


Plugin = Callable[[Context], None]


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
    permission_mode: Literal["default", "bypassPermissions"] = "default"
    """The ``permission_mode`` Claude Code hooks are sent; ``default`` fires PermissionRequest."""
    claude_md: bool = True
    """Load Claude Code's instructions files (``CLAUDE.md``...) into the session's context."""
    setup: SetupTrigger | None = None
    """Fire ``agent/setup`` with this trigger before the session starts (``--init``...)."""


def _mount_claude_hooks(ctx: Context, options: RunOptions, printer: TranscriptPrinter) -> None:
    from dsh.hooks.claude import claude_hooks_plugin, load_catalog

    catalog = load_catalog(options.project, settings_files=options.settings_files)
    for diagnostic in catalog.diagnostics:
        printer.console.print(f"[yellow]claude hooks: {diagnostic.describe()}[/yellow]")
    if catalog.all_hooks():
        ctx.plugin(
            claude_hooks_plugin(catalog, permission_mode=options.permission_mode),
            name="claude-hooks",
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


async def run_session(options: RunOptions, printer: TranscriptPrinter) -> ExitCode:
    """Run every prompt as one turn of a single session; returns the last turn's exit code."""
    ctx = Context()
    registry = ToolRegistry(ctx)
    ctx.provide(TOOLS, registry)
    # The approval/request waterfall (PermissionRequest hooks) belongs to the service;
    # headless, nobody answers what the waterfall leaves open (no channel: denied).
    ctx.provide(APPROVAL, ApprovalBroker())
    for tool in builtin_tools():
        registry.register(tool)
    for plugin in options.plugins:
        ctx.plugin(plugin)
    if options.claude_hooks or options.settings_files:
        _mount_claude_hooks(ctx, options, printer)
    if options.claude_md:
        from dsh.instructions import claude_instructions_plugin

        ctx.plugin(claude_instructions_plugin(), name="claude-instructions")
    store = JsonlSessionStore(options.session_dir)
    session: SessionLog = (
        store.open(options.resume) if options.resume is not None else store.create()
    )
    agent = Agent(
        ctx,
        model=options.model,
        session=session,
        workspace=Workspace(cwd=options.project),
        max_steps=options.max_steps,
        store=store,
    )
    printed = 0
    code = ExitCode.OK
    _import_in_background("rich.console", "rich.markup")
    try:
        if options.setup is not None:
            await agent.setup(options.setup)
        if not options.prompts:
            await agent.start()  # `--init-only`: the session starts and ends, with no turn
        for prompt in options.prompts:
            instructions = compact_command(prompt)
            if instructions is not None:
                # Claude Code's `/compact [instructions]`: a compaction, not a turn.
                await agent.compact(instructions or None)
                printer.print_events(session.events[printed:])
                printed = len(session.events)
                continue
            agent.send(prompt)
            result = await agent.run_turn()
            events = session.events
            printer.print_events(events[printed:])
            printed = len(events)
            code = exit_code_for(result)
            if code != ExitCode.OK:
                break
    finally:
        try:
            await asyncio.shield(agent.close("other"))
        finally:
            printer.print_events(session.events[printed:])
            session.close()
            await ctx.dispose()
    printer.console.print(f"[dim]session {session.id} ({session.path})[/dim]")
    return code
