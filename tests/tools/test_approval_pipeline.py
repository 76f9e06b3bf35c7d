"""Phase 3: an ``ask`` goes to the APPROVAL service; only an allowed outcome runs the tool."""

from __future__ import annotations

import asyncio

import pytest

from dsh.approval import (
    APPROVAL,
    ApprovalAnswer,
    ApprovalBroker,
    ApprovalRequest,
    ChannelAnswer,
    PolicyChannel,
    PolicyRule,
    ScriptedChannel,
)
from dsh.base import AbortSignal
from dsh.context import Next
from dsh.tools import PRE_EXECUTE, PreToolDecision, ToolCall, ToolRequest
from tests.tools.support import Host, echo


def asking(host: Host, reason: str = "Echo needs a human") -> None:
    @host.ctx.on(PRE_EXECUTE)
    async def ask(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.ask(reason)


@pytest.mark.parametrize("outcome", ["allowed-once", "allowed-always"])
async def test_an_allowed_outcome_runs_the_tool(outcome: ChannelAnswer) -> None:
    host = Host()
    asking(host)
    channel = ScriptedChannel([outcome])
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    res = await host.registry.execute(echo("approved"), agent=host.agent())
    assert res.result.content == "approved"
    assert res.dispatched
    assert channel.requests == [
        ApprovalRequest("Echo", res.call.arguments, "Echo needs a human", "sess-1", "toolu_echo")
    ]


@pytest.mark.parametrize(
    ("reply", "outcome", "approval_reason"),
    [
        ("rejected", "rejected", None),
        ("cancelled", "cancelled", None),
        (None, "no-channel", None),
        (ApprovalAnswer("rejected", "the user said no"), "rejected", "the user said no"),
    ],
)
async def test_any_other_outcome_is_a_denial_by_approval(
    reply: ChannelAnswer, outcome: str, approval_reason: str | None
) -> None:
    host = Host()
    asking(host, "risky")
    host.ctx.provide(APPROVAL, ApprovalBroker(ScriptedChannel([reply])))
    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.result.code == "DENIED"
    assert res.result.content == "risky"
    assert res.result.info["by"] == "approval"
    assert res.result.info["outcome"] == outcome
    assert res.result.info.get("approval_reason") == approval_reason
    assert not res.dispatched


async def test_no_approval_service_is_a_denial() -> None:
    host = Host()
    asking(host)
    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.result.code == "DENIED"
    assert res.result.info["outcome"] == "no-service"


async def test_an_agentless_call_is_denied_without_asking() -> None:
    host = Host()
    asking(host)
    channel = ScriptedChannel(["allowed-once"])
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    res = await host.registry.execute(echo())
    assert res.result.code == "DENIED"
    assert res.result.info["outcome"] == "no-agent"
    assert channel.requests == []


async def test_allowed_always_is_remembered_for_the_session() -> None:
    host = Host()
    asking(host)
    channel = ScriptedChannel(["allowed-always", "rejected", "rejected"])
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    agent = host.agent("s1")
    first = await host.registry.execute(echo("same"), agent=agent)
    again = await host.registry.execute(echo("same"), agent=agent)
    assert not first.result.is_error
    assert not again.result.is_error
    assert len(channel.requests) == 1
    other_args = await host.registry.execute(echo("different"), agent=agent)
    assert other_args.result.code == "DENIED"
    other_session = await host.registry.execute(echo("same"), agent=host.agent("s2"))
    assert other_session.result.code == "DENIED"
    assert len(channel.requests) == 3


async def test_a_headless_policy_rejects_an_ask_with_its_reason() -> None:
    host = Host()
    asking(host, "confirm the echo")
    policy = PolicyChannel([PolicyRule.allow("Add")], default="ask")
    host.ctx.provide(APPROVAL, ApprovalBroker(policy))
    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.result.content == "confirm the echo"
    assert "nobody can answer" in res.result.info["approval_reason"]


async def test_a_failing_approval_service_is_listener_error() -> None:
    host = Host()
    asking(host)
    host.ctx.provide(APPROVAL, ApprovalBroker(ScriptedChannel([])))
    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.result.code == "LISTENER_ERROR"
    assert res.result.info["phase"] == "approval"
    assert "no outcome left" in res.result.text


async def test_an_invalid_reply_is_listener_error() -> None:
    class Sloppy:
        async def request(self, req: ApprovalRequest, /) -> ChannelAnswer:
            return "yes"  # type: ignore[return-value]

    host = Host()
    asking(host)
    host.ctx.provide(APPROVAL, Sloppy())
    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.result.code == "LISTENER_ERROR"
    assert "'yes' is not one of" in res.result.text


async def test_an_abort_while_waiting_for_approval_is_aborted_before_dispatch() -> None:
    asked = asyncio.Event()

    class Slow:
        async def request(self, req: ApprovalRequest, /) -> ChannelAnswer:
            asked.set()
            await asyncio.sleep(3600)
            return "allowed-once"

    host = Host()
    asking(host)
    host.ctx.provide(APPROVAL, Slow())
    signal = AbortSignal()
    task = asyncio.create_task(host.registry.execute(echo(), agent=host.agent(), signal=signal))
    await asked.wait()
    signal.abort("gave up waiting")
    res = await task
    assert res.result.code == "ABORTED_BEFORE_DISPATCH"
    assert res.result.content == "gave up waiting"
    assert host.ledger.invocations == []


async def test_the_approval_request_carries_the_sealed_arguments() -> None:
    host = Host()
    asking(host)
    channel = ScriptedChannel(["allowed-once"])
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    res = await host.registry.execute(
        ToolRequest("Echo", {"text": "t", "meta": {"k": [1]}}), agent=host.agent()
    )
    assert channel.requests[0].arguments is res.call.arguments
