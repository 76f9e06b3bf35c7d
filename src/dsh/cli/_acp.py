"""``dsh acp``: serve the Agent Client Protocol on stdio, for editors such as Zed.

The options are ``dsh run``'s that configure sessions (the model, where
sessions live, the Claude Code profile); each session's project is the
client's ``cwd``. stdout carries protocol messages only; logs go to stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

import click

__all__ = ["acp_command"]


_SHARED = (
    "model_spec",
    "base_url",
    "session_dir",
    "max_steps",
    "settings_files",
    "plugin_dirs",
    "no_claude_hooks",
    "no_claude_md",
    "permission_mode",
    "add_dirs",
    "hooks_choice",
    "bypass_hook_trust",
    "plugins",
)
"""``dsh run``'s options that describe a session: ``dsh acp`` takes the very same ones."""

_OWN: tuple[click.Parameter, ...] = (
    click.Option(
        ["--trust-project"],
        is_flag=True,
        help="Trust the project hooks of every session's directory as it opens (as accepting "
        "the trust question there); without it, untrusted ones are left out with a notice.",
    ),
    click.Option(["--verbose", "-v"], is_flag=True, help="Log each session's opening and closing."),
)


def acp_command(run: click.Command) -> click.Command:
    """``dsh acp``, with ``run``'s session options (shared, so the two never drift apart)."""
    # An option ``run`` no longer has is left out here rather than failing every start of
    # ``dsh``; tests/acp checks that all are there.
    shared = [p for p in run.params if p.name in _SHARED]
    return click.Command(
        "acp",
        callback=_serve,
        params=[*shared, *_OWN],
        help=_serve.__doc__,
        short_help="Serve the Agent Client Protocol on stdio (Zed and other editors).",
    )


def _serve(
    model_spec: str | None = None,
    base_url: str | None = None,
    session_dir: Path | None = None,
    max_steps: int = 50,
    settings_files: tuple[str, ...] = (),
    plugin_dirs: tuple[Path, ...] = (),
    no_claude_hooks: bool = False,
    no_claude_md: bool = False,
    permission_mode: str | None = None,
    add_dirs: tuple[Path, ...] = (),
    hooks_choice: Literal["claude", "codex", "both"] | None = None,
    bypass_hook_trust: bool = False,
    plugins: tuple[str, ...] = (),
    trust_project: bool = False,
    verbose: bool = False,
) -> None:
    """Serve the Agent Client Protocol on stdin/stdout (for Zed and other ACP clients).

    \b
    Each ACP session is a dsh session in the client's cwd, with its hooks
    (Claude Code's, Codex's), permission rules and instruction files as
    `dsh run --project CWD` would load them; the model, base URL, permission
    mode and plugins come from the same configuration (`dsh config show`).
    Closing stdin ends every session (session-end hooks fire) and exits 0.
    """
    import asyncio
    import gc

    from dsh.acp import AcpConfig, serve_stdio
    from dsh.cli._errors import UserError, check_settings_args
    from dsh.cli._run_settle import settle
    from dsh.hooks import HookSelection
    from dsh.models import ModelError, load_model
    from dsh.session import default_data_dir

    _log_to_stderr(verbose)
    sessions = session_dir if session_dir is not None else default_data_dir()
    given = {"model": model_spec, "base_url": base_url, "permission_mode": permission_mode}
    settled = settle(
        project=Path.cwd(),
        session_dir=sessions,
        flags={k: v for k, v in given.items() if v is not None},
        io={"plugins": plugins},
    )
    if not settled.model_spec:
        raise click.UsageError(
            "no model: pass --model scripted:FILE or --model NAME --base-url URL"
        )
    try:
        model = load_model(settled.model_spec, base_url=settled.base_url, api_key=settled.api_key)
    except (ModelError, OSError, ValueError) as exc:
        raise UserError(str(exc)) from exc
    check_settings_args(settings_files)
    config = AcpConfig(
        model=model,
        session_dir=sessions,
        max_steps=max_steps,
        plugins=settled.plugins,
        trust_projects=trust_project,
        hooks=HookSelection(
            hooks=hooks_choice,
            claude_hooks=not no_claude_hooks,
            settings_files=settings_files,
            plugin_dirs=plugin_dirs,
            permission_mode=settled.permission_mode,
            add_dirs=tuple(p.resolve() for p in add_dirs),
            claude_md=not no_claude_md,
            attended=True,  # a person is at the editor: asks reach them
            bypass_hook_trust=bypass_hook_trust,
        ),
    )
    # Start-up is over (``dsh`` pauses the collector while it imports): a server runs long.
    gc.freeze()
    gc.enable()
    try:
        asyncio.run(serve_stdio(config))
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as exc:
        raise UserError(str(exc)) from exc


def _log_to_stderr(verbose: bool) -> None:
    """Log lines on stderr, without tracebacks (the SDK logs one for a bad input line): a
    line names the exception instead, so the editor's log shows no Python internals."""
    import logging

    class OneLine(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            error = record.exc_info[1] if record.exc_info else None
            plain = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None})
            text = super().format(plain)
            return f"{text} ({type(error).__name__}: {error})" if error is not None else text

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine("dsh acp: %(levelname)s: %(message)s"))
    logging.basicConfig(handlers=[handler], level=logging.INFO if verbose else logging.WARNING)
