"""``--resume`` with no id at a terminal: pick one of this project's sessions from a short list.

Headless, a bare ``--resume`` takes the latest session of the project (as
``-c``); at a terminal a person chooses, newest first, by number or by an id
prefix. Every way out without a choice (EOF, Ctrl-C, three bad answers) is a
``UserError`` saying nothing was resumed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dsh.cli._errors import UserError
from dsh.cli._render import terminal_safe
from dsh.cli._sessions import (
    project_sessions,
    resolve,
    session_rows,
    summary_line,
)
from dsh.session import JsonlSessionStore

__all__ = ["MAX_LISTED", "pick_session"]

MAX_LISTED = 20
"""How many sessions the list shows (the newest); an older one is chosen by its id prefix."""


def pick_session(
    store: JsonlSessionStore,
    project: Path,
    *,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
) -> str:
    """The id of the session a person picks among ``project``'s (newest first)."""
    rows = session_rows(store, project_sessions(store, project)[:MAX_LISTED])
    say(f"Sessions of {project} (newest first):")
    for n, row in enumerate(rows, 1):
        say(terminal_safe(f"  {n:>2}  {summary_line(row)}"))
    for _ in range(3):
        try:
            answer = ask(f"Resume which session? [1-{len(rows)} or an id prefix, Enter: 1] ")
        except (EOFError, KeyboardInterrupt):
            break
        choice = answer.strip()
        if not choice:
            return rows[0].id
        if choice.isdigit() and 1 <= int(choice) <= len(rows):
            return rows[int(choice) - 1].id
        try:
            return resolve(store, choice)
        except UserError as exc:
            say(str(exc))
    raise UserError("no session chosen: nothing resumed")
