"""``dsh``'s subcommands but ``run``: ``demo``, ``log``, ``config``, ``hooks``, ``mcp``, ``acp``.

Declared with click alone, as ``run`` is; the group (``_main.cli``) adds them with
``declare`` when one is first asked for or all are listed (``dsh --help``), so ``dsh run``
never declares them (~0.5 ms of click objects and gettext lookups). Each one's work
lives in a module of its own (``_lazy.work``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from dsh.cli._acp import acp_command
from dsh.cli._errors import debug_option
from dsh.cli._lazy import work
from dsh.cli._run_flags import (
    ANY_PATH,
    DIRECTORY,
    EXISTING_DIRECTORY,
    SESSION_DIR_HELP,
    codex_profile_option,
)
from dsh.cli._sessions_flags import hook_source_options, hooks_test_options, log_options

__all__ = ["NAMES", "declare"]

NAMES = frozenset({"acp", "config", "demo", "hooks", "log", "mcp"})
"""The names ``declare`` adds (``_main`` keeps its own copy: it must not import this)."""


def declare(group: click.Group, run: click.Command) -> None:
    """Add each subcommand to ``group``; ``dsh acp`` takes ``run``'s session options."""
    for command in (demo, log_command, config, hooks, mcp, acp_command(run)):
        group.add_command(command)


@click.command()
@click.option("--keep", is_flag=True, help="Keep the demo's project and session log.")
@debug_option
def demo(keep: bool) -> None:
    """Run a scripted session with native plugins in a temporary project."""
    work("_demo:demo")(keep=keep)


@click.command(name="log")
@click.argument("session_id", required=False)
@click.option("--session-dir", type=ANY_PATH, default=None, help=SESSION_DIR_HELP)
@log_options
@debug_option
def log_command(**flags: Any) -> None:
    """List this project's sessions (a table), or show one session's timeline (ID or a prefix)."""
    work("_sessions:log")(**flags)


@click.group()
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
@codex_profile_option()
@debug_option
def config_show(project: Path, as_json: bool, config_profile: str | None) -> None:
    """The effective values and where each came from (flags, when given to dsh run, win)."""
    work("_config_cmd:config_show")(
        project.resolve(), as_json=as_json, config_profile=config_profile
    )


@click.group()
def hooks() -> None:
    """Inspect external hook configurations."""


@hooks.command(name="check")
@hook_source_options("The project whose .claude/ settings and .codex/ hooks to read.")
@debug_option
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
@debug_option
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
@debug_option
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
@debug_option
def hooks_why_command(**flags: Any) -> None:
    """For each hook declared for EVENT: would it run, and why not, with where it came from.

    The reasons: untrusted, changed, matcher, if, disabled, policy, deduplicated,
    unsupported, timeout, invalid. Nothing runs.
    """
    work("_hooks_why:hooks_why_main")(**flags)


@hooks.command(name="coverage")
@click.argument("bridge", type=click.Choice(["claude", "codex"]), default="claude")
@debug_option
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


@click.group()
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
@debug_option
def mcp_list(project: Path, mcp_config: tuple[str, ...], strict_mcp_config: bool) -> None:
    """Each server: where it was declared, its state once started, its tools and prompts.

    A project's .mcp.json server that is not trusted is listed, not started. Exits 1 when a
    server failed to start.
    """
    sys.exit(work("_mcp_cmd:mcp_list")(project, mcp_config, strict_mcp_config))
