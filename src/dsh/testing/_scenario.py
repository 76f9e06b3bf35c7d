"""Scenario fixtures: a prompt through the real loop, and what the hooks came to across it.

A scenario fixture (``_fixture_schema.ScenarioSchema``) is a prompt and the
scripted model's replies; ``run_scenario`` plays it with ``run_session`` in a
temporary project (the fixture's hooks, or a copy of the project's own
``.claude/`` and ``.codex/``), tools running for real there, and reads the
session's log into the observed JSON a fixture's ``expect`` holds:

- ``firings``: each firing of an event's hooks, in order: the ``event``, the
  ``tool`` a tool event was about, the ``decision`` its answers came to (the
  kinds of ``EffectDecision``) and each hook's ``exit_codes``;
- ``model_text``: what the hooks had the model read, as the loop sent it
  (contexts, a block's feedback, a refused call's tool error);
- ``notices``: what the user was shown (notices, a blocked prompt's reason);
- ``end``: how the turn ended (``completed``, ``stopped``, ...).

``firings`` groups the ``hook/invocation`` events of one event and one payload
(by its digest), as ``dsh hooks record`` does.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from dsh.hook_protocol import HookInvocationEvent, HookResultEvent
from dsh.messages import content_text
from dsh.session import (
    ContextMessageEvent,
    NoticeEvent,
    PromptBlockedEvent,
    SessionEvent,
    SteeringMessageEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from dsh.testing._effect import EffectDecision, stronger
from dsh.testing._session import run_session

__all__ = ["Firing", "bridge_of", "firings", "observe_scenario", "run_scenario", "tool_near"]

Firing = tuple[int, HookInvocationEvent, list[HookResultEvent]]
"""One firing: its first invocation's index in the log, that invocation, and its results."""

_PRE: Final = ("PreToolUse", "PermissionRequest")
_POST: Final = ("PostToolUse", "PostToolUseFailure")
_NOT_COPIED: Final = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__"})
_MAX_COPIED_FILES: Final = 2_000
"""A project's own hooks run in a copy of it: bounded, so a large tree is refused in words."""


def bridge_of(source: str) -> str:
    """Whose hook a logged source is: Codex's files live under a ``.codex`` folder."""
    return "codex" if "/.codex/" in source else "claude"


def firings(events: Sequence[SessionEvent]) -> list[Firing]:
    """Each firing of the log (one bridge, one event, one payload digest), in order."""
    found: dict[tuple[str, str, str], Firing] = {}
    by_id: dict[str, tuple[str, str, str]] = {}
    for i, event in enumerate(events):
        if isinstance(event, HookInvocationEvent):
            key = (bridge_of(event.source), event.hook_event, event.payload_sha256)
            found.setdefault(key, (i, event, []))
            by_id[event.id] = key
        elif isinstance(event, HookResultEvent) and event.invocation_id in by_id:
            found[by_id[event.invocation_id]][2].append(event)
    return sorted(found.values(), key=lambda f: f[0])


def tool_near(events: Sequence[SessionEvent], at: int, event: str) -> ToolCallEvent | None:
    """The tool call a tool event's firing at ``at`` was about: the next call for PreToolUse
    and PermissionRequest, the last one before for the others; ``None`` for other events."""
    if event in _PRE:
        return next((e for e in events[at:] if isinstance(e, ToolCallEvent)), None)
    if event in _POST:
        return next((e for e in reversed(events[:at]) if isinstance(e, ToolCallEvent)), None)
    return None


def _claude_kind(event: str, logged: Mapping[str, Any]) -> EffectDecision:
    """The decision kind of a Claude Code answer as ``hook/result`` records it."""
    output = logged.get("output")
    output = output if isinstance(output, Mapping) else {}
    specific = output.get("hookSpecificOutput")
    specific = specific if isinstance(specific, Mapping) else {}
    if output.get("continue") is False:
        return "halt"
    permission = specific.get("permissionDecision")
    if event == "PreToolUse" and permission in ("allow", "ask", "deny"):
        return "deny" if permission == "deny" else "ask" if permission == "ask" else "allow"
    request = specific.get("decision")
    if isinstance(request, Mapping) and request.get("behavior") in ("allow", "deny"):
        return "allow" if request["behavior"] == "allow" else "deny"
    if "blocking_error" in logged or output.get("decision") == "block":
        return "deny" if event in _PRE else "block"
    return "none"


def _codex_kind(event: str, logged: Mapping[str, Any]) -> EffectDecision:
    """The decision kind of a Codex answer as ``hook/result`` records it (its set fields)."""
    if logged.get("halt"):
        return "halt"
    for field in ("permission", "behavior"):
        if logged.get(field) in ("allow", "deny"):
            return "allow" if logged[field] == "allow" else "deny"
    if logged.get("block") or logged.get("exit2"):
        return "deny" if event == "PreToolUse" else "block"
    return "none"


def _firing_json(events: Sequence[SessionEvent], firing: Firing) -> dict[str, Any]:
    at, invocation, results = firing
    event = invocation.hook_event
    kind = _codex_kind if bridge_of(invocation.source) == "codex" else _claude_kind
    decision: EffectDecision = "none"
    for result in results:
        if isinstance(result.decision, Mapping):
            decision = stronger(decision, kind(event, result.decision))
    out: dict[str, Any] = {"event": event}
    call = tool_near(events, at, event)
    if call is not None:
        out["tool"] = call.tool_name
    out["decision"] = decision
    out["exit_codes"] = [r.exit_code for r in results]
    return out


def observe_scenario(events: Sequence[SessionEvent], end: str) -> dict[str, Any]:
    """The observed JSON of a scenario's session (its ``events``; ``end``: how the turn ended)."""
    model: list[str] = []
    notices: list[str] = []
    for event in events:
        if isinstance(event, ContextMessageEvent) or (
            isinstance(event, SteeringMessageEvent) and event.source != "user"
        ):
            model.append(event.text)
        elif isinstance(event, ToolResultEvent) and event.code == "DENIED":
            model.append(content_text(event.content))
        elif isinstance(event, NoticeEvent | PromptBlockedEvent):
            text = event.text if isinstance(event, NoticeEvent) else event.reason
            if not notices or notices[-1] != text:  # a blocked prompt is also a notice
                notices.append(text)
    return {
        "firings": [_firing_json(events, f) for f in firings(events)],
        "model_text": model,
        "notices": notices,
        "end": end,
    }


def _copy_project(project: Path, into: Path) -> None:
    """The project, copied into the scenario's temporary one so its own hooks (and the
    scripts they name) run there and its tools touch nothing of yours: symbolic links
    copied as links, version control and dependency folders left out, at most
    ``_MAX_COPIED_FILES`` files (``ValueError`` beyond)."""
    count = 0

    def ignore(folder: str, names: list[str]) -> set[str]:
        nonlocal count
        left_out = {n for n in names if n in _NOT_COPIED}
        count += len(names) - len(left_out)
        if count > _MAX_COPIED_FILES:
            raise ValueError(
                f"{project} has more than {_MAX_COPIED_FILES} files to copy for a scenario:"
                " give the fixture its own hooks"
            )
        return left_out

    shutil.copytree(project, into, symlinks=True, ignore=ignore, dirs_exist_ok=True)


async def run_scenario(
    prompt: str,
    replies: Sequence[Any],
    *,
    bridge: str,
    hooks: Mapping[str, Any] | None,
    files: Mapping[str, str],
    project: Path,
    max_steps: int,
) -> tuple[dict[str, Any], Path]:
    """Play the scenario; its observed JSON and the temporary project it ran in (gone by then,
    named so its path can be written portably)."""
    from dsh.testing._sandbox import sandbox

    with sandbox() as box:
        if hooks is None:
            _copy_project(project, box.project)
        run = await run_session(
            prompt,
            *replies,
            claude_settings=hooks if hooks is not None and bridge == "claude" else None,
            codex_hooks=hooks if hooks is not None and bridge == "codex" else None,
            files=files,
            project=box.project,
            max_steps=max_steps,
        )
        return observe_scenario(run.events, run.result.end_reason), box.project
