"""``dsh acp``'s declaration: serve the Agent Client Protocol on stdio, for editors such as Zed.

The options are ``dsh run``'s that configure sessions (the model, where
sessions live, the Claude Code profile); each session's project is the
client's ``cwd``. Declared with click alone; the work is ``_acp_serve``'s.
"""

from __future__ import annotations

from typing import Any

import click

from dsh.cli._lazy import work
from dsh.cli._run_flags import SESSION_FLAGS

__all__ = ["acp_command"]


_OWN: tuple[click.Parameter, ...] = (
    click.Option(
        ["--trust-project"],
        is_flag=True,
        help="Trust the project hooks of every session's directory as it opens (as accepting "
        "the trust question there); without it, the client is asked (session/request_permission)"
        " and, declined, untrusted ones are left out with a notice.",
    ),
    click.Option(["--verbose", "-v"], is_flag=True, help="Log each session's opening and closing."),
)


def acp_command(run: click.Command) -> click.Command:
    """``dsh acp``, with ``run``'s session options (shared, so the two never drift apart)."""
    # An option ``run`` no longer has is left out here rather than failing every start of
    # ``dsh``; tests/acp checks that all are there.
    shared = [p for p in run.params if p.name in SESSION_FLAGS]
    return click.Command(
        "acp",
        callback=_serve,
        params=[*shared, *_OWN],
        help=_HELP,
        short_help="Serve the Agent Client Protocol on stdio (Zed and other editors).",
    )


def _serve(**params: Any) -> None:
    work("_acp_serve:serve")(**params)


_HELP = """Serve the Agent Client Protocol on stdin/stdout (for Zed and other ACP clients).

    \b
    Each ACP session is a dsh session in the client's cwd, with its hooks
    (Claude Code's, Codex's), permission rules and instruction files as
    `dsh run --project CWD` would load them; the model, base URL, permission
    mode and plugins come from the same configuration (`dsh config show`).
    Closing stdin ends every session (session-end hooks fire) and exits 0.
    """
