"""Every settled ``ask`` leaves a record: who answered, with what outcome, allowed or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh.approval import (
    APPROVAL,
    ApprovalAnswer,
    ApprovalBroker,
    ApprovalDecision,
    ApprovalRequest,
    ScriptedChannel,
)
from dsh.context import Next
from dsh.session import JsonlSessionStore, ToolResultEvent
from dsh.tools import APPROVAL_REQUEST, PRE_EXECUTE, PreToolDecision, ToolCall
from tests.agent.support import bash, make_harness, of_type, replies, text
from tests.tools.support import Host, echo, serve_approval


def _ask(host: Host, reason: str = "needs a human") -> None:
    @host.ctx.on(PRE_EXECUTE)
    async def ask(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.ask(reason)


def _answer(host: Host, decision: ApprovalDecision) -> None:
    serve_approval(host)  # the waterfall belongs to the approval service

    @host.ctx.on(APPROVAL_REQUEST)
    async def answer(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        return decision


async def test_no_ask_no_record() -> None:
    host = Host()
    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.approval is None


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        (
            ApprovalDecision.allow(reason="trusted"),
            {"outcome": "allowed-once", "by": "approval/request", "reason": "trusted"},
        ),
        (
            ApprovalDecision.allow(always=True),
            {"outcome": "allowed-always", "by": "approval/request"},
        ),
        (
            ApprovalDecision.deny("not here"),
            {"outcome": "rejected", "by": "approval/request", "reason": "not here"},
        ),
    ],
)
async def test_an_approval_request_listener_is_recorded(
    decision: ApprovalDecision, expected: dict[str, str]
) -> None:
    host = Host()
    _ask(host)
    _answer(host, decision)
    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.approval == {"asked": "needs a human", **expected}
    assert res.dispatched == (decision.kind == "allow")


async def test_the_service_and_then_memory_are_recorded() -> None:
    host = Host()
    _ask(host)
    channel = ScriptedChannel([ApprovalAnswer("allowed-always", "ok for today")])
    host.ctx.provide(APPROVAL, ApprovalBroker(channel))
    agent = host.agent()
    first = await host.registry.execute(echo(), agent=agent)
    second = await host.registry.execute(echo(), agent=agent)
    assert first.approval == {
        "asked": "needs a human",
        "outcome": "allowed-always",
        "by": "service",
        "reason": "ok for today",
    }
    remembered = {"asked": "needs a human", "outcome": "allowed-always", "by": "memory"}
    assert second.approval == remembered
    assert len(channel.requests) == 1


async def test_nobody_to_answer_is_recorded_too() -> None:
    host = Host()
    _ask(host)
    res = await host.registry.execute(echo(), agent=host.agent())
    assert res.result.code == "DENIED"
    assert res.approval == {"asked": "needs a human", "outcome": "no-service"}


async def test_the_record_is_durable_in_the_tool_result_event(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("echo approved")], [text("done")]))

    @h.ctx.on(PRE_EXECUTE)
    async def ask(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.ask("shell access")

    @h.ctx.on(APPROVAL_REQUEST)
    async def allow(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        return ApprovalDecision.allow(reason="policy: echo is fine")

    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    await agent.close("other")
    agent.session.close()
    reloaded = JsonlSessionStore(tmp_path / "sessions").open(agent.session_id)
    (result,) = of_type(reloaded.events, ToolResultEvent)
    assert "approved" in str(result.content)
    assert result.approval == {
        "asked": "shell access",
        "outcome": "allowed-once",
        "by": "approval/request",
        "reason": "policy: echo is fine",
    }
    reloaded.close()
