"""The model-call policies' listeners: ``agent/model-request-policy`` and ``agent/model-reply``.

A listener takes the agent, the request (or reply) and ``next``, and returns the seam's
decision; the wrong subject or the wrong decision is refused.
"""

from __future__ import annotations

from dsh.agent import (
    MODEL_REPLY,
    MODEL_REQUEST_POLICY,
    Agent,
    ReplyDecision,
    RequestDecision,
)
from dsh.context import Context, Next
from dsh.messages import AssistantMessage
from dsh.models import ModelRequest

ctx = Context()


async def request_ok(
    agent: Agent, request: ModelRequest, next: Next[RequestDecision]
) -> RequestDecision:
    return RequestDecision.rewrite(request) if request.tools else await next()


async def reply_ok(
    agent: Agent, reply: AssistantMessage, next: Next[ReplyDecision]
) -> ReplyDecision:
    return ReplyDecision.block("no") if not reply.text else await next()


ctx.on(MODEL_REQUEST_POLICY, request_ok)
ctx.on(MODEL_REPLY, reply_ok)


async def request_returns_a_reply_decision(
    agent: Agent, request: ModelRequest, next: Next[ReplyDecision]
) -> ReplyDecision:
    return await next()


async def reply_takes_a_request(
    agent: Agent, reply: ModelRequest, next: Next[ReplyDecision]
) -> ReplyDecision:
    return await next()


ctx.on(MODEL_REQUEST_POLICY, request_returns_a_reply_decision)  # type: ignore[misc]
ctx.on(MODEL_REPLY, reply_takes_a_request)  # type: ignore[misc]
RequestDecision.answer("text")  # type: ignore[arg-type]
ReplyDecision.rewrite("text")  # type: ignore[arg-type]
