"""Phase 3's ``approval/request`` waterfall: listeners answer before the APPROVAL service."""

from __future__ import annotations

import asyncio

import pytest

from dsh.approval import (
    APPROVAL,
    ApprovalAbstain,
    ApprovalAllow,
    ApprovalBroker,
    ApprovalDecision,
    ApprovalDeny,
    ApprovalRequest,
    ScriptedChannel,
    by_tool,
)
from dsh.base import AbortSignal, FrozenDict
from dsh.context import Next
from dsh.tools import APPROVAL_REQUEST, PRE_EXECUTE, PreToolDecision, ToolCall
from tests.tools.support import Host, echo, serve_approval

Seen = list[tuple[str, ApprovalRequest]]


def asking(host: Host, reason: str = "Echo needs a human") -> None:
    """Ask for every call; the waterfall belongs to the approval service, so one is
    provided (with no channel); a test that wants another provides it after."""
    serve_approval(host)

    @host.ctx.on(PRE_EXECUTE)
    async def ask(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.ask(reason)


def answering(host: Host, decision: ApprovalDecision) -> Seen:
    """A listener that answers ``decision`` and records what it was asked."""
    seen: Seen = []

    @host.ctx.on(APPROVAL_REQUEST)
    async def answer(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        seen.append((call.name, req))
        return decision

    return seen


async def test_an_abstaining_listener_falls_through_to_the_service_and_its_channel() -> None:
    host = Host()
    asking(host, "risky")
    seen = answering(host, ApprovalDecision.abstain())
    channel = ScriptedChannel(["allowed-once"])
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    res = await host.registry.execute(echo("hi"), agent=host.agent())
    assert res.result.content == "hi"
    assert res.dispatched
    expected = ApprovalRequest("Echo", res.call.arguments, "risky", "sess-1", "toolu_echo")
    assert seen == [("Echo", expected)]
    assert channel.requests == [expected]


async def test_an_abstention_still_ends_in_a_denial_when_nobody_can_answer() -> None:
    host = Host()
    asking(host)
    answering(host, ApprovalDecision.abstain())
    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.result.code == "DENIED"
    assert res.result.info["outcome"] == "no-channel"


async def test_allow_runs_the_call_when_the_service_has_no_channel_that_answers() -> None:
    host = Host()
    asking(host)
    seen = answering(host, ApprovalDecision.allow(reason="trusted"))
    res = await host.registry.execute(echo("ran"), agent=host.agent())
    assert (res.result.content, res.result.is_error, res.dispatched) == ("ran", False, True)
    assert len(seen) == 1


async def test_without_a_service_no_listener_is_asked_and_the_call_is_denied() -> None:
    host = Host()
    seen: Seen = []

    @host.ctx.on(PRE_EXECUTE)
    async def ask(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.ask("Echo needs a human")

    @host.ctx.on(APPROVAL_REQUEST)
    async def allow(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        seen.append((call.name, req))
        return ApprovalDecision.allow()

    res = await host.registry.execute(echo("never"), agent=host.agent())
    assert (res.result.code, res.result.info["outcome"], res.dispatched) == (
        "DENIED",
        "no-service",
        False,
    )
    assert seen == []


async def test_allow_skips_the_channel() -> None:
    host = Host()
    asking(host)
    answering(host, ApprovalDecision.allow())
    channel = ScriptedChannel([])  # asking it would fail the call
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    res = await host.registry.execute(echo(), agent=host.agent())
    assert not res.result.is_error
    assert channel.requests == []


async def test_an_agentless_call_is_denied_without_asking_any_listener() -> None:
    host = Host()
    asking(host)
    seen = answering(host, ApprovalDecision.allow())
    res = await host.registry.execute(echo("bare"))
    assert (res.result.code, res.result.info["outcome"], res.dispatched) == (
        "DENIED",
        "no-agent",
        False,
    )
    assert res.approval == {"asked": "Echo needs a human", "outcome": "no-agent"}
    assert seen == []


async def test_always_is_remembered_for_the_session() -> None:
    host = Host()
    asking(host)
    seen = answering(host, ApprovalDecision.allow(always=True))
    channel = ScriptedChannel([])
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    agent = host.agent("s1")
    for _ in range(3):
        res = await host.registry.execute(echo("same"), agent=agent)
        assert not res.result.is_error
    # Remembered: later identical calls ask nobody (neither listener nor channel).
    assert len(seen) == 1
    await host.registry.execute(echo("different"), agent=agent)
    await host.registry.execute(echo("same"), agent=host.agent("s2"))
    assert len(seen) == 3
    assert channel.requests == []


async def test_always_lands_in_the_brokers_memory_with_its_remember_key() -> None:
    host = Host()
    asking(host)
    answering(host, ApprovalDecision.allow(always=True))
    broker = ApprovalBroker(remember=by_tool)
    host.ctx.provide(APPROVAL, broker)
    await host.registry.execute(echo("one"), agent=host.agent("s1"))
    req = ApprovalRequest("Echo", FrozenDict(text="other"), "whatever", "s1")
    assert broker.remembers(req)


async def test_allow_once_is_not_remembered() -> None:
    host = Host()
    asking(host)
    seen = answering(host, ApprovalDecision.allow())
    host.ctx.provide(APPROVAL, ApprovalBroker(ScriptedChannel([])))
    agent = host.agent("s1")
    await host.registry.execute(echo("same"), agent=agent)
    await host.registry.execute(echo("same"), agent=agent)
    assert len(seen) == 2


async def test_a_remembered_channel_answer_skips_the_waterfall() -> None:
    host = Host()
    asking(host)
    channel = ScriptedChannel(["allowed-always"])
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    agent = host.agent("s1")
    await host.registry.execute(echo("same"), agent=agent)
    seen = answering(host, ApprovalDecision.deny("too late"))
    res = await host.registry.execute(echo("same"), agent=agent)
    assert not res.result.is_error
    assert seen == []


async def test_deny_is_a_denial_whose_content_is_the_reason() -> None:
    host = Host()
    asking(host, "confirm the echo")
    answering(host, ApprovalDecision.deny("NOT-THIS-ONE"))
    channel = ScriptedChannel([])
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    res = await host.registry.execute(echo(), agent=host.agent())
    assert (res.result.code, res.result.content, res.dispatched) == (
        "DENIED",
        "NOT-THIS-ONE",
        False,
    )
    assert dict(res.result.info) == {
        "by": "approval",
        "reason": "NOT-THIS-ONE",
        "outcome": "rejected",
        "channel": "approval/request",
        "asked": "confirm the echo",
    }
    assert channel.requests == []


async def test_deny_with_interrupt_asks_the_agent_to_halt_after_the_step() -> None:
    cancels: list[tuple[object, str]] = []

    host = Host()

    class Agent:
        session_id = "s1"
        workspace = host.workspace

        def cancel(self, cause: object, when: str = "now") -> None:
            cancels.append((cause, when))

    asking(host)
    answering(host, ApprovalDecision.deny("STOP", interrupt=True))
    res = await host.registry.execute(echo(), agent=Agent())
    assert res.result.info["interrupt"] is True
    ((cause, when),) = cancels
    assert when == "after_step"
    assert (getattr(cause, "kind", None), getattr(cause, "reason", None)) == ("hook", "STOP")


async def test_listeners_run_as_a_waterfall() -> None:
    host = Host()
    asking(host)
    order: list[str] = []

    @host.ctx.on(APPROVAL_REQUEST)
    async def outer(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        order.append("outer")
        inner = await next()
        return ApprovalDecision.deny(f"outer overrides {inner.kind}")

    @host.ctx.on(APPROVAL_REQUEST)
    async def inner(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        order.append("inner")
        return ApprovalDecision.allow()

    res = await host.registry.execute(echo(), agent=host.agent())
    assert order == ["outer", "inner"]
    assert res.result.content == "outer overrides allow"


async def test_a_raising_listener_is_listener_error_and_the_call_does_not_run() -> None:
    host = Host()
    asking(host)

    @host.ctx.on(APPROVAL_REQUEST)
    async def broken(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        raise RuntimeError("policy store offline")

    channel = ScriptedChannel(["allowed-once"])
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.result.code == "LISTENER_ERROR"
    assert res.result.info["phase"] == "approval"
    assert "broken" in res.result.info["listener"]
    assert "policy store offline" in res.result.text
    assert not res.dispatched
    assert channel.requests == []


async def test_a_listener_returning_the_wrong_type_is_listener_error() -> None:
    host = Host()
    asking(host)

    @host.ctx.on(APPROVAL_REQUEST)
    async def sloppy(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        return "allow"  # type: ignore[return-value]

    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.result.code == "LISTENER_ERROR"
    assert "not a ApprovalDecision" in res.result.text


async def test_no_ask_means_no_approval_request() -> None:
    host = Host()
    seen = answering(host, ApprovalDecision.deny("never asked"))
    res = await host.registry.execute(echo("free"), agent=host.agent())
    assert res.result.content == "free"
    assert seen == []


async def test_an_abort_while_a_listener_waits_is_aborted_before_dispatch() -> None:
    host = Host()
    asking(host)
    asked = asyncio.Event()

    @host.ctx.on(APPROVAL_REQUEST)
    async def slow(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        asked.set()
        await asyncio.sleep(3600)
        return ApprovalDecision.allow()

    signal = AbortSignal()
    task = asyncio.create_task(host.registry.execute(echo(), agent=host.agent(), signal=signal))
    await asked.wait()
    signal.abort("user pressed ^C")
    res = await task
    assert res.result.code == "ABORTED_BEFORE_DISPATCH"
    assert res.result.content == "user pressed ^C"


@pytest.mark.parametrize(
    ("build", "problem"),
    [
        (lambda: ApprovalDecision("maybe"), "named constructors"),  # type: ignore[call-arg]
        (lambda: ApprovalDeny(""), "needs a reason"),
        (lambda: ApprovalDecision.deny(""), "needs a reason"),
        (lambda: ApprovalAbstain("why"), "takes no arguments|positional"),  # type: ignore[call-arg]
        (lambda: ApprovalDeny("x", always=True), "always"),  # type: ignore[call-arg]
        (lambda: ApprovalAllow(interrupt=True), "interrupt"),  # type: ignore[call-arg]
        (lambda: ApprovalAllow(always=1), "must be a bool"),  # type: ignore[arg-type]
        (lambda: ApprovalAllow(False, 3), "must be a str"),  # type: ignore[arg-type]
    ],
)
def test_a_malformed_decision_is_refused_with_its_problem(build: object, problem: str) -> None:
    with pytest.raises((ValueError, TypeError), match=problem):
        build()  # type: ignore[operator]


def test_the_named_constructors() -> None:
    assert ApprovalDecision.abstain() == ApprovalAbstain()
    assert ApprovalDecision.allow(always=True, reason="ok") == ApprovalAllow(True, "ok")
    assert ApprovalDecision.deny("no", interrupt=True) == ApprovalDeny("no", True)
    assert [d.kind for d in (ApprovalAbstain(), ApprovalAllow(), ApprovalDeny("no"))] == [
        "abstain",
        "allow",
        "deny",
    ]


def test_the_union_is_closed() -> None:
    with pytest.raises(TypeError, match="closed union"):

        class Maybe(ApprovalDecision):
            pass
