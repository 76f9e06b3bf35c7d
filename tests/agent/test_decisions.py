"""Decisions are closed unions, built by named constructors that reject bad input by name."""

from __future__ import annotations

import dataclasses

import pytest

from dsh.agent import (
    ContinuationContinue,
    ContinuationDecision,
    ContinuationState,
    ContinuationStop,
    DisplayDecision,
    DisplayReplace,
    DisplayShow,
    PostToolBatchDecision,
    PostToolBatchProceed,
    PostToolBatchStop,
    PreCompactDecision,
    PreCompactProceed,
    PreCompactVeto,
    PromptAllow,
    PromptBlock,
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
        # The variant classes keep the same promise as their constructors.
        (lambda: PromptBlock(""), "PromptDecision.block reason"),
        (lambda: PostToolBatchStop(" "), "PostToolBatchDecision.stop reason"),
        (lambda: PreCompactVeto(""), "PreCompactDecision.veto reason"),
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
    with pytest.raises(TypeError, match=r"DisplayDecision\.replace: text"):
        DisplayDecision.replace(None)  # type: ignore[arg-type]


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


@pytest.mark.parametrize(
    ("decision", "variant", "base", "kind", "fields"),
    [
        (
            PromptDecision.allow("x", "c"),
            PromptAllow,
            PromptDecision,
            "allow",
            ("content", "additional_context", "source"),
        ),
        (PromptDecision.block("why"), PromptBlock, PromptDecision, "block", ("reason", "source")),
        (
            PostToolBatchDecision.proceed("c"),
            PostToolBatchProceed,
            PostToolBatchDecision,
            "proceed",
            ("additional_context", "source"),
        ),
        (
            PostToolBatchDecision.stop("why"),
            PostToolBatchStop,
            PostToolBatchDecision,
            "stop",
            ("reason",),
        ),
        (
            ContinuationDecision.continue_("r"),
            ContinuationContinue,
            ContinuationDecision,
            "continue",
            ("reason",),
        ),
        (ContinuationDecision.stop(), ContinuationStop, ContinuationDecision, "stop", ()),
        (PreCompactDecision.proceed(), PreCompactProceed, PreCompactDecision, "proceed", ()),
        (PreCompactDecision.veto("why"), PreCompactVeto, PreCompactDecision, "veto", ("reason",)),
        (DisplayDecision.show(), DisplayShow, DisplayDecision, "show", ()),
        (DisplayDecision.replace(""), DisplayReplace, DisplayDecision, "replace", ("text",)),
    ],
)
def test_a_constructor_returns_its_variant_with_exactly_its_fields(
    decision: object, variant: type, base: type, kind: str, fields: tuple[str, ...]
) -> None:
    assert type(decision) is variant
    assert isinstance(decision, base)
    assert variant.kind == kind  # type: ignore[attr-defined]
    assert tuple(f.name for f in dataclasses.fields(decision)) == fields  # type: ignore[arg-type]
    assert not hasattr(decision, "__dict__")


BASES = (
    PromptDecision,
    PostToolBatchDecision,
    ContinuationDecision,
    PreCompactDecision,
    DisplayDecision,
)


@pytest.mark.parametrize("base", [*BASES, PromptAllow, PromptBlock])
def test_no_other_module_can_add_a_variant(base: type) -> None:
    with pytest.raises(TypeError, match="closed"):
        type("Maybe", (base,), {"__slots__": ()})


@pytest.mark.parametrize("base", BASES)
def test_a_base_is_never_a_decision_itself(base: type) -> None:
    with pytest.raises(TypeError, match="named constructors"):
        base()


def test_a_variant_says_which_it_is() -> None:
    assert PromptDecision.block("why").blocked
    assert not PromptDecision.allow().blocked
    assert ContinuationDecision.continue_().continues
    assert not ContinuationDecision.stop().continues
    # Equal decisions are equal values, whichever way they were built.
    assert PromptDecision.block("why") == PromptBlock("why")
