"""Notification: something waits on the person, at the terminal or in the ACP client.

Two of 2.1.332's ``notification_type``s have a place in dsh: ``permission_prompt`` (a tool
call's permission question is put to the person: ``Claude needs your permission to use
<Tool>``, 2.1.332's words) and ``idle_prompt`` (the terminal has waited for input a while:
``Claude is waiting for your input``; the front end says so on ``agent/notification``).
Headless, nobody is asked and nothing fires, as 2.1.332 fires none in ``-p``
(``notify-permission`` in tests/fixtures/claude_events.json). The payload is the common
fields (no ``permission_mode``), ``message`` and ``notification_type``; the matcher is the
type; exit codes and decisions do nothing, ``systemMessage`` and ``continue`` are discarded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.agent import NOTIFICATION, Agent, calling_agent
from dsh.approval import ApprovalDecision, ApprovalRequest
from dsh.context import Context, Next
from dsh.hook_protocol._sessions import root_session
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.tools import APPROVAL_REQUEST, ToolCall

if TYPE_CHECKING:
    from dsh.hooks.claude.payloads import NotificationHookInput

__all__ = ["NotificationEvents"]


class NotificationEvents(Handlers):
    """The Notification listeners (mounted inner to PermissionRequest's)."""

    def _mount_notifications(self, ctx: Context) -> None:
        if not self.declared("Notification"):
            return
        ctx.on(NOTIFICATION, self._notify)
        if self.attended:  # headless, no question is ever put to a person
            ctx.on(APPROVAL_REQUEST, self._permission_prompt)

    async def _permission_prompt(
        self, call: ToolCall, req: ApprovalRequest, nxt: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        agent = calling_agent(call.agent)
        if agent is not None:  # in every mode: a hook's `ask` reaches the person even in bypass
            await self._fire_notification(
                agent, f"Claude needs your permission to use {call.name}", "permission_prompt"
            )
        return await nxt()

    async def _notify(self, agent: Agent, message: str, kind: str) -> None:
        await self._fire_notification(agent, message, kind)

    async def _fire_notification(self, agent: Agent, message: str, kind: str) -> None:
        hooks = self._matching(agent, "Notification", kind)
        if not hooks:
            return
        payload: NotificationHookInput = self._base(
            root_session(agent), "Notification", permission=False, agent_fields=False, effort=False
        )
        payload["message"] = message
        payload["notification_type"] = kind
        await self._fire(agent, "Notification", hooks, payload)
