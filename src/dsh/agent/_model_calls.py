"""The per-request observer seams: ``agent/model-request`` and ``agent/model-response``.

Fired around every model call of every agent (a step's call; compaction's
summary call is not one), so an observer (Codex's ``PreModelRequest`` and
``PostModelRequest``) sees each request, its outcome and the tokens it cost.
They only observe: a listener cannot change, block or retry the call.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.context import NotifyChannel
from dsh.session import Usage

if TYPE_CHECKING:
    from dsh.agent._agent import Agent

__all__ = [
    "MODEL_REQUEST",
    "MODEL_RESPONSE",
    "ModelCall",
    "ModelCallEnd",
    "ModelCallStatus",
]

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

    @classmethod
    def new(cls, model: str) -> ModelCall:
        return cls(request_id=str(uuid.uuid4()), model=model)


@final
@frozen(kw_only=True)
class ModelCallEnd:
    """How ``call`` ended: ``usage`` and ``response_id`` (the logged reply's event id) when
    it completed, ``error`` (bounded text) when it failed."""

    call: ModelCall
    status: ModelCallStatus
    usage: Usage | None = None
    response_id: str | None = None
    error: str | None = None

    @classmethod
    def completed(cls, call: ModelCall, usage: Usage | None, response_id: str) -> ModelCallEnd:
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
