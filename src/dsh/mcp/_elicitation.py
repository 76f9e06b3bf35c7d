"""``mcp/elicitation``: a server's ``elicitation/create``, answered by the session's listeners.

A server asks for input in the middle of one of its tool calls; the seam gets the agent
whose call it is (``None`` outside a call) and the request (the server's name and its params
as sent: ``message``, ``mode``, ``requestedSchema``...). A listener answers (a Claude Code
``Elicitation`` hook), or passes it on; the chain ends cancelled, as Claude Code's ``-p``
cancels what nobody answers (``tests/fixtures/mcp_hooks.json``: its ElicitationResult hook
sees ``action: cancel``, the server gets ``cancel``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import FrozenDict
from dsh.context import WaterfallChannel

__all__ = ["ELICITATION", "ElicitAction", "ElicitationAnswer", "ElicitationRequest"]

ElicitAction: TypeAlias = Literal["accept", "decline", "cancel"]


@final
@frozen
class ElicitationRequest:
    """One ``elicitation/create``: the server's name and its params, as sent."""

    server: str
    params: Mapping[str, Any]


@final
@frozen
class ElicitationAnswer:
    """What the server is sent back: the action and, to an accept, the content."""

    action: ElicitAction
    content: Mapping[str, Any] | None = None

    @classmethod
    def decline(cls) -> ElicitationAnswer:
        return cls("decline")

    @classmethod
    def cancel(cls) -> ElicitationAnswer:
        return cls("cancel")

    @classmethod
    def accept(cls, content: Mapping[str, Any]) -> ElicitationAnswer:
        return cls("accept", FrozenDict(content))

    def to_json(self) -> dict[str, Any]:
        if self.content is None:
            return {"action": self.action}
        return {"action": self.action, "content": dict(self.content)}


def _unanswered(agent: Any, request: ElicitationRequest) -> ElicitationAnswer:
    return ElicitationAnswer.cancel()


ELICITATION: WaterfallChannel[ElicitationAnswer, Any, ElicitationRequest] = WaterfallChannel(
    "mcp/elicitation", default=_unanswered, returns=ElicitationAnswer
)
"""A server's elicitation during a call of ``agent`` (or ``None``): answer or pass it on."""
