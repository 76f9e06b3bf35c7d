"""Claude Code's MCP events on ``mcp/elicitation``: ``Elicitation`` hooks answer a server.

The payload is 2.1.332's (``mcp-elicitation``): the common keys without
``permission_mode`` and ``effort``, then ``mcp_server_name``, ``message``, ``mode`` and
``requested_schema`` as the server sent them (matched on ``mcp_server_name``). A hook's
``hookSpecificOutput.action`` (``accept``, ``decline``, ``cancel``) with ``content`` is
what the server gets; a hook that blocks (exit 2, ``decision: "block"``) declines. No hook
answering: the chain goes on (headless, it ends declined). dsh fires no ``ElicitationResult``
when a hook answered (as recorded) and, having no form to show, none otherwise.
"""

from __future__ import annotations

from typing import Any

from dsh.agent import Agent, calling_agent
from dsh.context import Next
from dsh.hooks.claude.payloads import ElicitationHookInput
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.mcp import ElicitationAnswer, ElicitationRequest

__all__ = ["McpEvents"]

_ACTIONS = ("accept", "decline", "cancel")


def _answer(json: Any) -> ElicitationAnswer | None:
    """The answer a hook's JSON gives, validated here (``None``: it gave none)."""
    specific = json.get("hookSpecificOutput") if isinstance(json, dict) else None
    if not isinstance(specific, dict) or specific.get("action") not in _ACTIONS:
        return None
    content = specific.get("content")
    if specific["action"] == "accept":
        return ElicitationAnswer.accept(content if isinstance(content, dict) else {})
    return ElicitationAnswer(specific["action"])


class McpEvents(Handlers):
    """``Elicitation``."""

    async def _elicitation(
        self, caller: Any, request: ElicitationRequest, nxt: Next[ElicitationAnswer]
    ) -> ElicitationAnswer:
        agent = calling_agent(caller)
        hooks = self.catalog.matching("Elicitation", request.server) if agent else ()
        if agent is None or not hooks:
            return await nxt()
        payload = self._payload(agent, request)
        merged = await self._fire(agent, "Elicitation", hooks, payload)
        self._common_effects(agent, "Elicitation", merged)
        for _decl, answer in merged.answers:
            if answer.blocks:
                return ElicitationAnswer.decline()
        chosen = None
        for _decl, answer in merged.answers:
            chosen = _answer(answer.json) or chosen
        return chosen if chosen is not None else await nxt()

    def _payload(self, agent: Agent, request: ElicitationRequest) -> ElicitationHookInput:
        payload: ElicitationHookInput = self._base(
            agent, "Elicitation", permission=False, effort=False
        )
        params = request.params
        payload["mcp_server_name"] = request.server
        payload["message"] = str(params.get("message", ""))
        payload["mode"] = str(params.get("mode", "form"))
        schema = params.get("requestedSchema")
        if schema is not None:
            payload["requested_schema"] = schema
        return payload
