"""``dsh run``'s arguments and flags, declared with click alone.

``run_flags`` stacks them on the command, in ``dsh run --help``'s order: the
prompt, the session flags (``dsh acp`` takes the same ones), the Setup
triggers, ``io_options`` (``--output-format``, ``--input-format``,
``--system-prompt``, ``--append-system-prompt``, ``-c/--continue``, ``--resume
[ID]``, ``--plugin``), ``--trust-project`` and ``--skip-untrusted-hooks``. Nothing
heavier is imported to declare them (``dsh --version`` and ``dsh run --help`` pay only for click);
``dsh.cli._run_command.RunFlags`` is the one value they become when the command
runs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import click

__all__ = [
    "ANY_PATH",
    "DIRECTORY",
    "EXISTING_DIRECTORY",
    "IO_KEYS",
    "SESSION_FLAGS",
    "codex_profile_option",
    "io_options",
    "run_flags",
]

# The path types of dsh's options, one instance each for every option that takes one: a
# click.Path looks its name up in gettext's catalogs when made (~25 us each, ~20 options).
ANY_PATH: Final = click.Path(path_type=Path)
DIRECTORY: Final = click.Path(file_okay=False, path_type=Path)
EXISTING_DIRECTORY: Final = click.Path(file_okay=False, exists=True, path_type=Path)

SESSION_DIR_HELP = "Where session logs live (default: $DSH_DATA_DIR or the user data dir)."

CODEX_PROFILE_HELP = (
    "Codex's --profile: $CODEX_HOME/NAME.config.toml is a layer over config.toml, for"
    " Codex's model set-up and its hooks (default: $DSH_CODEX_PROFILE). See docs/models.md."
)
"""``--profile NAME``'s help, ``dsh run``'s and the ``dsh hooks`` commands' alike."""


def codex_profile_option() -> Callable[[Any], Any]:
    """``--profile NAME`` (``config_profile``), ``dsh run``'s and the ``dsh hooks``
    commands' alike: a name Codex 0.171 refuses is refused when the command line is read,
    as ``codex --profile`` refuses it, in its words."""
    return click.option(
        "--profile",
        "config_profile",
        default=None,
        metavar="NAME",
        callback=_profile_name,
        help=CODEX_PROFILE_HELP,
    )


def _profile_name(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from dsh.cli._errors import UserError
    from dsh.models._codex_layers import check_profile_name

    try:
        return check_profile_name(value)
    except ValueError as exc:
        raise UserError(str(exc)) from None


SESSION_FLAGS = (
    "model_spec",
    "base_url",
    "session_dir",
    "max_steps",
    "auto_compact_tokens",
    "settings_files",
    "plugin_dirs",
    "no_claude_hooks",
    "no_claude_md",
    "permission_mode",
    "add_dirs",
    "hooks_choice",
    "bypass_hook_trust",
    "plugins",
    "mcp_config",
    "strict_mcp_config",
)
"""``dsh run``'s options that describe a session: ``dsh acp`` takes the very same ones
(``dsh.cli._run_command.SessionFlags`` is their value)."""

IO_KEYS = (
    "output_format",
    "input_format",
    "system_prompt",
    "append_system_prompt",
    "continue_session",
    "resume",
    "plugins",
    "verbose",
    "reject_deferred",
)


def io_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The flags this module settles, added to ``f`` (``dsh run``)."""
    options = [
        click.option(
            "--output-format",
            type=click.Choice(["text", "json", "stream-json"]),
            default=None,
            help="Claude Code's -p output: text (the final answer), json (the result object) "
            "or stream-json (one event a line). Default: the transcript (or output_format "
            "from the config).",
        ),
        click.option(
            "--verbose",
            is_flag=True,
            help="Accepted as claude -p takes it (scripts pass it with --output-format "
            "stream-json); dsh's stream-json always carries every event.",
        ),
        click.option(
            "--input-format",
            type=click.Choice(["text", "stream-json"]),
            default="text",
            show_default=True,
            help="stream-json: read user messages from stdin, one JSON object a line, as "
            "claude -p --input-format stream-json (each is a turn).",
        ),
        click.option(
            "--system-prompt",
            default=None,
            help="Replace dsh's system prompt (the environment block is still added).",
        ),
        click.option(
            "--append-system-prompt",
            default=None,
            help="Add this text after dsh's system prompt.",
        ),
        click.option(
            "-c",
            "--continue",
            "continue_session",
            is_flag=True,
            help="Continue the latest session of this project.",
        ),
        click.option(
            "-r",
            "--resume",
            is_flag=False,
            flag_value="",
            default=None,
            metavar="[ID]",
            help="Continue the session with this id (a unique prefix will do); with no ID, "
            "pick one of this project's sessions at a terminal, else the latest. It runs in "
            "the directory it was created in.",
        ),
        click.option(
            "--reject-deferred",
            default=None,
            metavar="REASON",
            help="With --resume or --continue: reject the session's deferred tool calls (a "
            'PreToolUse hook\'s "defer") with REASON instead of running them.',
        ),
        click.option(
            "--plugin",
            "plugins",
            multiple=True,
            metavar="MODULE:FUNCTION",
            help="Mount a native plugin (a function taking the Context); repeatable; replaces "
            "the config's plugins. MODULE is imported from the current directory too.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def run_flags(f: Callable[..., Any]) -> Callable[..., Any]:
    """``dsh run``'s arguments and flags, added to ``f`` in their ``--help`` order."""
    f = trust_project_option(worktree_option(session_id_option(f)))
    f = io_options(budget_option(sandbox_option(f)))
    for option in reversed(_RUN_OPTIONS):
        f = option(f)
    return f


def sandbox_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``dsh run --sandbox/-s MODE``: Codex's flag, the shell tools' sandbox (docs/sandbox.md)."""
    return click.option(
        "--sandbox",
        "-s",
        "sandbox_mode",
        type=click.Choice(["read-only", "workspace-write", "danger-full-access"]),
        default=None,
        help="Run the model's shell commands in a sandbox, as Codex's --sandbox: read-only, "
        "workspace-write (writes in the project, [sandbox_workspace_write] writable_roots and "
        "the temp dirs; .git and dsh's state kept read-only; no network unless network_access) "
        "or danger-full-access (none, the default). Where the kernel has no sandbox, a "
        "sandboxed mode refuses to run commands. See docs/sandbox.md.",
    )(f)


def budget_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``dsh run --max-budget-usd N``: Claude Code's flag (the Agent SDK's ``maxBudgetUsd``)."""
    return click.option(
        "--max-budget-usd",
        "max_budget_usd",
        type=click.FloatRange(min=0, min_open=True),
        default=None,
        metavar="AMOUNT",
        help="A spend cap in US dollars, as Claude Code's --max-budget-usd: once the replies'"
        " reported usage, priced by dsh's price table, reaches it, every tool call is denied"
        " (the stream-json result is error_max_budget_usd). A model the table has no price"
        " for is named in a notice and not counted. See docs/cli.md.",
    )(f)


def _refuse_tmux(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        raise click.UsageError(
            "--tmux: dsh does not open sessions in tmux (Claude Code's --tmux runs the --worktree"
            " session in a tmux session of its own); start dsh inside tmux instead, e.g."
            " tmux new-session dsh --worktree NAME",
            ctx,
        )


def worktree_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``dsh run --worktree [NAME]``: Claude Code's flag, the session in a git worktree;
    Claude Code's ``--tmux`` beside it is refused in words (dsh does not offer it)."""
    f = click.option(
        "--tmux",
        is_flag=False,
        flag_value="",
        default=None,
        expose_value=False,
        hidden=True,
        callback=_refuse_tmux,
    )(f)
    return click.option(
        "--worktree",
        "-w",
        "worktree",
        is_flag=False,
        flag_value="",
        default=None,
        metavar="[NAME]",
        help="Run the session in a git worktree, as Claude Code's --worktree: "
        "<repository>/.claude/worktrees/NAME on a new branch worktree-NAME (a generated name "
        "without NAME; an existing one is reopened), kept afterwards. See docs/cli.md.",
    )(f)


def session_id_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``dsh run --session-id UUID``: Claude Code's flag, the new session's id."""
    return click.option(
        "--session-id",
        "session_id",
        default=None,
        metavar="UUID",
        help="Use this id for the new session (a UUID not in use), as Claude Code's "
        "--session-id: a script knows it before the run (`dsh log ID`, `dsh run --resume ID`).",
    )(f)


def trust_project_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``dsh run --trust-project``: trust the project's hooks as they are now, then run;
    ``--skip-untrusted-hooks``: run without the untrusted ones."""
    f = click.option(
        "--skip-untrusted-hooks",
        is_flag=True,
        help="Run without the project's hooks and plugins that are not trusted (left out with "
        "a notice). Without it (or --trust-project), a run with no one to ask does not start "
        "while one is not trusted: it exits 2 naming them.",
    )(f)
    return click.option(
        "--trust-project",
        is_flag=True,
        help="Trust the project's own hooks, instructions files and the plugins its settings "
        "enable, as they are now (recorded, as accepting the trust prompt; see `dsh hooks "
        "trust`), then run. Without it, at a terminal dsh asks; otherwise a run does not "
        "start while a project hook is not trusted (see --skip-untrusted-hooks).",
    )(f)


_RUN_OPTIONS = [
    click.argument("prompt", nargs=-1),
    click.option(
        "--model",
        "model_spec",
        default=None,
        help="scripted:FILE for a scripted model, or a model name on an OpenAI-compatible endpoint "
        "(default: $DSH_MODEL).",
    ),
    click.option(
        "--base-url", default=None, help="OpenAI-compatible endpoint (default: $DSH_BASE_URL)."
    ),
    click.option(
        "--project",
        type=EXISTING_DIRECTORY,
        default=Path("."),
        show_default=True,
        help="The project directory: tools and hooks run there.",
    ),
    click.option("--session-dir", type=ANY_PATH, default=None, help=SESSION_DIR_HELP),
    click.option("--max-steps", type=click.IntRange(min=1), default=50, show_default=True),
    click.option(
        "--auto-compact-tokens",
        type=click.IntRange(min=1),
        default=None,
        help="Compact once a reply's reported usage (input, cache and output tokens) reaches"
        " this (Codex's model_auto_compact_token_limit; with --hooks codex, config.toml's"
        " is the default).",
    ),
    click.option(
        "--settings",
        "settings_files",
        multiple=True,
        help="An extra Claude Code settings file or inline JSON whose hooks run too.",
    ),
    click.option(
        "--plugin-dir",
        "plugin_dirs",
        multiple=True,
        type=DIRECTORY,
        help="A Claude Code plugin directory whose hooks run too, as Claude Code's --plugin-dir.",
    ),
    click.option(
        "--hooks",
        "hooks_choice",
        type=click.Choice(["claude", "codex", "both"]),
        default=None,
        help="The hook bridges to run (default: what the project has: .codex/, .claude/ or both;"
        " Claude Code's otherwise). With both, Claude Code's hooks run first on each seam.",
    ),
    codex_profile_option(),
    click.option(
        "--dangerously-bypass-hook-trust",
        "bypass_hook_trust",
        is_flag=True,
        help="Run Codex hooks that are not trusted, as Codex's flag of that name.",
    ),
    click.option(
        "--no-claude-hooks",
        is_flag=True,
        help="Do not load the project's Claude Code hooks (--settings files still load).",
    ),
    click.option(
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
    ),
    click.option(
        "--add-dir",
        "add_dirs",
        multiple=True,
        type=DIRECTORY,
        help="Another working directory the session may change files in, as Claude Code's "
        "--add-dir.",
    ),
    click.option(
        "--mcp-config",
        "mcp_config",
        multiple=True,
        help='An MCP server configuration file or inline JSON ({"mcpServers": ...}) whose'
        " servers the session starts too, as Claude Code's --mcp-config (docs/mcp.md).",
    ),
    click.option(
        "--strict-mcp-config",
        is_flag=True,
        help="Start only the --mcp-config servers, none of the project's or user's.",
    ),
    click.option(
        "--no-claude-md",
        is_flag=True,
        help="Do not load Claude Code's instructions files (CLAUDE.md, rules) into the context.",
    ),
    click.option(
        "--init",
        "setup_init",
        is_flag=True,
        help="Fire Setup hooks (trigger init) before the session starts, then run PROMPT.",
    ),
    click.option(
        "--init-only",
        is_flag=True,
        help="Fire Setup hooks (trigger init), start and end the session; no PROMPT.",
    ),
    click.option(
        "--maintenance",
        is_flag=True,
        help="Fire Setup hooks (trigger maintenance) before the session starts, then run PROMPT.",
    ),
]
