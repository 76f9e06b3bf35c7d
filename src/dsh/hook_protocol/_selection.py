"""Whether a declared hook runs for an event, and why not: ``HookSelection``, ``hook/skipped``.

A bridge explains each handler it has for an event (``dsh hooks why``): it
runs, or one ``SelectionCode`` says why not, in words, with the file and the
place in it the handler came from. ``hook/skipped`` records the same in the
session log for the handlers of an event that fired without them (``dsh log
ID --hooks --why``), one event per firing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import freeze_json, thaw_json
from dsh.session import SessionEvent, event_types, register_event_type

__all__ = [
    "HookSelection",
    "HookSkippedEvent",
    "SelectionCode",
    "logged_before",
    "skipped_event",
]

SelectionCode: TypeAlias = Literal[
    "runs",
    "untrusted",
    "changed",
    "matcher",
    "if",
    "disabled",
    "policy",
    "deduplicated",
    "unsupported",
    "timeout",
    "invalid",
]
"""Why a handler runs for an event (``runs``) or does not: not trusted yet; changed since it
was trusted; its matcher does not select the event's value; its ``if`` rule does not admit
the call; a setting turned it (or its file) off; a policy setting (managed) left it out; an
identical handler already runs; the event is not one dsh runs for this bridge; its timeout
is not valid (or it ran out of time); the declaration is not valid."""


@final
@frozen(kw_only=True)
class HookSelection:
    """One declared handler for ``event``: where it came from (``where``: the file and the
    place in it), its ``command``, and ``code``/``reason``: it runs, or why not."""

    event: str
    where: str
    command: str
    code: SelectionCode
    reason: str = ""

    @property
    def runs(self) -> bool:
        return self.code == "runs"

    def describe(self) -> str:
        """``runs      /p/.claude/settings.json: PreToolUse[0][0]: cmd`` (then why not)."""
        shown = f": {self.command}" if self.command else ""
        head = f"{'runs' if self.runs else 'skipped':<8} {self.where}{shown}"
        return head if self.runs else f"{head}\n         {self.code}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "where": self.where,
            "command": self.command,
            "code": self.code,
            "reason": self.reason,
        }


@final
@register_event_type
@frozen(kw_only=True)
class HookSkippedEvent(SessionEvent):
    """An event's hooks fired without some of its declared handlers: ``skipped`` holds each
    one's ``HookSelection`` as JSON (``event``, ``where``, ``command``, ``code``, ``reason``)."""

    type: ClassVar[str] = "hook/skipped"
    hook_event: str
    skipped: Any = ()


def skipped_event(
    event: str, selections: Sequence[HookSelection], *, turn_id: str | None = None
) -> HookSkippedEvent | None:
    """The ``hook/skipped`` event for the handlers of ``selections`` that do not run."""
    skipped = [s.to_json() for s in selections if not s.runs]
    if not skipped:
        return None
    return HookSkippedEvent(turn_id=turn_id, hook_event=event, skipped=freeze_json(skipped))


def logged_before(record: HookSkippedEvent, history: Sequence[SessionEvent]) -> bool:
    """Whether ``history`` (a session's log so far) holds a ``hook/skipped`` the same as
    ``record``: its event, handlers and reasons. What an event never loaded is logged once
    per session so: a resumed session's earlier run, or its start before a compaction,
    gave it already (a record that differs, trust changed since, is logged). Only the
    ``hook/skipped`` events of a stored history are decoded."""
    skipped = thaw_json(record.skipped)
    for index, kind in enumerate(event_types(history)):
        if kind == HookSkippedEvent.type:
            seen = history[index]
            if (
                isinstance(seen, HookSkippedEvent)
                and seen.hook_event == record.hook_event
                and thaw_json(seen.skipped) == skipped
            ):
                return True
    return False
