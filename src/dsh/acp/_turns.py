"""How an ACP session's turns end: ACP's stop reason for each way, the ready notification
turns run as one, and deferred calls settled by asking the client.

A deferred call (a PreToolUse hook's ``defer``, waiting in the log) is put to the
client as ``session/request_permission`` with two options, *Run it* and *Reject*; the
answer settles it (``Agent.settle_deferred``) and its turn runs on. A cancelled or
failed request leaves it pending, as 2.1.332 leaves it for the next ``--resume``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from acp import RequestError
from acp.schema import AllowedOutcome, PermissionOption, StopReason

from dsh.acp._approval import PermissionAsk
from dsh.agent import Agent, Settlement, TurnResult, run_ready_notifications
from dsh.approval import ApprovalRequest
from dsh.session import TurnEndReason

__all__ = ["notification_turns", "settle_deferred", "stop_reason_for"]

logger = logging.getLogger("dsh.acp")

_STOP_REASONS: dict[TurnEndReason, StopReason] = {
    TurnEndReason.completed: "end_turn",
    TurnEndReason.stopped: "end_turn",  # a hook ended the turn; its reason was a notice
    TurnEndReason.rejected: "cancelled",
    TurnEndReason.aborted: "cancelled",
    TurnEndReason.max_steps: "max_turn_requests",
    # The call the client declined to settle (or could not be asked about) waits in the log.
    TurnEndReason.deferred: "end_turn",
}

_DEFERRED_OPTIONS: tuple[PermissionOption, ...] = (
    PermissionOption(option_id="run", name="Run it", kind="allow_once"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
)


def stop_reason_for(result: TurnResult, *, refused: bool) -> StopReason:
    """ACP's stop reason for a turn's end; a model failure other than a refusal has none
    (the prompt is answered with an error) and raises ``RequestError``."""
    if result.end_reason == TurnEndReason.error:
        if refused:
            return "refusal"
        raise RequestError(-32603, f"the turn failed: {result.error}", {"error": result.error})
    return _STOP_REASONS.get(result.end_reason, "end_turn")


async def notification_turns(agent: Agent) -> TurnResult:
    """The ready notification turns (at least one is ready), the last one's result."""
    last = await run_ready_notifications(agent)
    return last if last is not None else TurnResult(end_reason=TurnEndReason.completed)


async def settle_deferred(
    agent: Agent,
    ask: PermissionAsk,
    run: Callable[[Awaitable[TurnResult]], Awaitable[TurnResult]],
) -> TurnResult | None:
    """Each deferred call of ``agent`` put to the client through ``ask`` and its turn run
    on through ``run``; the last turn's result (``None`` when none ran)."""
    result: TurnResult | None = None
    while agent.pending_calls:
        call = agent.pending_calls[0]
        why = f"deferred by {call.by}" if call.by else "deferred"
        req = ApprovalRequest(
            call.tool_name, call.arguments, why, agent.session_id, call.tool_use_id
        )
        try:
            response = await ask(req, list(_DEFERRED_OPTIONS))
        except (RequestError, ConnectionError, OSError) as exc:
            logger.warning("session/request_permission failed: %s", exc)
            return result
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return result
        approved = outcome.option_id == "run"
        reason = None if approved else "the user rejected it in the editor"
        settlement: Settlement = "approved" if approved else "rejected"
        work = agent.settle_deferred(call.tool_use_id, settlement, by="acp", reason=reason)
        result = await run(work)  # deferred again: asked again, by the loop
    return result
