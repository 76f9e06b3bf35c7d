"""Notification: something waits on the person, at the terminal or in the ACP client.

The front end that puts the question says so on ``agent/notification`` (it knows when a
question is shown and answered): ``permission_prompt`` once a permission question has
waited 6 s unanswered (2.1.332's timers: an ACP client's from the question shown,
``dsh.agent.notify_later``, ``Claude needs your permission to use <Tool>``; the terminal's
from the last key, ``dsh.agent.notify_when_idle``, ``Claude needs your permission``),
``elicitation_dialog`` for an MCP server's form at the terminal left waiting alike
(``Claude Code needs your input``), ``idle_prompt`` once the terminal has waited for input
after a turn (``Claude is waiting for your input``). The bridge itself says
``elicitation_response`` after an elicitation no hook answered (``_mcp_events``).
Headless, nobody is asked and nothing fires, as 2.1.332 fires none in ``-p``
(``notify-permission`` in tests/fixtures/claude_events.json). The payload is the common
fields (no ``permission_mode``), ``message`` and ``notification_type``; the matcher is the
type; exit codes and decisions do nothing, ``systemMessage`` and ``continue`` are discarded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.agent import NOTIFICATION, Agent
from dsh.context import Context
from dsh.hook_protocol._sessions import root_session
from dsh.hooks.claude.runtime._handlers import Handlers

if TYPE_CHECKING:
    from dsh.hooks.claude.payloads import NotificationHookInput

__all__ = ["NotificationEvents"]


class NotificationEvents(Handlers):
    """The Notification listener: what a front end says waits on the person."""

    def _mount_notifications(self, ctx: Context) -> None:
        if not self.declared("Notification"):
            return
        ctx.on(NOTIFICATION, self._notify)

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
