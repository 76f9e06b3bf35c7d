"""``total_cost_usd``, ``modelUsage`` and ``usage`` of a ``result`` as 2.1.332 reports them
(``claude-stream-json/resume``: each reply reported 100 input and 20 output tokens on
``claude-opus-5-5``; the first run's result costs 0.0016 USD, the resumed run's 0.0024:
the session's replies, the earlier run's included), from the dated price table."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsh.agent import TurnResult
from dsh.cli._stream_json import StreamJson
from dsh.messages import Usage
from dsh.session import AssistantMessageEvent, TurnEndReason
from tests.shared_paths import CONFORMANCE, on_ci

KEYS = ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens")


def recorded_results() -> list[dict[str, Any]]:
    path = CONFORMANCE / "claude-stream-json" / "resume.jsonl"
    if not path.is_file():
        assert not on_ci(), f"the corpus is missing: {path}"
        pytest.skip("no corpus")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line for line in lines if line.get("type") == "result"]


def converter(model: str = "claude-opus-5-5") -> StreamJson:
    return StreamJson(
        lambda obj: None,
        cwd="/p",
        model=model,
        permission_mode="default",
        start_source="startup",
        tools=list,
    )


def reply() -> AssistantMessageEvent:
    return AssistantMessageEvent(text="x", usage=Usage(input_tokens=100, output_tokens=20))


def compared(result: dict[str, Any]) -> tuple[Any, ...]:
    """The figures compared, costs to the nano-dollar (float sums differ in their last bits)."""
    (usage,) = result["modelUsage"].values()
    return (
        round(result["total_cost_usd"], 9),
        {**{k: usage[k] for k in KEYS}, "costUSD": round(usage["costUSD"], 9)},
        {k: result["usage"][k] for k in ("input_tokens", "output_tokens")},
    )


def test_a_run_and_its_resumption_cost_as_recorded() -> None:
    first, resumed = recorded_results()
    made = converter()
    made.feed(reply())
    made.feed(reply())
    got = made.result(TurnResult(TurnEndReason.completed, steps=2))
    assert compared(got) == compared(first)
    again = converter()
    again.seed([reply(), reply()])
    again.feed(reply())
    got = again.result(TurnResult(TurnEndReason.completed, steps=1))
    assert compared(got) == compared(resumed)


def test_a_model_without_a_public_price_costs_nothing() -> None:
    made = converter("my-local-model")
    made.feed(reply())
    got = made.result(TurnResult(TurnEndReason.completed, steps=1))
    assert got["total_cost_usd"] == 0
    assert got["modelUsage"]["my-local-model"]["inputTokens"] == 100
    assert converter().result(TurnResult(TurnEndReason.completed))["modelUsage"] == {}
