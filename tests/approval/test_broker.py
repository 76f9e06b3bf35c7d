"""ApprovalBroker: routing to a channel and remembering allowed-always per session and pattern."""

from __future__ import annotations

from dsh.approval import (
    APPROVAL,
    ApprovalAnswer,
    ApprovalBroker,
    ApprovalRequest,
    ApprovalService,
    ScriptedChannel,
    by_tool,
)
from dsh.approval._types import answer_outcome
from dsh.base import FrozenDict, freeze_json
from dsh.context import Context


def request(tool: str = "Bash", session: str | None = "s1", **arguments: object) -> ApprovalRequest:
    args = freeze_json(arguments or {"command": "ls"})
    return ApprovalRequest(tool, args, "policy asked", session)


async def test_without_a_channel_nobody_can_answer() -> None:
    assert await ApprovalBroker().request(request()) is None


async def test_the_channel_answers_each_request() -> None:
    channel = ScriptedChannel(["allowed-once", "rejected", "cancelled", None])
    broker = ApprovalBroker(channel)
    answers = [await broker.request(request()) for _ in range(4)]
    assert answers == ["allowed-once", "rejected", "cancelled", None]
    assert len(channel.requests) == 4


async def test_allowed_always_is_remembered_per_session_and_exact_call() -> None:
    channel = ScriptedChannel(["allowed-always", "rejected", "rejected"])
    broker = ApprovalBroker(channel)
    assert await broker.request(request(command="ls")) == "allowed-always"
    remembered = await broker.request(request(command="ls"))
    assert answer_outcome(remembered)[0] == "allowed-always"
    assert broker.remembers(request(command="ls"))
    assert await broker.request(request(command="rm -rf /")) == "rejected"
    assert await broker.request(request(session="s2", command="ls")) == "rejected"
    assert len(channel.requests) == 3


async def test_by_tool_remembers_every_call_of_the_tool() -> None:
    broker = ApprovalBroker(
        ScriptedChannel([ApprovalAnswer("allowed-always", "ok")]), remember=by_tool
    )
    await broker.request(request(command="ls"))
    again = await broker.request(request(command="anything else"))
    assert answer_outcome(again)[0] == "allowed-always"
    assert not broker.remembers(request(tool="Write"))


async def test_forget_drops_a_sessions_memory() -> None:
    broker = ApprovalBroker(ScriptedChannel(["allowed-always", "rejected"]))
    await broker.request(request())
    broker.forget("s1")
    assert await broker.request(request()) == "rejected"


async def test_argument_order_does_not_change_the_remembered_pattern() -> None:
    broker = ApprovalBroker(ScriptedChannel(["allowed-always"]))
    await broker.request(ApprovalRequest("T", FrozenDict(a=1, b=2), "r", "s"))
    assert broker.remembers(ApprovalRequest("T", FrozenDict(b=2, a=1), "r", "s"))


def test_the_broker_is_an_approval_service() -> None:
    ctx = Context()
    service: ApprovalService = ApprovalBroker()
    ctx.provide(APPROVAL, service)
    assert ctx.require(APPROVAL) is service
