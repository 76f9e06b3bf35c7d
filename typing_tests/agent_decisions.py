"""The agent's decisions are closed unions: mypy narrows them, and a wrong use is a type error."""

from __future__ import annotations

from typing import assert_never

from dsh.agent import (
    MESSAGE_DISPLAY,
    NOTIFICATION,
    POST_TOOL_BATCH,
    PRE_COMPACT,
    PROMPT_SUBMIT,
    TURN_CONTINUATION,
    TURN_STOP,
    Agent,
    CompactRequest,
    ContinuationContinue,
    ContinuationDecision,
    ContinuationState,
    ContinuationStop,
    ContinuationVariant,
    DisplayDecision,
    DisplayReplace,
    DisplayRequest,
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
    PromptSource,
    PromptVariant,
    TurnStop,
)
from dsh.context import Context, Next
from dsh.messages import Content
from dsh.tools import ToolExecutionResult

ctx = Context()


# -- accepted -----------------------------------------------------------------


def constructors_return_the_precise_variant() -> None:
    allow: PromptAllow = PromptDecision.allow("rewritten", "context", source="plugin:x")
    block: PromptBlock = PromptDecision.block("why")
    reason: str = block.reason  # never Optional
    proceed: PostToolBatchProceed = PostToolBatchDecision.proceed("context")
    stop: PostToolBatchStop = PostToolBatchDecision.stop("why")
    go_on: ContinuationContinue = ContinuationDecision.continue_("steer")
    end: ContinuationStop = ContinuationDecision.stop()
    run: PreCompactProceed = PreCompactDecision.proceed()
    veto: PreCompactVeto = PreCompactDecision.veto("why")
    show: DisplayShow = DisplayDecision.show()
    replace: DisplayReplace = DisplayDecision.replace("")
    text: str = replace.text + veto.reason + stop.reason
    turn_stop = TurnStop("why")
    turn_reason: str = turn_stop.reason


def a_variant_narrows_exhaustively(decision: PromptVariant) -> str:
    match decision:
        case PromptAllow(content=content, additional_context=extra):
            return f"{content!r} {extra}"
        case PromptBlock(reason=reason):
            return reason
        case _:
            assert_never(decision)


def a_continuation_narrows_by_isinstance(decision: ContinuationVariant) -> str | None:
    if isinstance(decision, ContinuationStop):
        return None
    return decision.reason


def kinds_are_literals(decision: PromptVariant) -> None:
    if decision.kind == "block":
        reason: str = decision.reason


def the_state_carries_a_check(state: ContinuationState) -> bool:
    match state.decision:
        case ContinuationContinue():
            return True
        case ContinuationStop():
            return False


async def prompt_ok(
    agent: Agent, content: Content, source: PromptSource, next: Next[PromptDecision]
) -> PromptDecision:
    decision = await next()
    if isinstance(decision, PromptAllow) and decision.additional_context:
        return PromptDecision.allow(decision.content, decision.additional_context + "!")
    if not decision.blocked and content == "secret":
        return PromptDecision.block("no secrets")
    return decision


async def batch_ok(
    agent: Agent,
    results: tuple[ToolExecutionResult, ...],
    next: Next[PostToolBatchDecision],
) -> PostToolBatchDecision:
    return PostToolBatchDecision.stop("enough") if len(results) > 3 else await next()


async def continuation_ok(
    agent: Agent, state: ContinuationState, next: Next[ContinuationDecision]
) -> ContinuationDecision:
    if state.decision.continues or state.streak > 2:
        return await next()
    return ContinuationDecision.continue_("keep going")


async def compact_ok(
    agent: Agent, request: CompactRequest, next: Next[PreCompactDecision]
) -> PreCompactDecision:
    return PreCompactDecision.veto("not now") if request.trigger == "auto" else await next()


async def display_ok(
    agent: Agent, request: DisplayRequest, next: Next[DisplayDecision]
) -> DisplayDecision:
    return DisplayDecision.replace(request.text.upper())


async def turn_stop_ok(agent: Agent, step: int) -> TurnStop | None:
    return TurnStop("too many steps") if step > 9 else None


ctx.on(PROMPT_SUBMIT, prompt_ok)
ctx.on(POST_TOOL_BATCH, batch_ok)
ctx.on(TURN_CONTINUATION, continuation_ok)
ctx.on(PRE_COMPACT, compact_ok)
ctx.on(MESSAGE_DISPLAY, display_ok)
ctx.on(TURN_STOP, turn_stop_ok)


async def notification_ok(agent: Agent, message: str, notification_type: str) -> None: ...


ctx.on(NOTIFICATION, notification_ok)


# -- rejected -----------------------------------------------------------------


def fields_of_another_variant() -> None:
    field_1 = PromptDecision.allow().reason  # type: ignore[attr-defined]
    field_2 = PromptDecision.block("why").content  # type: ignore[attr-defined]
    field_3 = PostToolBatchDecision.proceed().reason  # type: ignore[attr-defined]
    field_4 = PostToolBatchDecision.stop("why").additional_context  # type: ignore[attr-defined]
    field_5 = ContinuationDecision.stop().reason  # type: ignore[attr-defined]
    field_6 = PreCompactDecision.proceed().reason  # type: ignore[attr-defined]
    field_7 = DisplayDecision.show().text  # type: ignore[attr-defined]


def fields_of_the_base(decision: PromptDecision) -> None:
    field_8 = decision.reason  # type: ignore[attr-defined]
    field_9 = decision.content  # type: ignore[attr-defined]


def a_reason_is_required() -> None:
    PromptDecision.block()  # type: ignore[call-arg]
    PromptBlock()  # type: ignore[call-arg]
    PostToolBatchDecision.stop()  # type: ignore[call-arg]
    PreCompactDecision.veto(None)  # type: ignore[arg-type]
    DisplayDecision.replace()  # type: ignore[call-arg]
    TurnStop()  # type: ignore[call-arg]


def a_reason_is_not_optional(decision: PromptBlock) -> None:
    reason: None = decision.reason  # type: ignore[assignment]


def decisions_are_frozen() -> None:
    PromptDecision.block("why").reason = "other"  # type: ignore[misc]
    PromptDecision.allow().content = "other"  # type: ignore[misc]
    ContinuationDecision.continue_().reason = "other"  # type: ignore[misc]
    DisplayDecision.replace("a").text = "b"  # type: ignore[misc]


def variants_are_final() -> None:
    class Maybe(PromptAllow):  # type: ignore[misc]
        pass


def a_variant_misses_a_case(decision: PromptVariant) -> str:
    match decision:
        case PromptAllow():
            return "allowed"
        case _:
            assert_never(decision)  # type: ignore[arg-type]


def the_wrong_variant(decision: PromptVariant) -> None:
    if isinstance(decision, PromptAllow):
        field_10 = decision.reason  # type: ignore[attr-defined]


def kinds_are_literals_of_their_variant() -> None:
    kind: PromptBlock = PromptDecision.allow()  # type: ignore[assignment]


async def prompt_returns_a_continuation(
    agent: Agent, content: Content, source: PromptSource, next: Next[PromptDecision]
) -> ContinuationDecision:
    return ContinuationDecision.stop()


async def batch_returns_a_prompt_decision(
    agent: Agent,
    results: tuple[ToolExecutionResult, ...],
    next: Next[PostToolBatchDecision],
) -> PromptDecision:
    return PromptDecision.allow()


async def display_takes_the_wrong_next(
    agent: Agent, request: DisplayRequest, next: Next[PreCompactDecision]
) -> DisplayDecision:
    return DisplayDecision.show()


async def turn_stop_returns_a_continuation(agent: Agent, step: int) -> ContinuationDecision | None:
    return None


ctx.on(PROMPT_SUBMIT, prompt_returns_a_continuation)  # type: ignore[misc]
ctx.on(POST_TOOL_BATCH, batch_returns_a_prompt_decision)  # type: ignore[misc]
ctx.on(MESSAGE_DISPLAY, display_takes_the_wrong_next)  # type: ignore[misc]


async def notification_without_its_type(agent: Agent, message: str) -> None: ...


ctx.on(NOTIFICATION, notification_without_its_type)  # type: ignore[misc]
ctx.on(TURN_STOP, turn_stop_returns_a_continuation)  # type: ignore[misc]


async def returning_a_continuation_from_prompt_submit(
    agent: Agent, content: Content, source: PromptSource, next: Next[PromptDecision]
) -> PromptDecision:
    return ContinuationDecision.continue_()  # type: ignore[return-value]
