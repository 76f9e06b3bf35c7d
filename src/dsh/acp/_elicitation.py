"""An MCP server's ``elicitation/create`` over ACP: ``elicitation/create`` to the client.

Mounted on a session's host when it has MCP servers, after every other ``mcp/elicitation``
listener (Claude Code's Elicitation hooks answer first). A client that declared
``clientCapabilities.elicitation.form`` (ACP's unstable elicitation, as the SDK 0.12 models
it) is sent the server's message and ``requestedSchema`` for the session; its accept
(with the content), decline or cancel is the server's answer. A client that did not, a
``url`` request, a schema ACP's model refuses or a client that fails to answer: declined,
with a notice saying so. A form the client leaves unanswered for 2.1.332's 6 s fires
Notification ``elicitation_dialog`` (``Claude Code needs your input``, as its terminal's
dialog does), timed as ACP's permission questions are: from the question sent, cleared by
the answer (``dsh.agent.notify_later``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, final

from dsh.agent import calling_agent, dialog_notify_delay, notify_later
from dsh.mcp import ElicitationAnswer, ElicitationRequest

if TYPE_CHECKING:
    from acp.interfaces import Client

    from dsh.context import Next

__all__ = ["AcpElicitation"]

logger = logging.getLogger("dsh.acp")

_NEEDS_INPUT = "Claude Code needs your input"
"""2.1.332's words for a dialog waiting on the person (its ``elicitation_dialog``)."""


@final
class AcpElicitation:
    """Asks the ACP client of one session (see the module docstring)."""

    __slots__ = ("_client", "_form", "_session_id")

    def __init__(self, client: Client, session_id: Callable[[], str], *, form: bool) -> None:
        self._client = client
        self._session_id = session_id
        self._form = form

    async def answer(
        self, caller: Any, request: ElicitationRequest, nxt: Next[ElicitationAnswer]
    ) -> ElicitationAnswer:
        params = request.params
        if not self._form or params.get("mode", "form") != "form":
            why = "this ACP client takes no elicitation form" if not self._form else "url mode"
            return self._declined(caller, request, why)
        from acp import RequestError
        from acp.schema import (
            AcceptElicitationResponse,
            CancelElicitationResponse,
            ElicitationFormSessionMode,
        )
        from pydantic import ValidationError

        schema = params.get("requestedSchema") or {"type": "object", "properties": {}}
        agent = calling_agent(caller)
        answered = (
            notify_later(agent, _NEEDS_INPUT, "elicitation_dialog", dialog_notify_delay())
            if agent is not None
            else lambda: None
        )
        try:
            mode = ElicitationFormSessionMode.model_validate(
                {"sessionId": self._session_id(), "requestedSchema": schema}
            )
            response = await self._client.create_elicitation(
                message=str(params.get("message", "")), mode=mode
            )
        except ValidationError as exc:
            return self._declined(
                caller, request, f"ACP cannot carry its form ({exc.errors()[0]['msg']})"
            )
        except (RequestError, ConnectionError, OSError, ValueError) as exc:
            logger.warning("elicitation/create failed: %s", exc)
            return self._declined(caller, request, f"the client could not be asked: {exc}")
        finally:
            answered()
        if isinstance(response, AcceptElicitationResponse):
            return ElicitationAnswer.accept(response.content or {})
        if isinstance(response, CancelElicitationResponse):
            return ElicitationAnswer.cancel()
        return ElicitationAnswer.decline()

    def _declined(self, caller: Any, request: ElicitationRequest, why: str) -> ElicitationAnswer:
        agent = calling_agent(caller)
        if agent is not None:
            agent.notice(
                f"MCP server {request.server!r} asked for input; declined: {why}",
                source="mcp",
                level="warning",
            )
        return ElicitationAnswer.decline()
