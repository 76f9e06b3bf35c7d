"""Entry point and subcommands of the ``dsh`` command.

Start-up stays fast: only click is imported up front (not even asyncio); each
subcommand imports the harness when it runs, with the cyclic garbage collector
paused until then (imports allocate many long-lived objects and no garbage),
and the process exits without tearing the interpreter down.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeVar

import click

if TYPE_CHECKING:
    from dsh.models import Model

from dsh import __version__
from dsh.cli._acp import acp_command
from dsh.cli._run_flags import io_options
from dsh.cli._sessions_flags import hooks_test_options, log_options
from dsh.cli._trust import hook_source_options, hooks_trust, trust_project_option

T = TypeVar("T")

_SESSION_DIR_HELP = "Where session logs live (default: $DSH_DATA_DIR or the user data dir)."

CLAUDE_CODE_VERSION = "2.1.332"
"""The Claude Code release whose hooks the bridge follows (its conformance corpus's)."""
CODEX_VERSION = "0.171"
"""The Codex release whose hooks the Codex bridge follows."""

_VERSION = (
    f"%(prog)s %(version)s (Claude Code hooks: {CLAUDE_CODE_VERSION}; Codex hooks: {CODEX_VERSION})"
)


def _debug_option(f: Any) -> Any:
    from dsh.cli._errors import set_debug

    return click.option(
        "--debug",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=set_debug,
        help="Show Python tracebacks of internal errors.",
    )(f)


def _session_dir(value: Path | None) -> Path:
    if value is not None:
        return value
    from dsh.session import default_data_dir

    return default_data_dir()


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.version_option(__version__, prog_name="dsh", message=_VERSION)
@_debug_option
@click.pass_context
def cli(ctx: click.Context) -> None:
    """dsh: an agent harness with a typed lifecycle interception surface.

    With no command, `dsh` is `dsh run` with no prompt: interactive at a terminal.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(run)


@cli.command()
@click.argument("prompt", nargs=-1)
@click.option(
    "--model",
    "model_spec",
    default=None,
    help="scripted:FILE for a scripted model, or a model name on an OpenAI-compatible endpoint "
    "(default: $DSH_MODEL).",
)
@click.option(
    "--base-url", default=None, help="OpenAI-compatible endpoint (default: $DSH_BASE_URL)."
)
@click.option(
    "--project",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The project directory: tools and hooks run there.",
)
@click.option(
    "--session-dir", type=click.Path(path_type=Path), default=None, help=_SESSION_DIR_HELP
)
@click.option("--max-steps", type=click.IntRange(min=1), default=50, show_default=True)
@click.option(
    "--settings",
    "settings_files",
    multiple=True,
    help="An extra Claude Code settings file or inline JSON whose hooks run too.",
)
@click.option(
    "--plugin-dir",
    "plugin_dirs",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A Claude Code plugin directory whose hooks run too, as Claude Code's --plugin-dir.",
)
@click.option(
    "--hooks",
    "hooks_choice",
    type=click.Choice(["claude", "codex", "both"]),
    default=None,
    help="The hook bridges to run (default: what the project has: .codex/, .claude/ or both;"
    " Claude Code's otherwise). With both, Claude Code's hooks run first on each seam.",
)
@click.option(
    "--dangerously-bypass-hook-trust",
    "bypass_hook_trust",
    is_flag=True,
    help="Run Codex hooks that are not trusted, as Codex's flag of that name.",
)
@click.option(
    "--no-claude-hooks",
    is_flag=True,
    help="Do not load the project's Claude Code hooks (--settings files still load).",
)
@click.option(
    "--permission-mode",
    type=click.Choice(
        ["default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions", "manual"]
    ),
    default=None,
    help="Claude Code's permission mode (default: the settings' defaultMode, else default): "
    "default asks before a call changes files (headless: PermissionRequest hooks decide, else "
    "denied); acceptEdits also runs file edits in the working directories; plan only reads; "
    "dontAsk denies what would ask; bypassPermissions asks nothing. auto is refused (dsh has "
    "no classifier). See docs/permissions.md.",
)
@click.option(
    "--add-dir",
    "add_dirs",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Another working directory the session may change files in, as Claude Code's --add-dir.",
)
@click.option(
    "--no-claude-md",
    is_flag=True,
    help="Do not load Claude Code's instructions files (CLAUDE.md, rules) into the context.",
)
@click.option(
    "--init",
    "setup_init",
    is_flag=True,
    help="Fire Setup hooks (trigger init) before the session starts, then run PROMPT.",
)
@click.option(
    "--init-only",
    is_flag=True,
    help="Fire Setup hooks (trigger init), start and end the session; no PROMPT.",
)
@click.option(
    "--maintenance",
    is_flag=True,
    help="Fire Setup hooks (trigger maintenance) before the session starts, then run PROMPT.",
)
@io_options
@trust_project_option
@_debug_option
def run(
    prompt: tuple[str, ...],
    model_spec: str | None,
    base_url: str | None,
    project: Path,
    session_dir: Path | None,
    max_steps: int,
    settings_files: tuple[str, ...],
    plugin_dirs: tuple[Path, ...],
    no_claude_hooks: bool,
    permission_mode: str | None,
    add_dirs: tuple[Path, ...],
    no_claude_md: bool,
    setup_init: bool,
    init_only: bool,
    maintenance: bool,
    hooks_choice: Literal["claude", "codex", "both"] | None = None,
    bypass_hook_trust: bool = False,
    trust_project: bool = False,
    **io: Any,
) -> None:
    """Run PROMPT as one turn and print the transcript (live, at a terminal).

    With no PROMPT: at a terminal, an interactive session (prompts until
    Ctrl-D or /exit; /help lists the slash commands); otherwise the prompt is
    read from standard input (`echo hi | dsh run`).

    `/compact [instructions]` compacts the session instead (with --resume, as
    Claude Code's slash command): PreCompact, the summary, SessionStart
    `compact`, PostCompact.

    --init, --init-only and --maintenance fire Claude Code's Setup hooks before
    the session starts, as `claude -p --init`, `--init-only` and `--maintenance`.

    Exit codes: 0 the turn completed, was rejected by prompt policy, stopped, or
    was halted by a hook; 1 the model API failed; 2 bad usage or input;
    3 the step limit was reached; 4 aborted (user, timeout, error); 70 dsh failed.
    """
    from dsh.cli._errors import UserError, check_settings_args
    from dsh.cli._run import NO_MODEL, ExitCode, RunOptions
    from dsh.cli._run_settle import settle, stream_prompts
    from dsh.models import ModelError, load_model

    if setup_init + init_only + maintenance > 1:
        raise click.UsageError("--init, --init-only and --maintenance exclude each other")
    if init_only and prompt:
        raise click.UsageError("--init-only runs no prompt: drop PROMPT, or use --init")
    streamed = io.get("input_format") == "stream-json"
    if streamed and (prompt or init_only):
        raise click.UsageError("--input-format stream-json reads the prompts from stdin")
    prompts = () if streamed else stream_prompts(prompt, io)
    from dsh.cli._terminal import prompt_from_stdin, session_runner

    interactive = False
    if not init_only and not prompts and not streamed:
        interactive, prompts = prompt_from_stdin()
    sessions = _session_dir(session_dir)
    settled = settle(project=project.resolve(), session_dir=sessions, flags=_given(), io=io)
    setup: Literal["init", "maintenance"] | None = (
        "init" if setup_init or init_only else "maintenance" if maintenance else None
    )
    spec = settled.model_spec  # the flag, DSH_MODEL or a config file's
    model: Model
    if not spec and init_only:
        model = NO_MODEL  # no prompt, no model call: as `claude --init-only`, no model needed
    elif not spec:
        raise click.UsageError(
            "no model: pass --model scripted:FILE or --model NAME --base-url URL"
        )
    else:
        # The key and the base URL are left to dsh.models, which reads the environment
        # itself: its errors then name the variable a value came from.
        try:
            model = load_model(spec, base_url=settled.base_url, api_key=settled.api_key)
        except (ModelError, OSError, ValueError) as exc:
            raise UserError(str(exc)) from exc
    check_settings_args(settings_files)
    options = RunOptions(
        prompts=prompts,
        model=model,
        project=settled.project,
        session_dir=sessions,
        resume=settled.resume,
        plugins=settled.plugins,
        system=settled.system,
        max_steps=max_steps,
        claude_hooks=not no_claude_hooks,
        settings_files=settings_files,
        plugin_dirs=plugin_dirs,
        permission_mode=settled.permission_mode,
        add_dirs=tuple(p.resolve() for p in add_dirs),
        setup=setup,
        claude_md=not no_claude_md,
        hooks=hooks_choice,
        bypass_hook_trust=bypass_hook_trust,
        trust_project=trust_project,
        stream_input=sys.stdin if streamed else None,
        resolve_model=_model_resolver(spec, settled.base_url),
    )
    if options.claude_hooks or options.settings_files or options.plugin_dirs:
        import dsh.hooks.claude
    if options.claude_md:
        import dsh.instructions  # noqa: F401  (likewise)
    _started()
    if settled.output_format is not None:
        from dsh.cli._output_formats import run_machine

        code = _run_async(run_machine(options, settled.output_format), ExitCode.INTERNAL)
    else:
        code = _run_async(session_runner(options, interactive=interactive), ExitCode.INTERNAL)
    sys.exit(int(code))


def _given() -> dict[str, Any]:
    """The configuration keys given as flags to the running command (not their defaults)."""
    ctx = click.get_current_context()
    keys = {
        "model_spec": "model",
        "base_url": "base_url",
        "permission_mode": "permission_mode",
        "project": "project",
    }
    given = {}
    for param, key in keys.items():
        if ctx.get_parameter_source(param) is not click.core.ParameterSource.DEFAULT:
            given[key] = ctx.params[param]
    return given


cli.add_command(acp_command(run))


@cli.command()
@click.option("--keep", is_flag=True, help="Keep the demo's project and session log.")
@_debug_option
def demo(keep: bool) -> None:
    """Run a scripted session with native plugins in a temporary project."""
    from dsh.cli._demo import run_demo
    from dsh.cli._render import TranscriptPrinter
    from dsh.cli._run import ExitCode

    _started()
    code = _run_async(run_demo(TranscriptPrinter(), keep=keep), ExitCode.INTERNAL)
    sys.exit(int(code))


@cli.command(name="log")
@click.argument("session_id", required=False)
@click.option(
    "--session-dir", type=click.Path(path_type=Path), default=None, help=_SESSION_DIR_HELP
)
@log_options
@_debug_option
def log_command(session_id: str | None, session_dir: Path | None, **flags: Any) -> None:
    """List this project's sessions (a table), or show one session's timeline (ID or a prefix)."""
    from dsh.cli._sessions import log_main

    _started()
    log_main(session_id, _session_dir(session_dir), **flags)


@cli.group()
def config() -> None:
    """dsh's configuration (user and project TOML files, DSH_* variables)."""


@config.command(name="show")
@click.option(
    "--project",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The project whose .dsh/config.toml to read.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="One JSON object: each key's value and source."
)
@_debug_option
def config_show(project: Path, as_json: bool) -> None:
    """The effective values and where each came from (flags, when given to dsh run, win)."""
    from dsh.cli._config_cmd import config_show as show

    _started()
    show(project.resolve(), as_json=as_json)


@cli.group()
def hooks() -> None:
    """Inspect external hook configurations."""


@hooks.command(name="check")
@hook_source_options("The project whose .claude/ settings and .codex/ hooks to read.")
@_debug_option
def hooks_check(
    project: Path, settings_files: tuple[str, ...], plugin_dirs: tuple[Path, ...]
) -> None:
    """Every hook source found, every declaration admitted or diagnosed, the support per event.

    Exits 1 when a declaration is diagnosed (an error or a hook this host will not run).
    Project hooks not trusted yet are listed last (see `dsh hooks trust`); they do not
    change the exit code.
    """
    from dsh.cli._trust import untrusted_report
    from dsh.hooks.claude import load_catalog

    _started()
    catalog = load_catalog(
        project.resolve(), settings_files=settings_files, plugin_roots=plugin_dirs
    )
    from dsh.cli._render import terminal_safe

    click.echo(terminal_safe(catalog.render_report()), nl=False)
    from dsh.cli._codex import codex_check_report

    codex, codex_ok = codex_check_report(project.resolve())
    click.echo(terminal_safe(codex), nl=False)
    click.echo(untrusted_report(project.resolve(), settings_files, plugin_dirs), nl=False)
    sys.exit(0 if catalog.ok and codex_ok else 1)


@hooks.command(name="test")
@click.argument("event", required=False)
@hooks_test_options
@_debug_option
def hooks_test_command(event: str | None, **flags: Any) -> None:
    """Run EVENT's hooks (or --all) with a payload; show each run and what it decides.

    The payload: --payload FILE (- for stdin), --case DIR (a recorded case's EVENT.json), or
    generated (--tool NAME --input JSON, --prompt TEXT). Exits 1 when a hook failed.
    """
    from dsh.cli._hooks_test import hooks_test

    _started()
    flags["project"] = flags["project"].resolve()
    sys.exit(hooks_test(event, **flags))


@hooks.command(name="coverage")
@click.argument("bridge", type=click.Choice(["claude", "codex"]), default="claude")
@_debug_option
def hooks_coverage(bridge: str) -> None:
    """The coverage table: each hook event, where it runs in dsh, what applies."""
    from dsh.cli._hooks_test import coverage_table

    _started()
    sys.exit(coverage_table(bridge))


hooks.add_command(hooks_trust)


def _model_resolver(spec: str | None, base_url: str | None) -> Callable[[str], Model]:
    """What ``/model NAME`` and ``set_model`` select: NAME on the run's endpoint; a scripted
    run keeps its script (there is no other model to switch to)."""
    from dsh.models import load_model

    def resolve(name: str) -> Model:
        if spec and spec.strip().startswith("scripted:"):
            return load_model(spec)
        return load_model(name, base_url=base_url)

    return resolve


def _run_async(coro: Coroutine[Any, Any, T], internal: T) -> T:
    """Run a coroutine; Ctrl-C exits 130, an unexpected failure is reported and exits 70."""
    import asyncio

    from dsh.cli._errors import internal_failure, user_error_for

    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        sys.exit(130)
    except click.ClickException:
        raise
    except Exception as exc:
        error = user_error_for(exc)
        if error is not None:
            raise error from exc
        internal_failure(exc)
        return internal


def _started() -> None:
    """Start-up is over: keep what it built out of every later collection, and collect again."""
    gc.freeze()
    gc.enable()


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _exit(status: int) -> NoReturn:
    # Tearing down a few hundred modules costs more than a turn of dsh's own work. Every file
    # is closed by now (run_session closes the session log on every path) and asyncio.run has
    # joined its executor; only the standard streams and logging handlers need a flush.
    if "logging" in sys.modules:
        import logging

        logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def main() -> None:
    """The ``dsh`` command (the console script's entry point)."""
    gc.disable()
    try:
        cli()
        status = 0
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except KeyboardInterrupt:
        status = 130
    except Exception as exc:  # a subcommand's own work failed: one line, not a traceback
        status = _report(exc)
    _exit(status)


def _report(exc: Exception) -> int:
    from dsh.cli._errors import internal_failure, user_error_for

    error = user_error_for(exc)
    if error is None:
        return internal_failure(exc)
    error.show()
    return error.exit_code
