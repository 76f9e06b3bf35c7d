"""``approval/request`` through the real agent loop: what the model and the log see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dsh.agent import Agent
from dsh.approval import APPROVAL, ApprovalBroker, ApprovalDecision, ApprovalRequest
from dsh.context import Next
from dsh.session import AbortCause, JsonlSessionStore, ToolResultEvent, TurnEndReason
from dsh.tools import APPROVAL_REQUEST, PRE_EXECUTE, PreToolDecision, ToolCall
from tests.agent.support import Harness, bash, make_harness, of_type, replies, text


def ask_for_bash(h: Harness) -> None:
    @h.ctx.on(PRE_EXECUTE)
    async def ask(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        if call.name == "Bash" and "rm" in call.arguments["command"]:
            return PreToolDecision.ask("removing files needs approval")
        return await next()


def decide(h: Harness, decision: ApprovalDecision) -> list[ApprovalRequest]:
    seen: list[ApprovalRequest] = []

    @h.ctx.on(APPROVAL_REQUEST)
    async def answer(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        seen.append(req)
        return decision

    return seen


def tool_messages(h: Harness, request: int) -> list[dict[str, Any]]:
    return [m for m in h.requests()[request]["messages"] if m["role"] == "tool"]


async def test_allow_runs_the_call_headless(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("rm -f nothing.txt && echo removed")], [text("ok")]))
    ask_for_bash(h)
    seen = decide(h, ApprovalDecision.allow())
    agent = h.agent()
    agent.send("clean up")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("completed")
    (res,) = of_type(agent.events, ToolResultEvent)
    assert (str(res.content).strip(), res.is_error, res.dispatched) == ("removed", False, True)
    assert [(r.tool_name, r.reason, r.session_id) for r in seen] == [
        ("Bash", "removing files needs approval", agent.session_id)
    ]


async def test_deny_reaches_the_model_and_the_log(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("rm -rf build")], [text("understood")]))
    ask_for_bash(h)
    decide(h, ApprovalDecision.deny("CASE-NO-RM"))
    agent = h.agent()
    agent.send("clean up")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("completed")
    (shown,) = tool_messages(h, 1)
    assert (shown["content"], shown["is_error"]) == ("CASE-NO-RM", True)
    # The durable log records who refused it, and why (reloaded from disk).
    session_id = agent.session_id
    agent.session.close()
    loaded = JsonlSessionStore(tmp_path / "sessions").open(session_id).events
    (res,) = of_type(loaded, ToolResultEvent)
    assert (res.code, res.dispatched) == ("DENIED", False)
    assert dict(res.info) == {
        "by": "approval",
        "reason": "CASE-NO-RM",
        "outcome": "rejected",
        "channel": "approval/request",
        "asked": "removing files needs approval",
    }


async def test_interrupt_ends_the_turn_after_the_steps_calls_finish(tmp_path: Path) -> None:
    h = make_harness(
        tmp_path,
        replies([bash("rm -rf build"), bash("echo still-runs")], [text("never asked")]),
    )
    ask_for_bash(h)
    decide(h, ApprovalDecision.deny("CASE-STOP", interrupt=True))
    agent = h.agent()
    agent.send("clean up")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("aborted")
    assert result.cause == AbortCause(kind="hook", reason="CASE-STOP")
    denied, ran = of_type(agent.events, ToolResultEvent)
    assert (denied.code, denied.content, denied.info["interrupt"]) == (
        "DENIED",
        "CASE-STOP",
        True,
    )
    assert (str(ran.content).strip(), ran.is_error) == ("still-runs", False)
    assert len(h.requests()) == 1  # no model call after the step


async def test_abstain_falls_through_to_the_broker(tmp_path: Path) -> None:
    class Yes:
        def __init__(self) -> None:
            self.asked: list[str] = []

        async def request(self, req: ApprovalRequest, /) -> str:
            self.asked.append(req.tool_name)
            return "allowed-once"

    h = make_harness(tmp_path, replies([bash("rm -f x && echo gone")], [text("ok")]))
    ask_for_bash(h)
    seen = decide(h, ApprovalDecision.abstain())
    yes = Yes()
    h.ctx.provide(APPROVAL, ApprovalBroker(yes))  # type: ignore[arg-type]
    agent: Agent = h.agent()
    agent.send("clean up")
    await agent.run_turn()
    (res,) = of_type(agent.events, ToolResultEvent)
    assert str(res.content).strip() == "gone"
    assert len(seen) == 1
    assert yes.asked == ["Bash"]
