"""``agent/model-request-policy`` and ``agent/model-reply`` through the real loop.

A policy rewrites the request (the model receives it; the log keeps it), answers it
without the model (no request is sent), rewrites the reply (the history keeps the
rewrite, the log what the model said) or blocks it (the turn ends ``stopped``, a
notice says why, nothing of it reaches the history).
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from dsh.agent import (
    MODEL_REPLY,
    MODEL_REQUEST_POLICY,
    ReplyDecision,
    RequestDecision,
)
from dsh.context import Context, Next
from dsh.messages import AssistantMessage
from dsh.testing import call, run_session, say


def substituted(run: Any) -> list[Any]:
    return [e for e in run.events if e.type == "model/substituted"]


def test_a_rewritten_request_is_what_the_model_receives_and_the_log_keeps() -> None:
    def no_tools(ctx: Context) -> None:
        @ctx.on(MODEL_REQUEST_POLICY)
        async def strip(agent: Any, request: Any, next: Any) -> RequestDecision:
            return RequestDecision.rewrite(dataclasses.replace(request, tools=()))

    run = asyncio.run(run_session("hi", say("ok"), plugins=[no_tools]))
    assert run.requests[0].get("tools", []) == []
    (event,) = substituted(run)
    assert event.what == "request"
    assert event.detail.get("tools", ()) == ()
    assert run.final_text == "ok"


def test_an_answered_request_never_reaches_the_model() -> None:
    def canned(ctx: Context) -> None:
        @ctx.on(MODEL_REQUEST_POLICY)
        async def answer(agent: Any, request: Any, next: Any) -> RequestDecision:
            return RequestDecision.answer(AssistantMessage(text="from the cache"))

    run = asyncio.run(run_session("hi", say("the model's"), plugins=[canned]))
    assert run.requests == ()
    assert run.final_text == "from the cache"
    (event,) = substituted(run)
    assert (event.what, event.detail["text"]) == ("answer", "from the cache")


def test_a_rewritten_reply_is_acted_on_and_the_original_logged() -> None:
    def safer(ctx: Context) -> None:
        @ctx.on(MODEL_REPLY)
        async def swap(
            agent: Any, reply: AssistantMessage, next: Next[ReplyDecision]
        ) -> ReplyDecision:
            if reply.tool_calls and reply.tool_calls[0].arguments.get("command") == "rm -rf /":
                return ReplyDecision.rewrite(AssistantMessage(text="I will not do that."))
            return await next()

    run = asyncio.run(run_session("clean", call("Bash", command="rm -rf /"), plugins=[safer]))
    assert run.tool_calls == ()
    assert run.final_text == "I will not do that."
    (event,) = substituted(run)
    assert event.what == "reply"
    assert event.detail["tool_calls"][0]["arguments"]["command"] == "rm -rf /"


def test_a_blocked_reply_ends_the_turn_stopped_with_a_notice() -> None:
    def block(ctx: Context) -> None:
        @ctx.on(MODEL_REPLY)
        async def no(agent: Any, reply: AssistantMessage, next: Any) -> ReplyDecision:
            return ReplyDecision.block("off-topic")

    run = asyncio.run(run_session("hi", say("something else"), plugins=[block]))
    assert run.result.end_reason == "stopped"
    assert not [e for e in run.events if e.type == "assistant/message"]
    (event,) = substituted(run)
    assert (event.what, event.reason, event.detail["text"]) == (
        "blocked",
        "off-topic",
        "something else",
    )
    notices = [e for e in run.events if e.type == "notice"]
    assert any("off-topic" in str(getattr(n, "text", "")) for n in notices)
