"""Why a Claude Code hook is left out of a firing: its matcher, its ``if`` rule, and the rest.

``select_reason`` is the runtime's choice for one handler and one payload (the
matcher against the event's matcher field, then the ``if`` rule against the
tool call); ``skipped_selections`` explains the handlers of an event a firing
left out, for its ``hook/skipped`` event. ``firing_skips`` does the same for
every other event at its firing, with the handlers deduplicated and, the first
time an event fires in a session, those the catalog never had (``left_out``:
not trusted or changed, a file turned off or left out by policy, not valid),
as ``dsh hooks why`` (``_why``) names them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from dsh.hook_protocol import HookSelection, SelectionCode
from dsh.hooks.claude.events._specs import EVENT_SPECS
from dsh.hooks.claude.settings._selection import where
from dsh.hooks.claude.settings._types import Catalog, HookDeclaration

__all__ = [
    "SKIP_RECORDS",
    "TOOL_EVENTS",
    "firing_skips",
    "select_reason",
    "skipped_selections",
]

SKIP_RECORDS: Final = 1000
"""At most this many ``hook/skipped`` events per session (a long session's log stays bounded)."""

TOOL_EVENTS: Final = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}
)
"""The events whose hooks are chosen per tool call (``skipped_selections`` logs those)."""


def select_reason(
    decl: HookDeclaration, event: str, payload: Mapping[str, Any], cwd: Path
) -> tuple[SelectionCode, str]:
    """``runs``, or ``matcher``/``if`` and why: the runtime's own choice for one handler."""
    field = EVENT_SPECS[event].matcher_field
    value = payload.get(field) if field is not None else None
    value = value if isinstance(value, str) else None
    if not decl.matches(value):
        return "matcher", f"its matcher {decl.matcher.declared!r} does not select {field} {value!r}"
    rule = decl.if_rule
    if rule is not None:
        tool = str(payload.get("tool_name", ""))
        arguments = payload.get("tool_input")
        if not rule.admits(tool, arguments if isinstance(arguments, Mapping) else {}, cwd=cwd):
            return "if", f"its `if` rule {rule.declared!r} does not admit this {tool} call"
    return "runs", ""


def skipped_selections(
    catalog: Catalog,
    event: str,
    chosen: Sequence[HookDeclaration],
    payload: Mapping[str, Any],
    cwd: Path,
) -> tuple[HookSelection, ...]:
    """The handlers of ``event`` a firing left out (not in ``chosen``), each with why."""
    out = []
    for decl in catalog.for_event(event):
        if any(decl is c for c in chosen):
            continue
        code, reason = select_reason(decl, event, payload, cwd)
        if code == "runs":
            code, reason = "disabled", "not chosen for this firing"
        out.append(
            HookSelection(
                event=event,
                where=where(decl),
                command=decl.declared_command,
                code=code,
                reason=reason,
            )
        )
    return tuple(out)


def firing_skips(
    catalog: Catalog,
    event: str,
    hooks: Sequence[HookDeclaration],
    payload: Mapping[str, Any],
    cwd: Path,
    left_out: Sequence[HookSelection] = (),
) -> list[HookSelection]:
    """The handlers one firing of ``event`` runs without, each with why: ``left_out`` (what
    the catalog never had, given once per event and session), the matcher (tool events log
    theirs when they choose), and a handler deduplicated. Nothing to do when all run."""
    out = [
        HookSelection(event=event, where=s.where, command=s.command, code=s.code, reason=s.reason)
        for s in left_out
    ]
    if event not in TOOL_EVENTS:
        chosen = {id(h) for h in hooks}
        for decl in catalog.for_event(event):
            if id(decl) in chosen:
                continue
            code, reason = select_reason(decl, event, payload, cwd)
            if code != "runs":
                out.append(_selection(decl, code, reason))
    first: dict[Hashable, HookDeclaration] = {}
    for decl in hooks:
        ran = first.setdefault(decl.dedup_key, decl)
        if ran is not decl:
            why = f"an identical command runs already ({where(ran)})"
            out.append(_selection(decl, "deduplicated", why))
    return out


def _selection(decl: HookDeclaration, code: SelectionCode, reason: str) -> HookSelection:
    return HookSelection(
        event=decl.event,
        where=where(decl),
        command=decl.declared_command,
        code=code,
        reason=reason,
    )
