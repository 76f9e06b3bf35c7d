"""Sessions from the command line: ``-c``/``--resume``, and ``dsh log``'s table and timeline.

A session's header records the directory it was created to run in
(``SessionInfo.project``): ``-c`` picks the latest session of the current
project, ``--resume`` runs a session there, ``dsh log`` lists the current
project's sessions unless ``--all``. ``dsh log ID`` is a timeline of one
session, one event a line, filtered by ``--hooks`` and ``--turn N``, or the
events as JSON lines (``--json``).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import click

from dsh._frozen import frozen
from dsh.cli._attachments import typed_text
from dsh.cli._errors import UserError, resolve_session_id
from dsh.cli._process import session_dir as _data_dir
from dsh.cli._process import started
from dsh.cli._render import TranscriptPrinter, terminal_safe
from dsh.messages import content_text
from dsh.session import JsonlSessionStore, SessionError, SessionEvent, SessionInfo, event_types
from dsh.session._codec import encode_event

__all__ = [
    "SessionRow",
    "latest_session",
    "log",
    "log_main",
    "print_table",
    "print_timeline",
    "resumed_summary",
    "session_project",
    "session_rows",
]

_PROMPT_WIDTH = 48


def _same_dir(a: str | None, b: Path) -> bool:
    if a is None:
        return False
    try:
        return Path(a).resolve() == b.resolve()
    except (OSError, ValueError):
        return False


def latest_session(store: JsonlSessionStore, project: Path) -> SessionInfo:
    """The most recently changed session created for ``project`` (``-c``/``--continue``)."""
    return project_sessions(store, project)[0]


def session_project(store: JsonlSessionStore, session_id: str) -> Path | None:
    """The directory the session's header records, checked to exist; ``None`` if none."""
    info = next((i for i in store.list(skipped=[]) if i.id == session_id), None)
    if info is None or info.project is None:
        return None
    path = Path(info.project)
    if not path.is_dir():
        raise UserError(
            f"session {session_id} ran in {path}, which is no longer a directory; "
            "pass --project DIR to resume it elsewhere"
        )
    return path


def _clip(text: str, width: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


@frozen
class SessionRow:
    """One line of ``dsh log``: a session's id, when, where, what was asked, how it ended."""

    id: str
    created: float
    project: str | None
    first_prompt: str
    turns: int
    end_reason: str

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created": self.created,
            "project": self.project,
            "first_prompt": self.first_prompt,
            "turns": self.turns,
            "end_reason": self.end_reason,
        }


def _summary(events: Sequence[SessionEvent]) -> tuple[str, int, str]:
    # From the type tags: only the first prompt and the last turn end are decoded.
    types = event_types(events)
    first = ""
    for i in (i for i, t in enumerate(types) if t == "user/message"):
        first = typed_text(getattr(events[i], "content", ""))
        if first:
            break
    turns = types.count("turn/end")
    reason = "-"
    if turns:
        last = len(types) - 1 - types[::-1].index("turn/end")
        reason = str(getattr(events[last], "reason", "?"))
    return first, turns, reason


def session_rows(store: JsonlSessionStore, infos: Iterable[SessionInfo]) -> list[SessionRow]:
    rows = []
    for info in infos:
        try:
            first, turns, reason = _summary(store.load(info.id))
        except SessionError:
            first, turns, reason = "", 0, "unreadable"
        rows.append(SessionRow(info.id, info.created, info.project, first, turns, reason))
    return rows


def project_sessions(store: JsonlSessionStore, project: Path) -> list[SessionInfo]:
    """The sessions created for ``project``, most recently changed first; none is an error."""
    # A file whose header is unreadable may be any project's: named only when it matters.
    skipped: list[tuple[Path, str]] = []
    mine = [i for i in store.list(skipped=skipped) if _same_dir(i.project, project)]
    if not mine:
        unreadable = f"; {len(skipped)} unreadable session file(s) skipped" if skipped else ""
        raise UserError(
            f"no session of project {project} in {store.data_dir} to continue "
            f"(`dsh log --all` lists every session{unreadable})"
        )
    return sorted(mine, key=lambda i: (i.modified or i.created, i.created), reverse=True)


def summary_line(row: SessionRow) -> str:
    """A session in one line, as the ``--resume`` picker lists it."""
    turns = f"{row.turns} turn{'s' if row.turns != 1 else ''}"
    return (
        f"{row.id[:8]}  {_date(row.created)}  {turns:>9}  {row.end_reason:<10}  "
        f"{_clip(row.first_prompt, _PROMPT_WIDTH)}"
    )


def resumed_summary(session_id: str, events: Sequence[SessionEvent]) -> str:
    """The line a resumed run prints instead of the whole history."""
    first, turns, reason = _summary(events)
    asked = f', first prompt "{_clip(first, _PROMPT_WIDTH)}"' if first else ""
    ended = f", last turn {reason}" if turns else ""
    return (
        f"resumed session {session_id[:8]} ({turns} turn{'s' if turns != 1 else ''}{asked}"
        f"{ended}; `dsh log {session_id[:8]}` shows it)"
    )


def _date(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M")


def print_table(
    store: JsonlSessionStore, project: Path, *, every: bool, as_json: bool, echo: Any
) -> None:
    """``dsh log``: the sessions of ``project`` (every one with ``every``), oldest first; each
    session file whose header is unreadable is named once on stderr."""
    skipped: list[tuple[Path, str]] = []
    infos = store.list(skipped=skipped)
    for path, why in skipped:
        click.echo(terminal_safe(f"dsh: skipping {path}: {why}"), err=True)
    if not every:
        infos = [i for i in infos if _same_dir(i.project, project)]
    rows = session_rows(store, infos)
    if as_json:
        for row in rows:
            echo(json.dumps(row.as_json(), ensure_ascii=False))
        return
    if not rows:
        where = "" if every else f" for {project} (--all lists every project's)"
        echo(f"no sessions{where}")
        return
    header = f"{'ID':<8}  {'DATE':<16}  {'TURNS':>5}  {'END':<10}  {'PROJECT':<28}  FIRST PROMPT"
    echo(header)
    for row in rows:
        place = _clip(_home(row.project) if row.project else "-", 28)
        echo(
            terminal_safe(
                f"{row.id[:8]:<8}  {_date(row.created):<16}  {row.turns:>5}  "
                f"{row.end_reason:<10}  {place:<28}  {_clip(row.first_prompt, _PROMPT_WIDTH)}"
            )
        )


def _home(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home) :] if path == home or path.startswith(home + "/") else path


# --- the timeline -----------------------------------------------------------------


def _numbered_turns(events: Sequence[SessionEvent]) -> list[int]:
    """Each event's turn number (0 before the first turn), by the order turns started."""
    numbers: dict[str, int] = {}
    out = []
    for event in events:
        turn = event.turn_id
        if turn is not None and turn not in numbers:
            numbers[turn] = len(numbers) + 1
        out.append(numbers.get(turn, 0) if turn is not None else 0)
    return out


def _describe(event: SessionEvent, shown: dict[str, str]) -> str:
    """One line of what ``event`` did; an assistant message's text is what the user was shown
    (``shown``: an ``agent/message-display`` replacement by message id)."""

    def get(name: str) -> Any:
        return getattr(event, name, None)

    kind = event.type
    if kind == "assistant/display":
        return "(the user was shown the text above instead of the model's)"
    if kind == "user/message":
        return "> " + typed_text(get("content") or "")
    if kind == "assistant/message":
        calls = get("tool_calls") or ()
        names = ", ".join(c.name for c in calls)
        text = shown.get(event.id, get("text") or "")
        return text + (f" [calls: {names}]" if names else "")
    if kind == "tool/call":
        return f"{get('tool_name')} {json.dumps(get('arguments'), default=str)}"
    if kind == "tool/result":
        mark = f"error {get('code')}: " if get("is_error") else ""
        return mark + content_text(get("content") or "")
    if kind == "hook/invocation":
        return f"{get('hook_event')} {' '.join(get('command') or ())} ({get('source')})"
    if kind == "hook/result":
        outcome = f"exit {get('exit_code')}" if get("exit_code") is not None else "no exit"
        if get("timed_out"):
            outcome = "timed out"
        decision = get("decision")
        said = f" decision {json.dumps(decision, default=str)}" if decision is not None else ""
        return f"{get('hook_event')} {outcome} in {get('duration') or 0:.2f}s{said}"
    if kind == "hook/skipped":
        named = "every event" if get("hook_event") == "*" else get("hook_event")  # a whole file
        return f"{named}: {len(get('skipped') or ())} handler(s) did not run"
    if kind == "turn/end":
        return str(get("reason")) + (f" ({get('error')})" if get("error") else "")
    for name in ("text", "summary", "reason", "prompt"):
        value = get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def print_timeline(
    events: Sequence[SessionEvent],
    *,
    hooks_only: bool,
    turn: int | None,
    as_json: bool,
    echo: Any,
    why: bool = False,
) -> None:
    """``dsh log ID``: one line per event (time since the start, turn, type, what happened);
    ``why``: also each ``hook/skipped``, a line per handler left out and why."""
    turns = _numbered_turns(events)
    if turn is not None and turn > max(turns, default=0):
        raise UserError(f"--turn {turn}: the session has {max(turns, default=0)} turn(s)")
    start = events[0].time if events else 0.0
    shown = {
        str(getattr(e, "message_id", "")): str(getattr(e, "text", ""))
        for e in events
        if e.type == "assistant/display"
    }
    for event, number in zip(events, turns, strict=True):
        if hooks_only and not event.type.startswith("hook/"):
            continue
        if event.type == "hook/skipped" and not why:
            continue
        if turn is not None and number != turn:
            continue
        if as_json:
            echo(encode_event(event))
            continue
        where = f"turn {number}" if number else "session"
        text = _clip(_describe(event, shown), 100)
        echo(terminal_safe(f"+{event.time - start:8.2f}s  {where:<8}  {event.type:<18}  {text}"))
        if event.type == "hook/skipped":
            for line in _skipped_lines(event):
                echo(terminal_safe(line))


def _skipped_lines(event: SessionEvent) -> list[str]:
    """Under a ``hook/skipped`` line: each handler left out, then its reason's code and words."""
    lines = []
    for skipped in getattr(event, "skipped", None) or ():
        command = skipped.get("command")  # none for a handler that is not a command
        lines.append(f"{'':<34}{skipped.get('where')}" + (f": {command}" if command else ""))
        lines.append(f"{'':<36}{skipped.get('code')}: {skipped.get('reason')}")
    return lines


def resolve(store: JsonlSessionStore, given: str) -> str:
    """``given`` as a full session id (a unique prefix allowed)."""
    return resolve_session_id(store.data_dir, given)


def log(session_id: str | None, session_dir: Path | None, **flags: Any) -> None:
    """``dsh log``'s work: the sessions of ``--session-dir`` (default: the data directory)."""
    started()
    log_main(session_id, _data_dir(session_dir), **flags)


def log_main(
    session_id: str | None,
    data_dir: Path,
    *,
    every: bool,
    project: Path,
    hooks_only: bool,
    turn: int | None,
    as_json: bool,
    transcript: bool,
    verbose: bool,
    why: bool = False,
) -> None:
    """``dsh log [ID]``: the table, or one session's timeline (or transcript)."""
    store = JsonlSessionStore(data_dir)
    if session_id is None:
        if hooks_only or turn is not None or transcript or why:
            raise UserError("--hooks, --turn, --transcript and --why need a session ID")
        print_table(store, project.resolve(), every=every, as_json=as_json, echo=click.echo)
        return
    # The hook events' types register with their module: without it they read back opaque
    # (``hook/invocation None (None)``).
    import dsh.hook_protocol  # noqa: F401

    events = store.load(resolve(store, session_id))
    if transcript:
        TranscriptPrinter(verbose=verbose).print_events(events)
        return
    print_timeline(
        events, hooks_only=hooks_only, turn=turn, as_json=as_json, echo=click.echo, why=why
    )
