"""The seams that decide a step's model call: what is sent, and what of the reply counts.

``agent/model-request-policy`` is a waterfall over the request a step is about
to send: send it as it is, send another (its messages or tools rewritten: a
context prune), or answer it without the model (the listener's reply is the
step's). ``agent/model-reply`` is a waterfall over the model's reply before it
is logged and shown: keep it, rewrite it, or block it (the turn ends
``stopped``, the reason a notice). Beside ``agent/model-request`` and
``agent/model-response``, which observe every call and decide nothing.

The log says what really happened: ``model/substituted`` records the request
really sent when a policy rewrote it, that a policy answered instead of the
model, and what the model really said when a policy rewrote or blocked its
reply (the ``assistant/message`` that follows is what the history keeps).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal, final

from dsh._frozen import frozen
from dsh.agent._turn import STOPPED, EndTurn
from dsh.base import freeze_json
from dsh.base._union import ClosedUnion
from dsh.context import WaterfallChannel
from dsh.messages import AssistantMessage
from dsh.models import ModelRequest
from dsh.models._types import request_to_json
from dsh.session import SessionEvent, register_event_type

if TYPE_CHECKING:
    from dsh.agent._agent import Agent
    from dsh.agent._core import AgentCore

__all__ = [
    "MODEL_REPLY",
    "MODEL_REQUEST_POLICY",
    "ModelSubstitutedEvent",
    "ReplyBlock",
    "ReplyDecision",
    "ReplyKeep",
    "ReplyRewrite",
    "RequestAnswer",
    "RequestDecision",
    "RequestRewrite",
    "RequestSend",
    "decide_reply",
    "decide_request",
]

_MAX_LOGGED_CHARS: Final = 200_000
"""What a ``model/substituted`` event keeps of a request or reply (JSON characters)."""


class RequestDecision(ClosedUnion):
    """``agent/model-request-policy``'s answer: send, send another request, or answer."""

    __slots__ = ()
    kind: ClassVar[Literal["send", "rewrite", "answer"]]

    @staticmethod
    def send() -> RequestSend:
        return RequestSend()

    @staticmethod
    def rewrite(request: ModelRequest) -> RequestRewrite:
        """Send ``request`` instead (its messages, tools or system prompt changed)."""
        return RequestRewrite(request)

    @staticmethod
    def answer(reply: AssistantMessage) -> RequestAnswer:
        """Do not call the model: ``reply`` is the step's reply."""
        return RequestAnswer(reply)


@final
@frozen
class RequestSend(RequestDecision):
    """The request goes to the model as it is."""

    kind: ClassVar[Literal["send"]] = "send"


@final
@frozen
class RequestRewrite(RequestDecision):
    """``request`` goes to the model instead."""

    kind: ClassVar[Literal["rewrite"]] = "rewrite"
    request: ModelRequest

    def __post_init__(self) -> None:
        if not isinstance(self.request, ModelRequest):
            raise TypeError(f"RequestDecision.rewrite: not a ModelRequest: {self.request!r}")


@final
@frozen
class RequestAnswer(RequestDecision):
    """No model call: ``reply`` is the step's reply."""

    kind: ClassVar[Literal["answer"]] = "answer"
    reply: AssistantMessage

    def __post_init__(self) -> None:
        if not isinstance(self.reply, AssistantMessage):
            raise TypeError(f"RequestDecision.answer: not an AssistantMessage: {self.reply!r}")


class ReplyDecision(ClosedUnion):
    """``agent/model-reply``'s answer: keep the reply, rewrite it, or block it."""

    __slots__ = ()
    kind: ClassVar[Literal["keep", "rewrite", "block"]]

    @staticmethod
    def keep() -> ReplyKeep:
        return ReplyKeep()

    @staticmethod
    def rewrite(reply: AssistantMessage) -> ReplyRewrite:
        """``reply`` is logged, shown and acted on instead of the model's."""
        return ReplyRewrite(reply)

    @staticmethod
    def block(reason: str) -> ReplyBlock:
        """Nothing of the reply is kept; the turn ends ``stopped`` with ``reason`` a notice."""
        return ReplyBlock(reason)


@final
@frozen
class ReplyKeep(ReplyDecision):
    """The model's reply stands."""

    kind: ClassVar[Literal["keep"]] = "keep"


@final
@frozen
class ReplyRewrite(ReplyDecision):
    """``reply`` stands instead of the model's."""

    kind: ClassVar[Literal["rewrite"]] = "rewrite"
    reply: AssistantMessage

    def __post_init__(self) -> None:
        if not isinstance(self.reply, AssistantMessage):
            raise TypeError(f"ReplyDecision.rewrite: not an AssistantMessage: {self.reply!r}")


@final
@frozen
class ReplyBlock(ReplyDecision):
    """The reply is dropped and the turn ends; ``reason`` is shown."""

    kind: ClassVar[Literal["block"]] = "block"
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.reason, str) or not self.reason:
            raise ValueError("ReplyDecision.block: the reason must be a non-empty string")


def _send(agent: Agent, request: ModelRequest) -> RequestDecision:
    return RequestDecision.send()


def _keep(agent: Agent, reply: AssistantMessage) -> ReplyDecision:
    return ReplyDecision.keep()


MODEL_REQUEST_POLICY: WaterfallChannel[RequestDecision, Agent, ModelRequest] = WaterfallChannel(
    "agent/model-request-policy", default=_send, returns=RequestDecision
)
"""Before a step's model call (after ``agent/model-request``'s context is flushed): send the
request, send another, or answer it without the model."""

MODEL_REPLY: WaterfallChannel[ReplyDecision, Agent, AssistantMessage] = WaterfallChannel(
    "agent/model-reply", default=_keep, returns=ReplyDecision
)
"""A step's reply, before it is logged and shown: keep, rewrite, or block it."""


@final
@register_event_type
@frozen(kw_only=True)
class ModelSubstitutedEvent(SessionEvent):
    """A policy changed a model call: ``what`` (``request``: ``detail`` is the request really
    sent; ``answer``: no model call, ``detail`` the reply given; ``reply``: ``detail`` is what
    the model really said, rewritten; ``blocked``: what it said, dropped, with ``reason``)."""

    type: ClassVar[str] = "model/substituted"
    what: Literal["request", "answer", "reply", "blocked"]
    detail: Any = None
    reason: str | None = None


def _bounded(value: Any) -> Any:
    text = json.dumps(value, default=str, ensure_ascii=False)
    if len(text) <= _MAX_LOGGED_CHARS:
        return freeze_json(json.loads(text))
    return {"truncated": True, "json": text[:_MAX_LOGGED_CHARS]}


def _said(reply: AssistantMessage) -> dict[str, Any]:
    calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls]
    return {"text": reply.text, "tool_calls": calls}


async def decide_request(core: AgentCore, request: ModelRequest) -> ModelRequest | AssistantMessage:
    """The request to send after ``agent/model-request-policy``, or the reply that answers it."""
    ctx, agent = core.ctx, core.agent
    if not ctx.listeners(MODEL_REQUEST_POLICY):
        return request
    decision = await core.guarded(
        MODEL_REQUEST_POLICY, ctx.waterfall(MODEL_REQUEST_POLICY, agent, request)
    )
    if isinstance(decision, RequestRewrite):
        sent = _bounded(request_to_json(decision.request))
        core.append(ModelSubstitutedEvent(what="request", detail=sent), durable=False)
        return decision.request
    if isinstance(decision, RequestAnswer):
        given = _bounded(_said(decision.reply))
        core.append(ModelSubstitutedEvent(what="answer", detail=given), durable=False)
        return decision.reply
    return request


async def decide_reply(core: AgentCore, reply: AssistantMessage) -> AssistantMessage:
    """The reply after ``agent/model-reply``; a block ends the turn ``stopped``."""
    ctx, agent = core.ctx, core.agent
    if not ctx.listeners(MODEL_REPLY):
        return reply
    decision = await core.guarded(MODEL_REPLY, ctx.waterfall(MODEL_REPLY, agent, reply))
    if isinstance(decision, ReplyRewrite):
        said = _bounded(_said(reply))
        core.append(ModelSubstitutedEvent(what="reply", detail=said), durable=False)
        return decision.reply
    if isinstance(decision, ReplyBlock):
        said = _bounded(_said(reply))
        core.append(ModelSubstitutedEvent(what="blocked", detail=said, reason=decision.reason))
        agent.notice(f"the model's reply was blocked: {decision.reason}", source="model-reply")
        raise EndTurn(STOPPED)
    return reply
