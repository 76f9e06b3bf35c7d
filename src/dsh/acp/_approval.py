"""The ACP approval channel: an ``ask`` becomes ``session/request_permission``.

``permission_call`` is the call such a request is about, as the editor shows it.

The client is offered allow once, allow always, reject once and reject
always; the option it selects is the approval outcome (allowed-always is
remembered by the ``ApprovalBroker`` around this channel, reject-always by
the channel itself, both for the session). A ``cancelled`` outcome (the client
cancelled the prompt) is ``cancelled``; when the turn is cancelled first, the
tool pipeline stops waiting for the answer and settles the ask as cancelled.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import final

from acp import RequestError, text_block, tool_content
from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    PermissionOptionKind,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from dsh.acp._tools import ToolView
from dsh.approval import ApprovalAnswer, ApprovalRequest, ChannelAnswer, by_call

__all__ = ["PERMISSION_OPTIONS", "AcpApprovalChannel", "PermissionAsk", "permission_call"]

logger = logging.getLogger("dsh.acp")

PERMISSION_OPTIONS: tuple[PermissionOption, ...] = (
    PermissionOption(option_id="allow-once", name="Allow", kind="allow_once"),
    PermissionOption(option_id="allow-always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject-once", name="Reject", kind="reject_once"),
    PermissionOption(option_id="reject-always", name="Always reject", kind="reject_always"),
)
_KIND_BY_ID: dict[str, PermissionOptionKind] = {o.option_id: o.kind for o in PERMISSION_OPTIONS}


PermissionAsk = Callable[
    [ApprovalRequest, list[PermissionOption]], Awaitable[RequestPermissionResponse]
]
"""Sends one ``session/request_permission`` about a request and returns the client's answer."""


@final
class AcpApprovalChannel:
    """Asks the ACP client of one session through ``ask`` (the session announces the call
    first, then asks about it with these options)."""

    __slots__ = ("_ask", "_rejected")

    def __init__(self, ask: PermissionAsk) -> None:
        self._ask = ask
        self._rejected: set[Hashable] = set()

    async def request(self, req: ApprovalRequest, /) -> ChannelAnswer:
        key = by_call(req)
        if key in self._rejected:
            return ApprovalAnswer("rejected", "the user rejected this call always (this session)")
        try:
            response = await self._ask(req, list(PERMISSION_OPTIONS))
        except (RequestError, ConnectionError, OSError) as exc:
            logger.warning("session/request_permission failed: %s", exc)
            return ApprovalAnswer("rejected", f"the client could not be asked: {exc}")
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return ApprovalAnswer("cancelled", "the client cancelled the prompt")
        kind = _KIND_BY_ID.get(outcome.option_id)
        if kind == "allow_once":
            return "allowed-once"
        if kind == "allow_always":
            return "allowed-always"
        if kind == "reject_always":
            self._rejected.add(key)
            return ApprovalAnswer("rejected", "the user rejected this call always (this session)")
        if kind == "reject_once":
            return ApprovalAnswer("rejected", "the user rejected this call")
        return ApprovalAnswer(
            "rejected", f"the client answered with an unknown option {outcome.option_id!r}"
        )


def permission_call(key: str, tool_name: str, view: ToolView, reason: str) -> ToolCallUpdate:
    """The call a ``session/request_permission`` is about, as the editor shows it beside the
    options: the call (its diff, for an edit) and why dsh asks (the asking hook's or rule's
    reason), not only a title and raw input."""
    why = tool_content(text_block(f"{tool_name}: {view.title}\nAsked because: {reason}"))
    return ToolCallUpdate(
        tool_call_id=key,
        title=view.title,  # the call's own title: the update renames its card
        kind=view.kind,
        status="pending",
        content=[*view.diffs, why] if reason else list(view.diffs) or None,
        raw_input=view.raw_input,
        locations=list(view.locations) or None,
        field_meta={"dsh": {"reason": reason}} if reason else None,
    )
