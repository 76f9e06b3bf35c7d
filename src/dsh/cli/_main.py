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

T = TypeVar("T")

_SESSION_DIR_HELP = "Where session logs live (default: $DSH_DATA_DIR or the user data dir)."

CLAUDE_CODE_VERSION = "2.1.332"
"""The Claude Code release whose hooks the bridge follows (its conformance corpus's)."""

_VERSION = f"%(prog)s %(version)s (Claude Code hooks: {CLAUDE_CODE_VERSION}; Codex hooks: none yet)"


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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dsh", message=_VERSION)
@_debug_option
def cli() -> None:
    """dsh: an agent harness with a typed lifecycle interception surface."""


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
@click.option("--resume", default=None, help="Continue the session with this id.")
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
    "--no-claude-hooks",
    is_flag=True,
    help="Do not load the project's Claude Code hooks (--settings files still load).",
)
@click.option(
    "--permission-mode",
    type=click.Choice(["default", "bypassPermissions"]),
    default="default",
    show_default=True,
    help="What Claude Code hooks are told (permission_mode). default: a call a policy asks "
    "about fires PermissionRequest hooks, then the approval service (nobody to ask here: "
    "denied); "
    "bypassPermissions: no PermissionRequest, the ask is denied.",
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
@click.option(
    "--input-format",
    type=click.Choice(["text", "stream-json"]),
    default="text",
    help="stream-json: user messages and control requests (set_model, register_repo_root)"
    " on stdin, one JSON object a line, as Claude Code's --input-format stream-json.",
)
@_debug_option
def run(
    prompt: tuple[str, ...],
    model_spec: str | None,
    base_url: str | None,
    project: Path,
    session_dir: Path | None,
    resume: str | None,
    max_steps: int,
    settings_files: tuple[str, ...],
    plugin_dirs: tuple[Path, ...],
    no_claude_hooks: bool,
    permission_mode: Literal["default", "bypassPermissions"],
    no_claude_md: bool,
    setup_init: bool,
    init_only: bool,
    maintenance: bool,
    input_format: Literal["text", "stream-json"],
) -> None:
    """Run PROMPT as one turn and print the transcript.

    `/compact [instructions]` compacts the session instead (with --resume, as
    Claude Code's slash command): PreCompact, the summary, SessionStart
    `compact`, PostCompact.

    --init, --init-only and --maintenance fire Claude Code's Setup hooks before
    the session starts, as `claude -p --init`, `--init-only` and `--maintenance`.

    Exit codes: 0 the turn completed, was rejected by prompt policy, stopped, or
    was halted by a hook; 1 the model API failed; 2 bad usage or input;
    3 the step limit was reached; 4 aborted (user, timeout, error); 70 dsh failed.
    """
    from dsh.cli._errors import UserError, check_settings_args, resolve_session_id
    from dsh.cli._render import TranscriptPrinter
    from dsh.cli._run import NO_MODEL, ExitCode, RunOptions, run_session
    from dsh.models import ModelError, load_model

    if setup_init + init_only + maintenance > 1:
        raise click.UsageError("--init, --init-only and --maintenance exclude each other")
    if init_only and prompt:
        raise click.UsageError("--init-only runs no prompt: drop PROMPT, or use --init")
    streamed = input_format == "stream-json"
    if streamed and (prompt or init_only):
        raise click.UsageError("--input-format stream-json reads the prompts from stdin")
    if not init_only and not prompt and not streamed:
        raise click.UsageError("Missing argument 'PROMPT...'.")
    setup: Literal["init", "maintenance"] | None = (
        "init" if setup_init or init_only else "maintenance" if maintenance else None
    )
    spec = model_spec or os.environ.get("DSH_MODEL")
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
            model = load_model(spec, base_url=base_url)
        except (ModelError, OSError, ValueError) as exc:
            raise UserError(str(exc)) from exc
    check_settings_args(settings_files)
    sessions = _session_dir(session_dir)
    if resume is not None:
        resume = resolve_session_id(sessions, resume)
    options = RunOptions(
        prompts=(" ".join(prompt),) if prompt else (),
        model=model,
        project=project.resolve(),
        session_dir=sessions,
        resume=resume,
        max_steps=max_steps,
        claude_hooks=not no_claude_hooks,
        settings_files=settings_files,
        plugin_dirs=plugin_dirs,
        permission_mode=permission_mode,
        setup=setup,
        claude_md=not no_claude_md,
        stream_input=sys.stdin if streamed else None,
        resolve_model=_model_resolver(spec, base_url),
    )
    if options.claude_hooks or options.settings_files or options.plugin_dirs:
        import dsh.hooks.claude
    if options.claude_md:
        import dsh.instructions  # noqa: F401  (likewise)
    _started()
    code = _run_async(run_session(options, TranscriptPrinter()), ExitCode.INTERNAL)
    sys.exit(int(code))


@cli.command()
@_debug_option
def demo() -> None:
    """Run a scripted session with native plugins in a temporary project."""
    from dsh.cli._demo import run_demo
    from dsh.cli._render import TranscriptPrinter
    from dsh.cli._run import ExitCode

    _started()
    code = _run_async(run_demo(TranscriptPrinter()), ExitCode.INTERNAL)
    sys.exit(int(code))


@cli.command(name="log")
@click.argument("session_id", required=False)
@click.option(
    "--session-dir", type=click.Path(path_type=Path), default=None, help=_SESSION_DIR_HELP
)
@click.option("--verbose", "-v", is_flag=True, help="Also show events with no transcript line.")
@_debug_option
def log_command(session_id: str | None, session_dir: Path | None, verbose: bool) -> None:
    """List sessions, or show one session's transcript."""
    from dsh.cli._errors import resolve_session_id
    from dsh.cli._render import TranscriptPrinter
    from dsh.session import JsonlSessionStore

    _started()
    store = JsonlSessionStore(_session_dir(session_dir))
    printer = TranscriptPrinter(verbose=verbose)
    if session_id is None:
        infos = store.list()
        if not infos:
            printer.console.print("no sessions")
        for info in infos:
            printer.console.print(str(info))
        return
    events = store.load(resolve_session_id(store.data_dir, session_id))
    printer.print_events(events)


@cli.group()
def hooks() -> None:
    """Inspect external hook configurations."""


@hooks.command(name="check")
@click.option(
    "--project",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The project whose .claude/ settings to read.",
)
@click.option(
    "--settings",
    "settings_files",
    multiple=True,
    help="An extra settings file or inline JSON, as Claude Code's --settings.",
)
@click.option(
    "--plugin-dir",
    "plugin_dirs",
    multiple=True,
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="A Claude Code plugin root (its hooks/hooks.json is read).",
)
@_debug_option
def hooks_check(
    project: Path, settings_files: tuple[str, ...], plugin_dirs: tuple[Path, ...]
) -> None:
    """Every hook source found, every declaration admitted or diagnosed, the support per event.

    Exits 1 when a declaration is diagnosed (an error or a hook this host will not run).
    """
    from dsh.hooks.claude import load_catalog

    _started()
    catalog = load_catalog(
        project.resolve(), settings_files=settings_files, plugin_roots=plugin_dirs
    )
    from dsh.cli._render import terminal_safe

    click.echo(terminal_safe(catalog.render_report()), nl=False)
    sys.exit(0 if catalog.ok else 1)


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
