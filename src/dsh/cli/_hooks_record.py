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
    SessionEvent,
    ToolCallEvent,
    UserMessageEvent,
)

__all__ = ["hooks_record_main"]

_PRE = ("PreToolUse", "PermissionRequest")
_POST = ("PostToolUse", "PostToolUseFailure")


def _bridge(source: str) -> str:
    """Whose hook a logged source is: Codex's files live under a ``.codex`` folder."""
    return "codex" if "/.codex/" in source else "claude"


def _firings(events: Sequence[SessionEvent]) -> list[tuple[int, Any, list[Any]]]:
    """Each firing: its first invocation's index, that invocation, and its results."""
    from dsh.hook_protocol import HookInvocationEvent, HookResultEvent

    firings: dict[tuple[str, str, str], tuple[int, Any, list[Any]]] = {}
    by_id: dict[str, tuple[str, str, str]] = {}
    for i, event in enumerate(events):
        if isinstance(event, HookInvocationEvent):
            key = (_bridge(event.source), event.hook_event, event.payload_sha256)
            firings.setdefault(key, (i, event, []))
            by_id[event.id] = key
        elif isinstance(event, HookResultEvent) and event.invocation_id in by_id:
            firings[by_id[event.invocation_id]][2].append(event)
    return sorted(firings.values(), key=lambda f: f[0])


def _near(events: Sequence[SessionEvent], at: int, kind: type, after: bool) -> Any:
    span = events[at:] if after else reversed(events[:at])
    return next((e for e in span if isinstance(e, kind)), None)


def _fixture(events: Sequence[SessionEvent], at: int, bridge: str, event: str) -> dict[str, Any]:
    """The fixture's event, bridge and payload, rebuilt from the log around index ``at``."""
    fixture: dict[str, Any] = {"event": event}
    if bridge == "codex":
        fixture["bridge"] = "codex"
    if event in _PRE or event in _POST:
        call = _near(events, at, ToolCallEvent, after=event in _PRE)
        if call is not None:
            fixture["tool"] = call.tool_name
            fixture["input"] = json.loads(json.dumps(call.arguments))
    elif event == "UserPromptSubmit":
        message = _near(events, at, UserMessageEvent, after=True)
        if message is not None:
            fixture["prompt"] = content_text(message.content)
    elif event in ("Stop", "SubagentStop"):
        reply = _near(events, at, AssistantMessageEvent, after=False)
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


def hooks_record(session_id: str | None, *, data_dir: Path, out: Path, project: Path | None) -> int:
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
    firings = _firings(events)
    if not firings:
        click.echo(f"session {full}: no hook ran")
        return 1
    out.mkdir(parents=True, exist_ok=True)
    for n, (at, invocation, results) in enumerate(firings, 1):
        bridge = _bridge(invocation.source)
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
    click.echo(f"{len(firings)} hook firing(s) recorded in {out}")
    return 0


def hooks_record_main(
    session_id: str | None, session_dir: Path | None, out: Path, project: Path | None
) -> None:
    """``dsh hooks record``'s work: its exit status is ``hooks_record``'s."""
    import sys

    import dsh.hook_protocol  # noqa: F401  (the hook events' types register with it)

    started()
    resolved = project.resolve() if project is not None else None
    sys.exit(
        hooks_record(session_id, data_dir=data_dir_for(session_dir), out=out, project=resolved)
    )
