"""Deferred tool calls: a call a pre-execute policy deferred waits, durably, to be settled.

A ``defer`` decision (``PreToolDecision.defer``; Claude Code's PreToolUse
``permissionDecision: "defer"``) leaves its call unrun: the log gets ``tool/deferred`` in
place of a result, the step's other calls finish, and the turn ends ``deferred`` (no
``agent/post-tool-batch``, no continuation: 2.1.332 fires neither PostToolBatch nor Stop).
The call stays pending in the log, across a restart, until someone settles it
(``Agent.settle_deferred``): approved, it goes through the whole pipeline again with the
same ``tool_use_id`` (the policies decide afresh, as 2.1.332 re-fires PreToolUse on resume;
a second deferral ends that turn deferred again); rejected, it gets an error result saying
so. Either way the turn goes on with 2.1.332's prompt, ``Continue from where you left off.``
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Literal, final

from dsh._frozen import frozen
from dsh.base import FrozenDict
from dsh.session import SessionEvent, ToolDeferredEvent, ToolResultEvent

__all__ = [
    "CONTINUE_PROMPT",
    "DeferredCall",
    "Settlement",
    "pending_calls",
    "rejection_result",
    "settled_record",
]

CONTINUE_PROMPT: Final = "Continue from where you left off."
"""The user text 2.1.332 sends with a resumed deferred call's result (recorded)."""

Settlement = Literal["approved", "rejected"]


@final
@frozen(kw_only=True)
class DeferredCall:
    """A call waiting to be settled: the model's id, the tool and input as they would run,
    and why and by whom it was deferred."""

    tool_use_id: str
    tool_name: str
    arguments: Any
    reason: str | None
    by: str | None
    token: str


def pending_calls(events: Iterable[SessionEvent]) -> tuple[DeferredCall, ...]:
    """The deferred calls of ``events`` that no later result settled, in log order."""
    pending: dict[str, DeferredCall] = {}
    for event in events:
        if isinstance(event, ToolDeferredEvent) and event.tool_use_id is not None:
            pending[event.tool_use_id] = DeferredCall(
                tool_use_id=event.tool_use_id,
                tool_name=event.tool_name,
                arguments=event.arguments,
                reason=event.reason,
                by=event.by,
                token=event.token,
            )
        elif isinstance(event, ToolResultEvent) and event.tool_use_id in pending:
            del pending[event.tool_use_id]
    return tuple(pending.values())


def settled_record(outcome: Settlement, by: str, reason: str | None) -> FrozenDict:
    """What a settled call's ``tool/result`` records in its ``approval`` field."""
    record: dict[str, object] = {"asked": "deferred", "outcome": outcome, "by": by}
    if reason:
        record["reason"] = reason
    return FrozenDict(record)


def rejection_result(call: DeferredCall, by: str, reason: str | None) -> ToolResultEvent:
    """The result of a rejected deferred call: an error the model sees, saying who refused."""
    text = f"The deferred call was rejected by {by}" + (f": {reason}" if reason else ".")
    return ToolResultEvent(
        token=call.token,
        tool_use_id=call.tool_use_id,
        content=text,
        is_error=True,
        code="DENIED",
        info=FrozenDict({"by": by, "reason": reason}),
        dispatched=False,
        approval=settled_record("rejected", by, reason),
    )
