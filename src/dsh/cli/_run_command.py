"""``dsh run``'s work: its flags as one value, settled with the configuration, then the run.

``RunFlags`` is what the command line says (``_run_flags`` declares it, click
fills it); ``run`` settles it with the configuration files and ``DSH_*``
(``_run_settle.settle``), loads the model and builds the one ``RunOptions``
the session is run from: the ``HostOptions`` with its ``AgentOptions``, the
``HookSelection``, the prompts.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any, Literal, TypeAlias

import click

from dsh._frozen import frozen
from dsh.agent import AgentOptions, SetupTrigger
from dsh.base import valid_text
from dsh.cli._errors import UserError, check_settings_args
from dsh.cli._process import run_async, session_dir, started
from dsh.cli._render import TranscriptPrinter, terminal_safe
from dsh.cli._run import NO_MODEL, ExitCode, RunOptions, run_session
from dsh.cli._run_flags import IO_KEYS, SESSION_FLAGS
from dsh.cli._run_settle import RunMode, Settled, settle, stream_prompts
from dsh.cli._terminal import (
    prompt_from_stdin,
    run_live,
    stdin_is_terminal,
    stdout_is_terminal,
)
from dsh.context import Plugin
from dsh.hooks import HooksChoice, HookSelection, bridges_for
from dsh.host import HostOptions
from dsh.host._config import sandbox_policy
from dsh.models import Model, ModelError, load_model
from dsh.session import JsonlSessionStore

__all__ = ["FrontMode", "RunFlags", "SessionFlags", "load_run_model", "model_resolver", "run"]

FrontMode: TypeAlias = Literal["run", "terminal", "print"]


@frozen(kw_only=True)
class SessionFlags:
    """The flags that describe a session, shared by ``dsh run`` and ``dsh acp``."""

    model_spec: str | None
    base_url: str | None
    session_dir: Path | None
    max_steps: int
    auto_compact_tokens: int | None
    settings_files: tuple[str, ...]
    plugin_dirs: tuple[Path, ...]
    hooks_choice: HooksChoice | None
    bypass_hook_trust: bool
    no_claude_hooks: bool
    permission_mode: str | None
    add_dirs: tuple[Path, ...]
    no_claude_md: bool
    plugins: tuple[str, ...]
    mcp_config: tuple[str, ...] = ()
    strict_mcp_config: bool = False

    @classmethod
    def of(cls, params: Mapping[str, Any]) -> SessionFlags:
        """The session flags among a command's ``params`` (``SESSION_FLAGS``, each one)."""
        return cls(**{name: params[name] for name in SESSION_FLAGS})

    def agent(self) -> AgentOptions:
        return AgentOptions(max_steps=self.max_steps, compact_tokens=self.auto_compact_tokens)

    def hooks(
        self,
        permission_mode: RunMode | None,
        *,
        attended: bool,
        codex_profile: str | None = None,
    ) -> HookSelection:
        """The bridges these flags ask for, in ``permission_mode`` (the settled one);
        ``codex_profile``: ``--profile``, a layer of the Codex bridge's too."""
        check_settings_args(self.settings_files)
        _check_add_dirs(self.add_dirs)
        return HookSelection(
            hooks=self.hooks_choice,
            claude_hooks=not self.no_claude_hooks,
            settings_files=self.settings_files,
            plugin_dirs=self.plugin_dirs,
            permission_mode=permission_mode,
            add_dirs=tuple(p.resolve() for p in self.add_dirs),
            claude_md=not self.no_claude_md,
            attended=attended,
            bypass_hook_trust=self.bypass_hook_trust,
            mcp_config=self.mcp_config,
            strict_mcp_config=self.strict_mcp_config,
            codex_profile=codex_profile,
        )


@frozen(kw_only=True)
class RunFlags:
    """``dsh run``'s command line, as one value."""

    prompt: tuple[str, ...]
    project: Path
    session: SessionFlags
    setup_init: bool
    init_only: bool
    maintenance: bool
    trust_project: bool
    skip_untrusted_hooks: bool
    sandbox_mode: str | None
    """``--sandbox/-s``: read as the configuration key ``sandbox_mode`` (``_given``)."""
    max_budget_usd: float | None
    """``--max-budget-usd``: the session's spend cap (``dsh.agent.spend_cap``), if any."""
    config_profile: str | None
    """``--profile NAME``: Codex's profile file over its ``config.toml`` (``dsh.models``)."""
    io: Mapping[str, Any]
    """``io_options``' flags (``--output-format``, ``--resume``...), as ``settle`` reads them."""
    worktree: str | None = None
    """``--worktree [NAME]``: run in that git worktree (``""``: a generated name)."""
    session_id: str | None = None
    """``--session-id UUID``: the new session's id (``_chosen_id`` checks it)."""
    front: FrontMode = "run"
    """How PROMPT runs: ``dsh run``'s way, bare ``dsh``'s (``terminal``: interactive at a
    terminal, PROMPT its first turn) or ``dsh -p``'s (``print``: headless always)."""

    @classmethod
    def of(cls, params: Mapping[str, Any], *, front: FrontMode = "run") -> RunFlags:
        """``dsh run``'s ``params`` (click's, by name) as one value."""
        return cls(
            front=front,
            prompt=params["prompt"],
            project=params["project"],
            session=SessionFlags.of(params),
            setup_init=params["setup_init"],
            init_only=params["init_only"],
            maintenance=params["maintenance"],
            trust_project=params["trust_project"],
            skip_untrusted_hooks=params["skip_untrusted_hooks"],
            sandbox_mode=params["sandbox_mode"],
            max_budget_usd=params["max_budget_usd"],
            config_profile=params["config_profile"],
            io={key: params[key] for key in IO_KEYS},
            worktree=params.get("worktree"),
            session_id=params.get("session_id"),
        )

    @property
    def streamed(self) -> bool:
        return self.io.get("input_format") == "stream-json"

    @property
    def setup(self) -> SetupTrigger | None:
        if self.setup_init or self.init_only:
            return "init"
        return "maintenance" if self.maintenance else None


def _worktree(project: Path, flags: RunFlags, session_id: str) -> Path:
    """The worktree ``--worktree [NAME]`` runs the session in: made by the project's
    WorktreeCreate hooks when it has some, fired before the session (2.1.332:
    ``worktree-flag``), else by git, as 2.1.332 makes it."""
    from dsh.base._worktree import WorktreeError, create_worktree, generated_name, name_problem
    from dsh.hooks import hooks_worktree

    name = flags.worktree or generated_name()
    try:
        problem = name_problem(name)
        if problem is not None:
            raise WorktreeError(f"Error creating worktree: {problem}")
        selection = flags.session.hooks(None, attended=False)
        made = hooks_worktree(
            project, name, selection, session_id=session_id, trust=flags.trust_project
        )
        return made if made is not None else create_worktree(project, name).path
    except WorktreeError as exc:
        raise _WorktreeRefused(str(exc)) from None


@functools.cache
def _uuid() -> re.Pattern[str]:  # compiled for a --session-id only
    return re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


def _chosen_id(given: str | None, sessions: Path, *, resuming: bool) -> str | None:
    """``--session-id``'s id, checked as 2.1.332 checks it (its words, exit 1): only for a new
    session (2.1.332 asks for --fork-session beside --resume, which dsh has not), a UUID, not
    the id of a session this data folder holds."""
    if given is None:
        return None
    if resuming:
        raise _SessionIdRefused(
            "Error: --session-id with --continue or --resume also needs"
            " --fork-session (which dsh does not offer)."
        )
    if _uuid().fullmatch(given) is None:
        raise _SessionIdRefused("Error: Invalid session ID. Must be a valid UUID.")
    if JsonlSessionStore(sessions).log_path(given).exists():
        raise _SessionIdRefused(f"Error: Session ID {given} is already in use.")
    return given


class _SessionIdRefused(UserError):
    """``--session-id`` refused: exit 1, as 2.1.332 exits."""

    exit_code = 1


class _WorktreeRefused(UserError):
    """``--worktree`` refused: exit 1, as 2.1.332 exits (tests/fixtures/claude_worktree.json)."""

    exit_code = 1


def _check_add_dirs(dirs: tuple[Path, ...]) -> None:
    """Each ``--add-dir`` an existing folder, else a ``UserError`` in Claude Code's words."""
    for given in dirs:
        path = given.expanduser().absolute()
        if not path.exists():
            raise UserError(f"--add-dir {given}: Path {path} was not found.")
        if not path.is_dir():
            raise UserError(
                f"--add-dir {given}: {path} is not a directory. Did you mean to add the parent"
                f" directory {path.parent}?"
            )


def _given_prompts(flags: RunFlags) -> tuple[str, ...]:
    """PROMPT as the run's prompt: an empty one is none (stdin or the terminal gives it, as
    ``claude -p ""``); one of white space alone is refused, as Claude Code refuses it."""
    prompts = () if flags.streamed else stream_prompts(flags.prompt, flags.io)
    if prompts and not prompts[0]:
        return ()
    if prompts and not prompts[0].strip():
        raise click.UsageError(
            "the prompt contains only white space: give a prompt with text as PROMPT or on"
            " standard input"
        )
    return prompts


def _attended(options: RunOptions, attended: bool) -> RunOptions:
    """``options`` with a person at the terminal or not (hooks see it; asks reach them)."""
    return dataclasses.replace(options, hooks=dataclasses.replace(options.hooks, attended=attended))


def session_runner(options: RunOptions, *, interactive: bool) -> Coroutine[Any, Any, ExitCode]:
    """How ``dsh run`` shows its session: interactive, live at a terminal, or plain lines."""
    printer = TranscriptPrinter(project=options.host.project)
    if options.stream_input is not None:  # the lines on stdin drive it: plain output
        return run_session(options, printer)
    if interactive:
        # Imported here: prompt_toolkit is for a person at a terminal only.
        from dsh.cli._interactive import run_interactive

        return run_interactive(_attended(options, True), printer)
    if stdout_is_terminal():
        return run_live(_attended(options, stdin_is_terminal()), printer)
    return run_session(options, printer)


def run(**params: Any) -> None:
    """``dsh run``: click's ``params`` as ``RunFlags``, then ``run_flags``."""
    sys.exit(int(run_flags(RunFlags.of(params))))


def run_flags(flags: RunFlags) -> ExitCode:
    """Run what ``flags`` say; returns the exit code."""
    _check_usage(flags)
    prompts = _given_prompts(flags)
    interactive = False
    resuming = flags.io.get("resume") is not None or bool(flags.io.get("continue_session"))
    if not flags.init_only and not prompts and not flags.streamed:
        if flags.front == "print" and stdin_is_terminal():
            raise click.UsageError(
                "Input must be provided either through stdin or as a prompt argument when"
                " using --print"
            )
        # A resumed session may need no prompt: its deferred calls are what it runs.
        interactive, prompts = prompt_from_stdin(allow_empty=resuming)
    elif flags.front == "terminal" and not flags.streamed and prompts:
        # `dsh PROMPT` at a terminal: an interactive session whose first turn is PROMPT.
        interactive = stdin_is_terminal() and stdout_is_terminal()
    # Bytes that are not UTF-8 (on the command line or stdin) become U+FFFD, as Claude Code
    # reads them: the prompt is recorded and sent as text.
    prompts = tuple(valid_text(prompt) for prompt in prompts)
    sessions = session_dir(flags.session.session_dir)
    project = flags.project.resolve()
    session_id = _chosen_id(flags.session_id, sessions, resuming=resuming)
    worktree = None
    if flags.worktree is not None:
        import uuid  # here: only --worktree chooses the id before the session

        # The hooks that may make it see the session's id: it is chosen now (a resumed
        # session keeps its own).
        made_for = session_id or str(uuid.uuid4())
        session_id = None if resuming else made_for
        original, project = project, _worktree(project, flags, made_for)
        if interactive:  # its start, for the exit question (2.1.332 asks; -p keeps it)
            from dsh.cli._worktree_exit import session_worktree_of

            worktree = (original, session_worktree_of(original, project.name, project), made_for)
    settled = settle(project=project, session_dir=sessions, flags=_given(), io=flags.io)
    model = _run_model(settled, flags)
    options = RunOptions(
        host=HostOptions(
            project=settled.project,
            model=model,
            session_dir=sessions,
            resume=settled.resume,
            session_id=session_id,
            plugins=(*settled.plugins, *_spend_cap(flags.max_budget_usd)),
            agent=flags.session.agent(),
            system=settled.system,
            environment=settled.config.shell_environment_policy,
            sandbox=sandbox_policy(settled.config),
        ),
        hooks=flags.session.hooks(
            settled.permission_mode, attended=False, codex_profile=flags.config_profile
        ),
        prompts=prompts,
        setup=flags.setup,
        trust_project=flags.trust_project,
        skip_untrusted=flags.skip_untrusted_hooks,
        stream_input=sys.stdin if flags.streamed else None,
        resolve_model=model_resolver(settled.model_spec, settled.base_url),
        reject_deferred=flags.io.get("reject_deferred"),
        resumed_without_prompt=resuming and not prompts and not interactive,
        max_budget_usd=flags.max_budget_usd,
    )
    hooks = options.hooks
    mounted = bridges_for(settled.project, hooks.hooks, codex_profile=hooks.codex_profile)
    claude = hooks.claude_hooks and "claude" in mounted
    if claude or hooks.settings_files or hooks.plugin_dirs or hooks.mcp_config:
        import dsh.hooks.claude  # before start-up ends: the bridge is imported either way
    if hooks.claude_md:
        import dsh.instructions  # noqa: F401  (likewise)
    started()
    if settled.output_format is not None:
        # Only with --output-format (or the config's): the transcript's runs never import it.
        from dsh.cli._output_formats import run_machine

        return run_async(run_machine(options, settled.output_format), ExitCode.INTERNAL)
    code = run_async(session_runner(options, interactive=interactive), ExitCode.INTERNAL)
    if worktree is not None:
        from dsh.cli._worktree_exit import exit_worktree

        began, made, made_for = worktree
        selection = flags.session.hooks(None, attended=True)
        # A resumed session's own id (WorktreeRemove's payload names the session it ends).
        exit_worktree(began, made, selection, session_id=session_id or settled.resume or made_for)
    return code


def _spend_cap(limit_usd: float | None) -> tuple[Plugin, ...]:
    """``--max-budget-usd``'s guard, priced by dsh's table (none without the flag)."""
    if limit_usd is None:
        return ()
    from dsh.agent import spend_cap

    return (spend_cap(limit_usd),)


def _check_usage(flags: RunFlags) -> None:
    if flags.setup_init + flags.init_only + flags.maintenance > 1:
        raise click.UsageError("--init, --init-only and --maintenance exclude each other")
    if flags.init_only and flags.prompt:
        raise click.UsageError("--init-only runs no prompt: drop PROMPT, or use --init")
    if flags.streamed and (flags.prompt or flags.init_only):
        raise click.UsageError("--input-format stream-json reads the prompts from stdin")
    resuming = flags.io.get("resume") is not None or bool(flags.io.get("continue_session"))
    if flags.io.get("reject_deferred") is not None and not resuming:
        raise click.UsageError(
            "--reject-deferred settles a resumed session's deferred calls:"
            " give --resume ID or --continue"
        )


def _run_model(settled: Settled, flags: RunFlags) -> Model:
    spec = settled.model_spec  # the flag, DSH_MODEL or a config file's
    if not spec and flags.init_only:
        return NO_MODEL  # no prompt, no model call: as `claude --init-only`, no model needed
    codex = _codex_profile(settled.project, flags)
    profile = flags.config_profile
    if profile is not None and not codex and not (spec or "").startswith("responses:"):
        raise UserError(
            f"--profile {profile}: Codex's profiles apply to Codex's model set-up, under the"
            " Codex profile (--hooks codex, or a project with .codex/ and no .claude/)"
        )
    return load_run_model(settled, codex_profile=codex, profile=profile)


def _codex_profile(project: Path, flags: RunFlags) -> bool:
    """Whether the run is under the Codex profile alone (its model set-up is Codex's)."""
    choice = flags.session.hooks_choice
    if choice is not None:
        return choice == "codex"
    return (project / ".codex").is_dir() and not (project / ".claude").is_dir()


def load_run_model(
    settled: Settled, *, codex_profile: bool = False, profile: str | None = None
) -> Model:
    """The model the settled flags name, else the environment's set-up (a usage error if
    neither: ``dsh.models``' ``choose_provider``); Codex's config warnings to stderr."""
    # The key and the base URL are left to dsh.models, which reads the environment
    # itself: its errors then name the variable a value came from.
    try:
        return load_model(
            settled.model_spec or "",
            base_url=settled.base_url,
            api_key=settled.api_key,
            provider=settled.config.provider,
            codex_profile=codex_profile,
            project=settled.project,
            profile=profile,
            warn=_warn,
        )
    except ValueError as exc:
        if not settled.model_spec and str(exc).startswith("empty model spec"):
            raise click.UsageError(
                "no model: pass --model scripted:FILE or --model NAME --base-url URL"
                " (or set ANTHROPIC_API_KEY for Claude's models)"
            ) from None
        raise UserError(str(exc)) from exc
    except (ModelError, OSError) as exc:
        raise UserError(str(exc)) from exc


def _warn(line: str) -> None:
    click.echo(terminal_safe(f"dsh: warning: {line}"), err=True)


def _given() -> dict[str, Any]:
    """The configuration keys given as flags to the running command (not their defaults)."""
    ctx = click.get_current_context()
    keys = {
        "model_spec": "model",
        "base_url": "base_url",
        "permission_mode": "permission_mode",
        "project": "project",
        "sandbox_mode": "sandbox_mode",
    }
    given = {}
    for param, key in keys.items():
        if param not in ctx.params:
            continue
        if ctx.get_parameter_source(param) is not click.core.ParameterSource.DEFAULT:
            given[key] = ctx.params[param]
    return given


def model_resolver(spec: str | None, base_url: str | None) -> Callable[[str], Model]:
    """What ``/model NAME`` and ``set_model`` select: NAME on the run's endpoint; a scripted
    run keeps its script (there is no other model to switch to)."""

    def resolve(name: str) -> Model:
        if spec and spec.strip().startswith("scripted:"):
            return load_model(spec)
        return load_model(name, base_url=base_url)

    return resolve
