"""Running one session from the command line: ``dsh run`` and the demo share this.

``RunOptions`` is one run: the ``HostOptions`` before its bridges, the
``HookSelection`` (``host_options`` mounts the bridges it asks for), the
prompts. ``run_session`` opens the host, runs the turns and prints the
transcript; the host closes the agent on every exit path, so session-end
listeners always fire.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import importlib
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import IO, Any

from dsh._frozen import slotted
from dsh.agent import (
    SUBAGENT_MODELS,
    Agent,
    Settlement,
    SetupTrigger,
    TurnResult,
    run_notifications,
)
from dsh.base._containment import become_subreaper
from dsh.cli._errors import UserError
from dsh.cli._render import TranscriptPrinter, json_line, plain_markup
from dsh.hooks import HookSelection, mount_bridges
from dsh.host import HostOptions, open_host
from dsh.messages import AssistantMessage, Content
from dsh.models import Model, ModelError, ModelRequest, TextCallback
from dsh.session import NoticeEvent, SessionEvent, TurnEndReason

__all__ = [
    "ExitCode",
    "RunOptions",
    "compact_command",
    "exit_code_for",
    "host_options",
    "is_slash_command",
    "run_session",
    "with_mentions",
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
    STORAGE = 74
    """The session log could not be written (``cli._errors.STORAGE_EXIT``)."""
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
    """One ``dsh run``: the host it opens, the hooks it mounts, the prompts it runs.

    ``host`` is the host before its bridges (``host_options`` adds the profiles and
    plugins ``hooks`` asks for, after ``host.plugins`` and ``host.profiles``).
    """

    host: HostOptions
    hooks: HookSelection = field(default_factory=HookSelection)
    """The bridges and instructions files to mount (``--hooks``, ``--settings``, ...)."""
    prompts: Sequence[str] = ()
    setup: SetupTrigger | None = None
    """Fire ``agent/setup`` with this trigger before the session starts (``--init``...)."""
    show_session: bool = True
    """End with the session's id and log path (the demo, which deletes it, does not)."""
    trust_project: bool = False
    """Trust the project's own hooks before loading (``--trust-project``: accepting the prompt)."""
    skip_untrusted: bool = False
    """``--skip-untrusted-hooks``: a run no one is asked for leaves the project's untrusted
    hooks out with a notice, instead of not starting (``UntrustedHooksError``)."""
    stream_input: IO[str] | None = None
    """``--input-format stream-json``: the turns and control requests come from here."""
    resolve_model: Callable[[str], Model] | None = None
    """The model ``/model NAME`` or a ``set_model`` selects (``None``: the run's own)."""
    reject_deferred: str | None = None
    """``--reject-deferred REASON``: a resumed session's deferred tool calls are rejected with
    this reason; without it they run, through the policies again (2.1.332's resume)."""
    resumed_without_prompt: bool = False
    """``--resume``/``--continue`` with no prompt: the run settles the deferred calls only."""
    max_budget_usd: float | None = None
    """``--max-budget-usd``: its guard is among ``host.plugins``; the stream-json result
    reports reaching it (``error_max_budget_usd``)."""


def host_options(options: RunOptions) -> HostOptions:
    """The host a ``dsh run`` command line describes: its own, with the bridges mounted."""
    host = options.host
    bridges = mount_bridges(host.project, options.hooks)
    return dataclasses.replace(
        host,
        plugins=(*host.plugins, *bridges.plugins),
        profiles=(*host.profiles, *bridges.profiles),
    )


def compact_command(prompt: str) -> str | None:
    """The instructions of a ``/compact [instructions]`` prompt (``""`` for none), else ``None``."""
    if not is_slash_command(prompt):
        return None
    from dsh.cli._model_command import slash_argument

    return slash_argument(prompt, "/compact")


def is_slash_command(prompt: str) -> bool:
    """Whether ``prompt`` may be a slash command (``/model``, ``/add-dir``, ``/compact``): only
    then are their modules imported, so a run of plain prompts never loads them."""
    return prompt.lstrip().startswith("/")


def with_mentions(prompt: str, project: Path) -> Content:
    """``prompt`` with the files it mentions (``@path``) attached, as ``claude -p`` attaches
    them (the interactive form; ``cli/_prompt_input``, imported only when a ``@`` is there:
    the plain run does not need prompt_toolkit)."""
    if "@" not in prompt:
        return prompt
    from dsh.cli._prompt_input import attach_mentions

    return attach_mentions(prompt, project)


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

    def say(self, text: str) -> None:
        self.printer.out.print(plain_markup(text))

    def catch_up(self, events: Sequence[SessionEvent]) -> None:
        self.printer.print_events(events[self.count :])
        self.count = len(events)


def prepared_host_options(
    options: RunOptions,
    say: Callable[[str], None],
    *,
    ask_trust: Callable[[Sequence[str]], bool] | None = None,
) -> HostOptions:
    """``host_options`` for a run that starts now: dsh becomes the subreaper of what its
    hooks leave behind, and the project's hooks are trusted if ``--trust-project`` (or a
    person asked through ``ask_trust``) says so; ``say`` shows what was trusted.

    With neither, nor ``--skip-untrusted-hooks``, the run fails closed: a Claude Code
    project hook or plugin not trusted keeps the host from opening (``UntrustedHooksError``,
    exit 2), as no one is there to ask and a guard left out would not guard."""
    become_subreaper()  # what escapes a hook's group comes back to dsh, ended at session end
    if not (options.trust_project or ask_trust is not None or options.skip_untrusted):
        hooks = dataclasses.replace(options.hooks, refuse_untrusted=True)
        options = dataclasses.replace(options, hooks=hooks)
    host_opts = host_options(options)
    if options.trust_project or ask_trust is not None:
        # Only a run that trusts or asks needs these: a headless one reads the records alone.
        from dsh.cli._trust import ask_to_trust, trust_profiles
    if options.trust_project:
        trusted = trust_profiles(host_opts.profiles, options.host.project)
        if trusted:  # one line, not one per hook: `dsh hooks check` lists them
            say(f"trusted {trusted_summary(trusted)} of {options.host.project} (--trust-project)")
    elif ask_trust is not None:
        ask_to_trust(host_opts.profiles, options.host.project, ask_trust)
    return host_opts


def trusted_summary(lines: Sequence[str]) -> str:
    """``3 project hook(s), 1 plugin(s), 2 instructions file(s), 1 project file(s)`` for the
    lines of a trust (a Codex project file or script is a project file; a forgotten entry
    counts as nothing)."""
    files = sum(": trusted: instructions file " in line for line in lines)
    others = sum(": trusted: Codex project " in line for line in lines)  # a file, a script
    plugins = sum(": trusted: plugin " in line for line in lines)
    forgotten = sum(": forgot: " in line for line in lines)
    text = f"{len(lines) - files - others - plugins - forgotten} project hook(s)"
    text += f", {plugins} plugin(s)" if plugins else ""
    text += f", {files} instructions file(s)" if files else ""
    return text + (f", {others} project file(s)" if others else "")


async def run_session(options: RunOptions, printer: TranscriptPrinter) -> ExitCode:
    """Run every prompt as one turn of a single session; returns the last turn's exit code."""
    printed = _Printed(printer)
    code = ExitCode.OK
    session = None
    host_opts = prepared_host_options(
        options, lambda line: printer.out.print(f"[dim]{plain_markup(line)}[/dim]")
    )
    try:
        async with open_host(host_opts) as host:
            session = host.session
            if options.host.resume is not None:
                from dsh.cli._sessions import resumed_summary  # only a resumed run shows one

                # A short line, not the whole history (`dsh log ID` shows that).
                printer.out.print(
                    f"[dim]{plain_markup(resumed_summary(session.id, session.events))}[/dim]"
                )
                printed.count = len(session.events)
            for diagnostic in host.diagnostics:
                printer.out.print(f"[yellow]{plain_markup(str(diagnostic))}[/yellow]")
            if not printer.plain:  # a plain stdout prints without rich
                _import_in_background("rich.console", "rich.markup")
            code = await _run_prompts(host.agent, options, printed)
    finally:
        if session is not None:
            printed.catch_up(session.events)  # what closing the session added (SessionEnd)
    if options.show_session:
        printer.out.print(f"[dim]session {session.id} ({session.path})[/dim]")
    return code


def _compaction_blocked(events: Sequence[SessionEvent]) -> str | None:
    """The line of a PreCompact veto among ``events`` (``None``: none vetoed it)."""
    return next(
        (e.text for e in events if isinstance(e, NoticeEvent) and e.source == "agent/pre-compact"),
        None,
    )


async def _run_prompts(
    agent: Agent,
    options: RunOptions,
    printed: _Printed | None,
    *,
    on_result: Callable[[TurnResult], None] | None = None,
) -> ExitCode:
    """Run ``options.prompts``; ``printed`` catches the transcript up after each, ``on_result``
    is told each turn's result (``--output-format``)."""
    if options.resolve_model is not None:
        # A custom agent's `model:` (`haiku`, a full name) on the run's endpoint.
        agent.ctx.provide(SUBAGENT_MODELS, options.resolve_model)
    if options.setup is not None:
        await agent.setup(options.setup)
    if agent.pending_calls or options.resumed_without_prompt:
        settled = await _settle_pending(agent, options, printed, on_result)
        if settled is not None or not options.prompts:
            return settled if settled is not None else ExitCode.OK
    if not options.prompts:
        await agent.start()  # `--init-only`: the session starts and ends, with no turn
    if options.stream_input is not None:
        return await _run_stream(agent, options, printed, on_result)
    code = ExitCode.OK
    for prompt in options.prompts:
        if is_slash_command(prompt) and await _slash_command(
            agent, options, printed, prompt, on_result
        ):
            continue
        agent.send(with_mentions(prompt, options.host.project))

        def report(result: TurnResult) -> None:
            if printed is not None:
                printed.catch_up(agent.events)
                if result.end_reason == TurnEndReason.deferred:
                    printed.say(deferred_notice(agent))
            if on_result is not None:
                on_result(result)

        result = await agent.run_turn()
        report(result)
        # As `claude -p`: each background subagent that finishes starts a notification turn,
        # which ends with a result of its own.
        result = await run_notifications(agent, on_turn=report) or result
        code = exit_code_for(result)
        if code != ExitCode.OK:
            break
    return code


async def _slash_command(
    agent: Agent,
    options: RunOptions,
    printed: _Printed | None,
    prompt: str,
    on_result: Callable[[TurnResult], None] | None,
) -> bool:
    """Run ``prompt`` if it is ``/add-dir``, ``/model`` or ``/compact`` (not a turn); whether
    it was."""
    from dsh.cli._add_dir import ADD_DIR_UNAVAILABLE, add_dir_command
    from dsh.cli._model_command import model_command, run_model_command

    if add_dir_command(prompt) is not None:  # Claude Code's `-p` answer, no turn
        await agent.start()
        if printed is not None:
            printed.catch_up(agent.events)
            printed.say(ADD_DIR_UNAVAILABLE)
        if on_result is not None:
            on_result(
                TurnResult(end_reason=TurnEndReason.completed, final_text=ADD_DIR_UNAVAILABLE)
            )
        return True
    if model_command(prompt) is not None:
        await agent.start()
        await run_model_command(
            agent,
            prompt,
            resolve_model=_resolver(options),
            say=printed.say if printed is not None else _quiet,
        )
        if printed is not None:
            printed.catch_up(agent.events)
        return True
    instructions = compact_command(prompt)
    if instructions is None:
        return False
    # Claude Code's `/compact [instructions]`: a compaction, not a turn.
    before = len(agent.events)
    summary = await agent.compact(instructions or None)
    if printed is not None:
        printed.catch_up(agent.events)
    blocked = _compaction_blocked(agent.events[before:]) if summary is None else None
    if blocked is not None and on_result is not None:
        # 2.1.332's `-p` answer (text, json and stream-json alike): the block's line.
        on_result(TurnResult(end_reason=TurnEndReason.completed, final_text=blocked))
    return True


def deferred_notice(agent: Agent) -> str:
    """What a run that ended on a deferred call says: the call, and how to settle it."""
    calls = ", ".join(f"{c.tool_name} ({c.tool_use_id})" for c in agent.pending_calls)
    return (
        f"deferred: {calls} waits to be settled. Run it: dsh run --resume {agent.session_id}"
        f"; or refuse it: dsh run --resume {agent.session_id} --reject-deferred REASON"
    )


async def _settle_pending(
    agent: Agent,
    options: RunOptions,
    printed: _Printed | None,
    on_result: Callable[[TurnResult], None] | None,
) -> ExitCode | None:
    """A resumed session's deferred calls, each settled (run, or rejected with
    ``--reject-deferred``) and its turn run on; ``None`` when the prompts may follow."""
    pending = agent.pending_calls
    if not pending:
        print(
            f"dsh: no deferred call waits in session {agent.session_id}, and no prompt was"
            " given: give one to continue it",
            file=sys.stderr,
        )
        return ExitCode.USAGE
    for call in pending:
        outcome: Settlement = "rejected" if options.reject_deferred is not None else "approved"
        if printed is not None:
            printed.say(f"{outcome[:-1].capitalize()}ing the deferred {call.tool_name} call")
        result = await agent.settle_deferred(
            call.tool_use_id, outcome, by="resume", reason=options.reject_deferred
        )
        if printed is not None:
            printed.catch_up(agent.events)
        if on_result is not None:
            on_result(result)
        if result.end_reason == TurnEndReason.deferred or exit_code_for(result) != ExitCode.OK:
            return exit_code_for(result)
    return None


def _resolver(options: RunOptions) -> Callable[[str], Model]:
    return options.resolve_model or (lambda _name: options.host.model)


def _quiet(_text: str) -> None:
    """Where ``/model`` says what it did in machine output: nowhere (stdout is the protocol)."""


async def _run_stream(
    agent: Agent,
    options: RunOptions,
    printed: _Printed | None,
    on_result: Callable[[TurnResult], None] | None = None,
) -> ExitCode:
    """``--input-format stream-json``: each user line a turn, control requests answered."""
    # Only with that flag: a run of prompts from the command line never imports it.
    from dsh.cli._stream_input import StreamInputError, run_stream

    assert options.stream_input is not None
    codes = [ExitCode.OK]

    def after_turn(result: TurnResult) -> bool:
        if printed is not None:
            printed.catch_up(agent.events)
        if on_result is not None:
            on_result(result)
        codes.append(exit_code_for(result))
        return codes[-1] == ExitCode.OK

    def respond(line: Mapping[str, Any]) -> None:
        print(json_line(line), flush=True)

    try:
        await run_stream(
            agent,
            options.stream_input,
            resolve_model=_resolver(options),
            respond=respond,
            after_turn=after_turn,
        )
    except StreamInputError as exc:
        raise UserError(str(exc)) from None
    if printed is not None:
        printed.catch_up(agent.events)
    return codes[-1]
