"""``dsh hooks record SESSION``: a real session's hook runs, as fixtures that pin them.

Each firing of the session's log (the ``hook/invocation`` events of one event
and one payload, by its digest; a bridge's hooks fire together) becomes a
fixture in ``--out`` (``NNN-BRIDGE-EVENT.json``). The log keeps a payload's
digest, not the payload, so the payload is built again in the bridge's shape
from what the log does keep: the tool call a tool event was about (the next
``tool/call`` for PreToolUse and PermissionRequest, the last one before for
the others), the prompt of UserPromptSubmit, the last assistant text of Stop
and SubagentStop. Each fixture is then run against the project's hooks as they
are today and its ``expect`` is what came out (``dsh hooks test --fixtures``
checks it from then on); an exit code that differs from the session's is said.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from dsh.cli._errors import UserError
from dsh.cli._process import session_dir as data_dir_for
from dsh.cli._process import started
from dsh.cli._render import terminal_safe
from dsh.cli._sessions import project_sessions, resolve, session_project
from dsh.messages import content_text
from dsh.session import (
    AssistantMessageEvent,
    JsonlSessionStore,
    PromptBlockedEvent,
    SessionEvent,
    UserMessageEvent,
)

__all__ = ["hooks_record_main"]


def _fixture(events: Sequence[SessionEvent], at: int, bridge: str, event: str) -> dict[str, Any]:
    """The fixture's event, bridge and payload, rebuilt from the log around index ``at``."""
    from dsh.testing._scenario import tool_near

    fixture: dict[str, Any] = {"event": event}
    if bridge == "codex":
        fixture["bridge"] = "codex"
    call = tool_near(events, at, event)
    if call is not None:
        fixture["tool"] = call.tool_name
        fixture["input"] = json.loads(json.dumps(call.arguments))
    elif event == "UserPromptSubmit":
        message = next((e for e in events[at:] if isinstance(e, UserMessageEvent)), None)
        if message is not None:
            fixture["prompt"] = content_text(message.content)
    elif event in ("Stop", "SubagentStop"):
        before = (e for e in reversed(events[:at]) if isinstance(e, AssistantMessageEvent))
        reply = next(before, None)
        fixture["payload"] = _stop_payload(bridge, event, reply.text if reply else "")
    return fixture


def _stop_payload(bridge: str, event: str, text: str) -> dict[str, Any]:
    project = Path("${PROJECT_DIR}")
    if bridge == "codex":
        from dsh.hooks.codex import codex_payload

        payload = codex_payload(event, project)
    else:
        from dsh.hooks.claude import generated_payload

        payload = generated_payload(event, project)
    payload["last_assistant_message"] = text
    return payload


def _replies(turn: Sequence[SessionEvent]) -> list[list[dict[str, Any]]]:
    """The model's replies of a turn, as a scripted model's blocks (text, then tool calls)."""
    replies = []
    for event in turn:
        if isinstance(event, AssistantMessageEvent):
            blocks: list[dict[str, Any]] = (
                [{"type": "text", "text": event.text}] if event.text else []
            )
            for use in event.tool_calls:
                arguments = json.loads(json.dumps(use.arguments))
                blocks.append({"type": "tool_use", "name": use.name, "input": arguments})
            replies.append(blocks)
    return replies


def _turn_prompt(turn: Sequence[SessionEvent]) -> str | None:
    """What the user typed to start the turn (a blocked prompt's too)."""
    for event in turn:
        if isinstance(event, UserMessageEvent | PromptBlockedEvent) and event.source == "user":
            return content_text(
                event.prompt if isinstance(event, PromptBlockedEvent) else event.content
            )
    return None


def _record_scenarios(
    events: Sequence[SessionEvent], full: str, *, out: Path, project: Path
) -> int:
    """One scenario fixture per turn of the session (its prompt and the model's replies), its
    ``expect`` what the project's hooks make of it today."""
    from dsh.testing import accept_fixture, check_fixture

    turns: dict[str, list[SessionEvent]] = {}
    for event in events:
        if event.turn_id is not None:
            turns.setdefault(event.turn_id, []).append(event)
    written = 0
    out.mkdir(parents=True, exist_ok=True)
    for turn in turns.values():
        prompt = _turn_prompt(turn)
        if prompt is None:
            continue
        written += 1
        fixture = {
            "description": f"turn {written} of session {full}, recorded",
            "scenario": {"prompt": prompt, "replies": _replies(turn)},
        }
        path = out / f"{written:03d}-scenario.json"
        path.write_text(json.dumps(fixture, indent=2, ensure_ascii=False) + "\n", "utf-8")
        check = asyncio.run(check_fixture(path, project=project))
        if check.error:
            click.echo(terminal_safe(f"ERROR   {path.name}: {check.error}"))
            continue
        accept_fixture(check)
        click.echo(terminal_safe(f"wrote   {path}"))
    if not written:
        click.echo(f"session {full}: no turn to record")
        return 1
    click.echo(f"{written} turn(s) recorded in {out} as scenarios")
    return 0


def hooks_record(
    session_id: str | None, *, data_dir: Path, out: Path, project: Path | None, scenarios: bool
) -> int:
    """``dsh hooks record``; returns the exit status."""
    from dsh.testing import accept_fixture, check_fixture

    store = JsonlSessionStore(data_dir)
    if session_id is None:
        sessions = project_sessions(store, project or Path.cwd().resolve())
        if not sessions:
            raise UserError("this project has no session yet: give a SESSION ID")
        full = sessions[0].id
    else:
        full = resolve(store, session_id)
    events = store.load(full)
    where = project or session_project(store, full)
    if where is None or not where.is_dir():
        raise UserError(f"session {full}: its project is gone; give --project")
    from dsh.testing._scenario import bridge_of, firings

    if scenarios:
        return _record_scenarios(events, full, out=out, project=where)
    found = firings(events)
    if not found:
        click.echo(f"session {full}: no hook ran")
        return 1
    out.mkdir(parents=True, exist_ok=True)
    for n, (at, invocation, results) in enumerate(found, 1):
        bridge = bridge_of(invocation.source)
        fixture = {
            "description": f"recorded from session {full}",
            **_fixture(events, at, bridge, invocation.hook_event),
        }
        path = out / f"{n:03d}-{bridge}-{invocation.hook_event}.json"
        path.write_text(json.dumps(fixture, indent=2, ensure_ascii=False) + "\n", "utf-8")
        check = asyncio.run(check_fixture(path, project=where))
        if check.error:
            click.echo(terminal_safe(f"ERROR   {path.name}: {check.error}"))
            continue
        accept_fixture(check)
        then = [r.exit_code for r in results]
        now = list((check.observed or {}).get("exit_codes", []))
        note = f" (the session's exit codes were {then}, now {now})" if then != now else ""
        click.echo(terminal_safe(f"wrote   {path}{note}"))
    click.echo(f"{len(found)} hook firing(s) recorded in {out}")
    return 0


def hooks_record_main(
    session_id: str | None,
    session_dir: Path | None,
    out: Path,
    project: Path | None,
    scenario: bool = False,
) -> None:
    """``dsh hooks record``'s work: its exit status is ``hooks_record``'s."""
    import sys

    import dsh.hook_protocol  # noqa: F401  (the hook events' types register with it)

    started()
    resolved = project.resolve() if project is not None else None
    sys.exit(
        hooks_record(
            session_id,
            data_dir=data_dir_for(session_dir),
            out=out,
            project=resolved,
            scenarios=scenario,
        )
    )
