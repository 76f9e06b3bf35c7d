"""Claude Code's MCP events on ``mcp/elicitation``: ``Elicitation`` hooks answer a server,
``ElicitationResult`` hooks see (and may change) the answer nobody's hook gave.

The payloads are 2.1.332's (``mcp-elicitation``; ``ElicitationResult`` as its code builds
it): the common keys without ``permission_mode`` and ``effort``, then ``mcp_server_name``,
``message``, ``mode`` and ``requested_schema`` as the server sent them (Elicitation), or
``mcp_server_name``, ``elicitation_id`` (a url-mode request's), ``mode``, ``action`` and
``content`` when there is one (ElicitationResult); both matched on ``mcp_server_name``.
A hook's ``hookSpecificOutput.action`` (``accept``, ``decline``, ``cancel``) with ``content``
is what the server gets, the last hook's answer winning; a hook that blocks (exit 2,
``decision: "block"``) declines. When an Elicitation hook answered, that is the answer and
no ElicitationResult fires (as recorded); otherwise the chain goes on (headless, it ends
declined) and ElicitationResult fires with what it gave, its hooks' answer replacing it
(the given ``content`` kept when a hook names none); then ``agent/notification`` says
``Elicitation response for server "S": <action>`` (``elicitation_response``, the final
action: ``decline`` when a hook blocked), as 2.1.332 notifies headless or not
(tests/fixtures/claude_notification.json).
"""

from __future__ import annotations

from typing import Any

from dsh.agent import NOTIFICATION, Agent, calling_agent
from dsh.base import thaw_json
from dsh.context import Next
from dsh.hooks.claude.payloads import ElicitationHookInput, ElicitationResultHookInput
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


def _result_answer(json: Any, given: ElicitationAnswer) -> ElicitationAnswer | None:
    """An ElicitationResult hook's replacement of ``given`` (``None``: it gave none)."""
    specific = json.get("hookSpecificOutput") if isinstance(json, dict) else None
    if not isinstance(specific, dict) or specific.get("action") not in _ACTIONS:
        return None
    content = specific.get("content")
    if specific["action"] != "accept":
        return ElicitationAnswer(specific["action"])
    return ElicitationAnswer.accept(content if isinstance(content, dict) else given.content or {})


class McpEvents(Handlers):
    """``Elicitation`` and ``ElicitationResult``."""

    async def _elicitation(
        self, caller: Any, request: ElicitationRequest, nxt: Next[ElicitationAnswer]
    ) -> ElicitationAnswer:
        agent = calling_agent(caller)
        if agent is None:
            return await nxt()
        answered = await self._ask_hooks(agent, request)
        if answered is not None:
            return answered
        final = await self._result_hooks(agent, request, await nxt())
        # 2.1.332 then notifies (headless too), on the seam the Notification hooks listen on.
        message = f'Elicitation response for server "{request.server}": {final.action}'
        await agent.ctx.emit(NOTIFICATION, agent, message, "elicitation_response")
        return final

    async def _ask_hooks(
        self, agent: Agent, request: ElicitationRequest
    ) -> ElicitationAnswer | None:
        """The Elicitation hooks' answer (``None``: none answered)."""
        hooks = self._matching(agent, "Elicitation", request.server)
        if not hooks:
            return None
        payload = self._payload(agent, request)
        merged = await self._fire(agent, "Elicitation", hooks, payload)
        self._common_effects(agent, "Elicitation", merged)
        for _decl, answer in merged.answers:
            if answer.blocks:
                return ElicitationAnswer.decline()
        chosen = None
        for _decl, answer in merged.answers:
            chosen = _answer(answer.json) or chosen
        return chosen

    async def _result_hooks(
        self, agent: Agent, request: ElicitationRequest, given: ElicitationAnswer
    ) -> ElicitationAnswer:
        """``given`` as the ElicitationResult hooks leave it."""
        hooks = self._matching(agent, "ElicitationResult", request.server)
        if not hooks:
            return given
        payload = self._result_payload(agent, request, given)
        merged = await self._fire(agent, "ElicitationResult", hooks, payload)
        self._common_effects(agent, "ElicitationResult", merged)
        for _decl, answer in merged.answers:
            if answer.blocks:
                return ElicitationAnswer.decline()
        chosen = given
        for _decl, answer in merged.answers:
            chosen = _result_answer(answer.json, given) or chosen
        return chosen

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

    def _result_payload(
        self, agent: Agent, request: ElicitationRequest, given: ElicitationAnswer
    ) -> ElicitationResultHookInput:
        payload: ElicitationResultHookInput = self._base(
            agent, "ElicitationResult", permission=False, effort=False
        )
        params = request.params
        mode = str(params.get("mode", "form"))
        payload["mcp_server_name"] = request.server
        elicitation_id = params.get("elicitationId")
        if mode == "url" and isinstance(elicitation_id, str):
            payload["elicitation_id"] = elicitation_id
        payload["mode"] = mode
        payload["action"] = given.action
        if given.content is not None:
            payload["content"] = thaw_json(given.content)
        return payload
