"""Entry point of the ``dsh`` command: the group, ``dsh run``'s declaration, the exit.

Start-up stays fast: declaring the commands takes click alone (not even
asyncio), the other subcommands are declared only when one is asked for
(``_commands``), and a subcommand's work lives in a module of its own, imported
when that subcommand runs (``_lazy.work``; ``dsh --version`` and every ``--help``
import no harness). The cyclic garbage collector is paused until the work's
imports are done (they allocate many long-lived objects and no garbage), and
the process exits without tearing the interpreter down.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from typing import Any, NoReturn

import click

from dsh import __version__
from dsh.cli._errors import debug_option, internal_failure, user_error_for
from dsh.cli._front_flags import PROMPT_KEY, FrontGroup, front_params
from dsh.cli._lazy import work
from dsh.cli._run_flags import run_flags

CLAUDE_CODE_VERSION = "2.1.332"
"""The Claude Code release whose hooks the bridge follows (its conformance corpus's)."""
CODEX_VERSION = "0.171"
"""The Codex release whose hooks the Codex bridge follows."""

_VERSION = (
    f"%(prog)s %(version)s (Claude Code hooks: {CLAUDE_CODE_VERSION}; Codex hooks: {CODEX_VERSION})"
)


@click.group(
    cls=FrontGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    invoke_without_command=True,
    subcommand_metavar="[PROMPT] | COMMAND [ARGS]...",
)
@click.version_option(__version__, prog_name="dsh", message=_VERSION)
@debug_option
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
        _prepare_for_processes(flags)
        work("_front:front")(ctx.meta.get(PROMPT_KEY, ()), **flags)


def _prepare_for_processes(flags: dict[str, Any]) -> None:
    """dsh's namespace made meanwhile when a session may run hooks or MCP servers (``_early``)."""
    work("_early:prepare_for_processes")(
        flags["project"],
        flags["mcp_config"],
        settings_files=flags["settings_files"],
        plugin_dirs=flags["plugin_dirs"],
        hooks_choice=flags["hooks_choice"],
    )


@cli.command()
@run_flags
@debug_option
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
    _prepare_for_processes(flags)
    work("_run_command:run")(**flags)


cli.params[:0] = front_params(cli, run)
# The other subcommands are declared when one is first asked for (or `dsh --help` lists
# them): `dsh run` and bare `dsh` never pay for them. `_commands.NAMES` holds the same names.
cli.declare_later(
    frozenset({"acp", "config", "demo", "hooks", "log", "mcp"}),
    lambda: work("_commands:declare")(cli, run),
)


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
    """The ``dsh`` command, as ``dsh.cli.main`` (the console script's entry point) runs it."""
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
