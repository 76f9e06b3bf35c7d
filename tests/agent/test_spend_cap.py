"""``spend_cap``: once the priced model calls reach the limit, tool calls are denied, typed.

Through the real loop with a scripted model whose replies report usage; the pricer is
the test's (dsh has no price table of its own). A model without a price is named once
and not counted; nothing is denied below the limit.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from dsh.agent import SPEND_CAP_KIND, spend_cap
from dsh.messages import Usage
from dsh.testing import assert_allowed, assert_denied, call, run_session, say

USAGE = {"type": "usage", "input_tokens": 100, "output_tokens": 10}


def dollar_per_thousand(model: str, usage: Usage) -> float | None:
    return (usage.input_tokens + usage.output_tokens) / 1000


def session(pricer: Any, limit: float) -> Any:
    return asyncio.run(
        run_session(
            "go",
            [call("Bash", command="echo one"), USAGE],
            [call("Bash", command="echo two"), USAGE],
            [say("done"), USAGE],
            plugins=[spend_cap(limit, pricer)],
        )
    )


def test_below_the_cap_nothing_is_denied() -> None:
    run = session(dollar_per_thousand, 1_000_000.0)
    assert [c.denied for c in run.tool_calls] == [False, False]


def test_at_the_cap_tool_calls_are_denied_with_a_typed_reason() -> None:
    run = session(lambda model, usage: 0.75, 1.0)
    first, second = run.tool_calls
    assert_allowed(first)  # $0.75 spent: under the cap
    assert_denied(second, reason_contains="spend cap is reached")
    assert second.content == (
        "The session's spend cap is reached: $1.5000 of $1.0000 spent; Bash was not run."
    )
    assert second.info["by"] == "guard"
    typed = second.info["info"]
    assert typed == {"kind": SPEND_CAP_KIND, "limit_usd": 1.0, "spent_usd": 1.5}
    assert not second.dispatched


def test_a_model_without_a_price_is_named_once_and_not_counted() -> None:
    run = session(lambda model, usage: None, 0.01)
    assert [c.denied for c in run.tool_calls] == [False, False]
    notices = [e for e in run.events if e.type == "notice" and "no price" in str(e.text)]
    assert len(notices) == 1


def test_the_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        spend_cap(0, dollar_per_thousand)
