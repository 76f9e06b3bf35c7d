"""Decisions are built by named constructors that reject bad input, naming the problem."""

from __future__ import annotations

import dataclasses

import pytest

from dsh.agent import (
    ContinuationDecision,
    ContinuationState,
    PostToolBatchDecision,
    PreCompactDecision,
    PromptDecision,
    TurnStop,
)


def test_prompt_decisions() -> None:
    allow = PromptDecision.allow()
    assert (allow.kind, allow.content, allow.additional_context, allow.blocked) == (
        "allow",
        None,
        None,
        False,
    )
    rewritten = PromptDecision.allow("new", "ctx", source="plugin:x")
    assert (rewritten.content, rewritten.additional_context, rewritten.source) == (
        "new",
        "ctx",
        "plugin:x",
    )
    block = PromptDecision.block("why")
    assert (block.kind, block.reason, block.blocked) == ("block", "why", True)
    # An empty context is no context.
    assert PromptDecision.allow(additional_context="").additional_context is None


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: PromptDecision.block(""), "PromptDecision.block reason"),
        (lambda: PostToolBatchDecision.stop("  "), "PostToolBatchDecision.stop reason"),
        (lambda: PreCompactDecision.veto(""), "PreCompactDecision.veto reason"),
        (lambda: TurnStop(""), "TurnStop reason"),
    ],
)
def test_a_reason_must_be_given(build: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()  # type: ignore[operator]


def test_a_context_must_be_text() -> None:
    with pytest.raises(TypeError, match="additional_context"):
        PromptDecision.allow(additional_context=42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="content"):
        PromptDecision.allow(content=["a list"])  # type: ignore[arg-type]


def test_decisions_are_frozen() -> None:
    decision = ContinuationDecision.continue_("why")
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.reason = "other"  # type: ignore[misc]


def test_continuation_state_says_whether_a_stop_hook_is_active() -> None:
    stop = ContinuationDecision.stop()
    assert not ContinuationState(stop, 0, 1, "").stop_hook_active
    assert ContinuationState(stop, 2, 3, "").stop_hook_active
    assert ContinuationDecision.continue_().continues
    assert not stop.continues
    assert PostToolBatchDecision.proceed("c").additional_context == "c"
    assert PreCompactDecision.proceed().kind == "proceed"
