"""Entry point of the ``dsh`` command: the group, each subcommand's declaration, the exit.

Start-up stays fast: declaring the commands takes click alone (not even
asyncio), and a subcommand's work lives in a module of its own, imported when
that subcommand runs (``_lazy.work``; ``dsh --version`` and every ``--help``
import no harness). The cyclic garbage collector is paused until the work's
imports are done (they allocate many long-lived objects and no garbage), and
the process exits without tearing the interpreter down.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from dsh import __version__
from dsh.cli._acp import acp_command
from dsh.cli._errors import internal_failure, set_debug, user_error_for
from dsh.cli._front_flags import PROMPT_KEY, FrontGroup, front_params
from dsh.cli._lazy import work
from dsh.cli._run_flags import (
    ANY_PATH,
    DIRECTORY,
    EXISTING_DIRECTORY,
    SESSION_DIR_HELP,
    run_flags,
)
from dsh.cli._sessions_flags import hook_source_options, hooks_test_options, log_options

CLAUDE_CODE_VERSION = "2.1.332"
"""The Claude Code release whose hooks the bridge follows (its conformance corpus's)."""
CODEX_VERSION = "0.171"
"""The Codex release whose hooks the Codex bridge follows."""

_VERSION = (
    f"%(prog)s %(version)s (Claude Code hooks: {CLAUDE_CODE_VERSION}; Codex hooks: {CODEX_VERSION})"
)


def _debug_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--debug",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=set_debug,
        help="Show Python tracebacks of internal errors.",
    )(f)


@click.group(
    cls=FrontGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    invoke_without_command=True,
    subcommand_metavar="[PROMPT] | COMMAND [ARGS]...",
)
@click.version_option(__version__, prog_name="dsh", message=_VERSION)
@_debug_option
@click.pass_context
def cli(ctx: click.Context, /, **flags: Any) -> None:
    """dsh: an agent harness with a typed lifecycle interception surface.

    As `claude` takes it: `dsh` starts an interactive session at a terminal, `dsh PROMPT`
    one whose first turn is PROMPT, `dsh -p PROMPT` prints the response and exits (as
    `dsh run PROMPT`); -c continues this project's latest session, -r [ID] resumes one.
    A first word that names a command runs the command (`dsh log`); after -p or --,
    it is the prompt (`dsh -p log`, `dsh -- log`).
    """
    if ctx.invoked_subcommand is None:
        _prepare_for_servers(flags)
        work("_front:front")(ctx.meta.get(PROMPT_KEY, ()), **flags)


def _prepare_for_servers(flags: dict[str, Any]) -> None:
    """dsh's namespace made meanwhile when a session may start MCP servers (``_early``)."""
    work("_early:prepare_for_servers")(flags["project"], flags["mcp_config"])


@cli.command()
@run_flags
@_debug_option
def run(**flags: Any) -> None:
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
    3 the step limit was reached; 4 aborted (user, timeout, error); 74 the session
    log could not be written (disk full, a size limit, deleted); 70 dsh failed.
    """
    _prepare_for_servers(flags)
    work("_run_command:run")(**flags)


cli.add_command(acp_command(run))
cli.params[:0] = front_params(cli, run)


@cli.command()
@click.option("--keep", is_flag=True, help="Keep the demo's project and session log.")
@_debug_option
def demo(keep: bool) -> None:
    """Run a scripted session with native plugins in a temporary project."""
    work("_demo:demo")(keep=keep)


@cli.command(name="log")
@click.argument("session_id", required=False)
@click.option("--session-dir", type=ANY_PATH, default=None, help=SESSION_DIR_HELP)
@log_options
@_debug_option
def log_command(**flags: Any) -> None:
    """List this project's sessions (a table), or show one session's timeline (ID or a prefix)."""
    work("_sessions:log")(**flags)


@cli.group()
def config() -> None:
    """dsh's configuration (user and project TOML files, DSH_* variables)."""


@config.command(name="show")
@click.option(
    "--project",
    type=EXISTING_DIRECTORY,
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
    work("_config_cmd:config_show")(project.resolve(), as_json=as_json)


@cli.group()
def hooks() -> None:
    """Inspect external hook configurations."""


@hooks.command(name="check")
@hook_source_options("The project whose .claude/ settings and .codex/ hooks to read.")
@_debug_option
def hooks_check(**flags: Any) -> None:
    """Every hook source found, every declaration admitted or diagnosed, the support per event.

    Exits 1 when a declaration is diagnosed (an error or a hook this host will not run).
    Project hooks not trusted yet are listed last (see `dsh hooks trust`); they do not
    change the exit code.
    """
    work("_hooks_check:hooks_check")(**flags)


@hooks.command(name="test")
@click.argument("event", required=False)
@hooks_test_options
@_debug_option
def hooks_test_command(**flags: Any) -> None:
    """Run EVENT's hooks (or --all) with a payload; show each run and what it decides.

    The payload: --payload FILE (- for stdin), --case DIR (a recorded case's EVENT.json), or
    generated (--tool NAME --input JSON, --prompt TEXT). Exits 1 when a hook failed.

    --fixtures DIR checks each fixture in DIR (*.json, in name order) instead. A fixture
    is a JSON object: a payload fixture has an "event" and its "payload" (or "tool",
    "input", "prompt" to generate one); a scenario fixture has a "scenario" (a "prompt"
    and the scripted model's "replies"), played through the real loop in a temporary
    copy of the project. Either may carry "bridge" (claude or codex), "hooks" and
    "files" (a configuration to run in place of the project's), and "expect": what must
    come out (the decision, the model-visible text, the exit codes, the notices; for a
    scenario, each firing and how the turn ended). Each fixture prints ok, FAIL with a
    diff, NEW (no expect yet) or ERROR; exits 1 unless all passed. --update writes what
    was observed into each failed or new fixture as its expect; --junit FILE also
    writes the checks as JUnit XML for CI. `dsh hooks record` makes fixtures from a
    session; docs/hooks-dev.md has worked examples.
    """
    work("_hooks_test:hooks_test_main")(**flags)


@hooks.command(name="record")
@click.argument("session_id", required=False)
@click.option("--session-dir", type=ANY_PATH, default=None, help=SESSION_DIR_HELP)
@click.option(
    "--out",
    type=DIRECTORY,
    default=Path("hook-fixtures"),
    show_default=True,
    help="The folder to write the fixtures into.",
)
@click.option(
    "--project",
    type=EXISTING_DIRECTORY,
    default=None,
    help="The project whose hooks to run (default: the session's; its latest session).",
)
@click.option(
    "--scenario",
    is_flag=True,
    help="One scenario fixture per turn (its prompt and the model's replies) instead.",
)
@_debug_option
def hooks_record_command(**flags: Any) -> None:
    """Turn SESSION's hook runs (default: the project's latest) into fixtures for `dsh hooks
    test --fixtures`.

    Each firing's payload is rebuilt from the log; its expect is what the project's
    hooks make of it today. --scenario records each turn as a scenario instead.
    """
    work("_hooks_record:hooks_record_main")(**flags)


@hooks.command(name="why")
@click.argument("event")
@hook_source_options("The project whose hooks to explain.")
@click.option("--tool", default=None, help="The tool call's name (a tool event).")
@click.option("--input", "tool_input", default=None, help="The tool call's input, JSON.")
@click.option("--prompt", default=None, help="The prompt (UserPromptSubmit).")
@click.option("--session", "session_id", default=None, help="Take the call from this session.")
@click.option("--call", type=click.IntRange(min=1), default=None, help="With --session: call N.")
@click.option("--session-dir", type=ANY_PATH, default=None, help=SESSION_DIR_HELP)
@click.option(
    "--bridge",
    type=click.Choice(["claude", "codex", "both"]),
    default=None,
    help="Whose hooks (default: what the project has, as dsh run).",
)
@_debug_option
def hooks_why_command(**flags: Any) -> None:
    """For each hook declared for EVENT: would it run, and why not, with where it came from.

    The reasons: untrusted, changed, matcher, if, disabled, policy, deduplicated,
    unsupported, timeout, invalid. Nothing runs.
    """
    work("_hooks_why:hooks_why_main")(**flags)


@hooks.command(name="coverage")
@click.argument("bridge", type=click.Choice(["claude", "codex"]), default="claude")
@_debug_option
def hooks_coverage(bridge: str) -> None:
    """The coverage table: each hook event, where it runs in dsh, what applies."""
    work("_hooks_test:coverage_main")(bridge)


@hooks.command(name="trust")
@hook_source_options("The project whose own hooks to trust.")
def hooks_trust(**flags: Any) -> None:
    """Trust what the project controls as it is now, showing each item trusted.

    That is its own hooks, the installed plugins only its settings enable, and its
    instructions files (CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, .claude/rules,
    their imports). Trust is recorded under dsh's data directory with a fingerprint
    of each: a hook's declaration and the project scripts its command names, a
    plugin's root and hooks, a file's text; a change needs trust again. User,
    --settings, managed and --plugin-dir sources always run.
    """
    work("_trust:hooks_trust")(**flags)


@cli.group()
def mcp() -> None:
    """The MCP servers a session here starts (docs/mcp.md)."""


@mcp.command(name="list")
@click.option(
    "--project",
    type=EXISTING_DIRECTORY,
    default=Path("."),
    show_default=True,
    help="The project whose servers to list.",
)
@click.option(
    "--mcp-config", "mcp_config", multiple=True, help="An MCP configuration file or JSON."
)
@click.option("--strict-mcp-config", is_flag=True, help="Only the --mcp-config servers.")
@_debug_option
def mcp_list(project: Path, mcp_config: tuple[str, ...], strict_mcp_config: bool) -> None:
    """Each server: where it was declared, its state once started, its tools and prompts.

    A project's .mcp.json server that is not trusted is listed, not started. Exits 1 when a
    server failed to start.
    """
    sys.exit(work("_mcp_cmd:mcp_list")(project, mcp_config, strict_mcp_config))


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    from dsh.cli._render import for_stream  # a message exit: rare, shown escaped at a terminal

    print(for_stream(str(code), sys.stderr), file=sys.stderr)
    return 1


def _exit(status: int) -> NoReturn:
    # Tearing down a few hundred modules costs more than a turn of dsh's own work. Every file
    # is closed by now (run_session closes the session log on every path) and asyncio.run has
    # joined its executor; only the standard streams and logging handlers need a flush.
    if "logging" in sys.modules:
        import logging  # already imported: only a flush is asked of it

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
    error = user_error_for(exc)
    if error is None:
        return internal_failure(exc)
    error.show()
    return error.exit_code
