"""The per-request observer seams: ``agent/model-request`` and ``agent/model-response``.

Fired around every model call of every agent (a step's call, ``kind``
``sampling``; a compaction's summary call, ``compaction``), so an observer
(Codex's ``PreModelRequest`` and ``PostModelRequest``) sees each request, its
outcome and the tokens it cost. They only observe: a listener cannot change,
block or retry the call. ``observed_call`` is the one place that fires them.

``model_request``: the request a step sends for some messages (the tools offered and the system
prompt), which a forked compaction (``SummaryAsk.forked``) sends again.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.agent._turn import ERROR, EndTurn, error_text
from dsh.base import AbortSignal
from dsh.context import NotifyChannel
from dsh.messages import AssistantMessage, ModelMessage, Usage
from dsh.models import ModelRequest, ToolSpec
from dsh.tools import offered_tools
from dsh.tools._deferred import deferred_announcement

if TYPE_CHECKING:
    from dsh.agent._agent import Agent
    from dsh.agent._core import AgentCore

__all__ = [
    "MODEL_REQUEST",
    "MODEL_RESPONSE",
    "ModelCall",
    "ModelCallEnd",
    "ModelCallKind",
    "ModelCallStatus",
    "model_request",
    "observed_call",
]

ModelCallKind: TypeAlias = Literal["sampling", "compaction"]
"""A step's request, or a compaction's summary request."""

ModelCallStatus: TypeAlias = Literal["completed", "failed", "aborted"]
"""How a model call ended: a reply, an error (after the client's retries), or the turn's
cancellation."""

MAX_ERROR_CHARS = 2000
"""An error's text is cut to this many characters (it comes from outside)."""


@final
@frozen(kw_only=True)
class ModelCall:
    """One model request: its id (fresh per request), attempt number and model name."""

    request_id: str
    model: str
    attempt: int = 1
    kind: ModelCallKind = "sampling"

    @classmethod
    def new(cls, model: str, *, kind: ModelCallKind = "sampling", attempt: int = 1) -> ModelCall:
        return cls(request_id=str(uuid.uuid4()), model=model, kind=kind, attempt=attempt)


@final
@frozen(kw_only=True)
class ModelCallEnd:
    """How ``call`` ended: ``usage`` and ``response_id`` (the logged reply's event id; ``None``
    for a compaction's, which logs no reply) when it completed, ``error`` (bounded text) when
    it failed."""

    call: ModelCall
    status: ModelCallStatus
    usage: Usage | None = None
    response_id: str | None = None
    error: str | None = None

    @classmethod
    def completed(
        cls, call: ModelCall, usage: Usage | None, response_id: str | None
    ) -> ModelCallEnd:
        return cls(call=call, status="completed", usage=usage, response_id=response_id)

    @classmethod
    def failed(cls, call: ModelCall, error: str) -> ModelCallEnd:
        return cls(call=call, status="failed", error=error[:MAX_ERROR_CHARS])

    @classmethod
    def aborted(cls, call: ModelCall) -> ModelCallEnd:
        return cls(call=call, status="aborted")


MODEL_REQUEST: NotifyChannel[Agent, ModelCall] = NotifyChannel("agent/model-request")
"""Before each model call of a step, after its context is flushed; observe only."""

MODEL_RESPONSE: NotifyChannel[Agent, ModelCallEnd] = NotifyChannel("agent/model-response")
"""After each model call: completed (after its reply is logged), failed, or aborted."""


def model_request(core: AgentCore, messages: tuple[ModelMessage, ...]) -> ModelRequest:
    """``messages``, the tools they offer (a deferred one once a ToolSearch result loaded it)
    and the system prompt, naming the deferred tools when there are any."""
    definitions = core.agent.registry.definitions()
    system = core.agent.system
    announcement = deferred_announcement(definitions)
    if announcement is not None:
        system = f"{system}\n\n{announcement}" if system else announcement
    specs = tuple(
        ToolSpec(
            name=d.name, description=d.description, input_schema=d.input_schema, deferred=d.deferred
        )
        for d in offered_tools(definitions, messages)
    )
    return ModelRequest(messages=messages, tools=specs, system=system)


async def observed_call(
    core: AgentCore,
    request: ModelRequest,
    signal: AbortSignal,
    *,
    kind: ModelCallKind = "sampling",
    attempt: int = 1,
    logged: Callable[[AssistantMessage], str | None] = lambda reply: None,
    reviewed: Callable[[AssistantMessage], Awaitable[AssistantMessage]] | None = None,
) -> AssistantMessage:
    """``core.call_model`` between ``agent/model-request`` and ``agent/model-response``
    (when anything listens). ``logged`` logs a completed reply and gives its event id (the
    ``response_id``) before the response is announced; ``reviewed`` (``agent/model-reply``)
    may change or refuse the reply first."""
    ctx, agent = core.ctx, core.agent
    if not ctx.listeners(MODEL_REQUEST) and not ctx.listeners(MODEL_RESPONSE):
        reply = await core.call_model(request, signal)
        if reviewed is not None:
            reply = await reviewed(reply)
        logged(reply)
        return reply
    call = ModelCall.new(agent.model.name, kind=kind, attempt=attempt)
    await core.guarded(MODEL_REQUEST, ctx.emit(MODEL_REQUEST, agent, call))
    try:
        reply = await core.call_model(request, signal)
    except EndTurn as end:
        if end.reason == ERROR:
            failed = ModelCallEnd.failed(call, error_text(end.error))
            await core.guarded(MODEL_RESPONSE, ctx.emit(MODEL_RESPONSE, agent, failed))
        else:  # not raced against the aborted signal; the listeners' own timeouts bound them
            await ctx.emit(MODEL_RESPONSE, agent, ModelCallEnd.aborted(call))
        raise
    if reviewed is not None:
        reply = await reviewed(reply)
    done = ModelCallEnd.completed(call, reply.usage, logged(reply))
    await core.guarded(MODEL_RESPONSE, ctx.emit(MODEL_RESPONSE, agent, done))
    return reply
