"""``agent/model-request`` and ``agent/model-response``: observers around every model call."""

from __future__ import annotations

from pathlib import Path

from dsh.agent import MODEL_REQUEST, MODEL_RESPONSE, Agent, ModelCall, ModelCallEnd
from dsh.messages import Usage
from dsh.session import AssistantMessageEvent, TurnEndReason
from tests.agent.support import bash, http_error, make_harness, replies, text


async def test_each_call_is_seen_before_and_after_with_its_outcome(tmp_path: Path) -> None:
    usage = {"type": "usage", "input_tokens": 4, "output_tokens": 2}
    harness = make_harness(tmp_path, replies([bash("echo hi"), usage], [text("done")]))
    seen: list[tuple[str, str]] = []
    ends: list[ModelCallEnd] = []

    async def before(agent: Agent, call: ModelCall) -> None:
        seen.append(("request", call.request_id))

    async def after(agent: Agent, end: ModelCallEnd) -> None:
        seen.append(("response", end.call.request_id))
        ends.append(end)
        raise RuntimeError("an observer's failure is contained")

    harness.ctx.on(MODEL_REQUEST, before)
    harness.ctx.on(MODEL_RESPONSE, after)
    agent = harness.agent()
    agent.send("go")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason.COMPLETED
    assert [kind for kind, _ in seen] == ["request", "response"] * 2
    assert seen[0][1] == seen[1][1] != seen[2][1] == seen[3][1]
    logged = [e.id for e in agent.events if isinstance(e, AssistantMessageEvent)]
    assert [e.response_id for e in ends] == logged
    assert [e.status for e in ends] == ["completed", "completed"]
    assert ends[0].usage == Usage(input_tokens=4, output_tokens=2)
    assert ends[0].call.model == agent.model.name


async def test_a_failed_call_is_seen_failed_with_its_error(tmp_path: Path) -> None:
    harness = make_harness(tmp_path, replies([http_error(400, "CASE-BAD")]))
    ends: list[ModelCallEnd] = []

    async def after(agent: Agent, end: ModelCallEnd) -> None:
        ends.append(end)

    harness.ctx.on(MODEL_RESPONSE, after)
    agent = harness.agent()
    agent.send("go")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason.ERROR
    (end,) = ends
    assert end.status == "failed"
    assert end.error is not None
    assert "CASE-BAD" in end.error
    assert end.usage is None
    assert end.response_id is None
