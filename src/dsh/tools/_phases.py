"""Phases 2, 3, 4 and 7: the pre-execute policy, approval, the guards, the post-execute policy.

The decision phases run through the one waterfall runner
(``dsh.context.run_waterfall``), raced against the call's signal with the one
race (``dsh.base.race``); a listener's failure becomes ``LISTENER_ERROR``.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from dsh.approval import (
    APPROVAL,
    ApprovalAllow,
    ApprovalBroker,
    ApprovalDecision,
    ApprovalDeny,
    ApprovalRequest,
)
from dsh.approval._types import answer_outcome
from dsh.base import AbortSignal, FrozenDict, race
from dsh.base._signal import SignalAbortedError
from dsh.context import ChannelError, Context, ListenerError
from dsh.context._chain import describe, run_waterfall
from dsh.messages import TextBlock
from dsh.session import AbortCause
from dsh.tools._channels import APPROVAL_REQUEST, POST_EXECUTE, PRE_EXECUTE
from dsh.tools._decisions import (
    GuardDenial,
    PostToolAccept,
    PostToolBlock,
    PostToolDecision,
    PostToolVariant,
    PreToolAllow,
    PreToolDecision,
    PreToolDefer,
    PreToolDeny,
    PreToolVariant,
)
from dsh.tools._failures import aborted_before, deferred, denied, exc_text, listener_failed
from dsh.tools._identity import ToolCall
from dsh.tools._types import OutputMismatchError, ToolCaller, ToolResult

__all__ = ["Guard", "ask", "decide", "post_execute", "run_guard"]

Guard = Callable[[ToolCall], GuardDenial | None]
"""A terminal policy: deny with a ``GuardDenial`` or abstain with ``None``."""

_ALLOW = PreToolDecision.allow()
_ACCEPT = PostToolDecision.accept()
_ABSTAIN = ApprovalDecision.abstain()
# The variants themselves: ``isinstance`` against a tuple of final classes is an exact
# type match, where the base's (legacy-call) metaclass would make it a slower lookup.
_POST_VARIANTS = (PostToolAccept, PostToolBlock)


def _allow() -> PreToolVariant:
    return _ALLOW


def _accept() -> PostToolVariant:
    return _ACCEPT


def _abstain() -> Any:
    return _ABSTAIN


async def decide(
    ctx: Context,
    fns: tuple[Callable[..., Awaitable[Any]], ...],
    call: ToolCall,
    signal: AbortSignal | None,
) -> tuple[ToolResult | None, tuple[str, ...], FrozenDict | None]:
    """Phases 2 and 3: ``None`` lets the call go on; the context it adds; how an ask was settled."""
    work = run_waterfall(PRE_EXECUTE.name, fns, (call,), _allow, PreToolDecision)
    try:
        decision: PreToolVariant = await (work if signal is None else race(work, signal))
    except SignalAbortedError:
        return aborted_before(signal), (), None
    except ListenerError as failure:
        return listener_failed("pre-execute", failure.listener, failure.error), (), None
    contexts = decision.additional_context
    # ``type() is``, not ``isinstance``: the variants are final, and this runs per call.
    if type(decision) is PreToolAllow:
        return None, contexts, None
    if type(decision) is PreToolDeny:
        extra = {"info": decision.info} if decision.info is not None else {}
        return denied("pre-execute", decision.reason, **extra), contexts, None
    if type(decision) is PreToolDefer:
        return deferred(decision.reason, decision.by), (), None
    result, approval = await ask(ctx, call, decision.reason, signal)
    return result, contexts, approval


# -- phase 3: approval --------------------------------------------------------------


def _settled(asked: str, outcome: str, by: str | None, why: str | None = None) -> FrozenDict:
    record: dict[str, Any] = {"asked": asked, "outcome": outcome}
    if by is not None:
        record["by"] = by
    if why is not None:
        record["reason"] = why
    return FrozenDict(record)


async def ask(
    ctx: Context, call: ToolCall, reason: str, signal: AbortSignal | None
) -> tuple[ToolResult | None, FrozenDict | None]:
    """Settle an ``ask``: ``None`` lets the call go on; and the record of how it was settled.

    The ``approval/request`` waterfall belongs to the approval service: a call
    with no agent, or a registry with no service, is denied before any
    approval listener is asked.
    """
    agent = call.agent
    if agent is None:
        return denied("approval", reason, outcome="no-agent"), _settled(reason, "no-agent", None)
    service = ctx.get(APPROVAL)
    if service is None:
        return denied("approval", reason, outcome="no-service"), _settled(
            reason, "no-service", None
        )
    req = ApprovalRequest(call.name, call.arguments, reason, agent.session_id, call.tool_use_id)
    broker = service if isinstance(service, ApprovalBroker) else None
    if broker is not None and broker.remembers(req):
        # Allowed always earlier in this session: nobody is asked again, as a
        # Claude Code session rule means no prompt and no PermissionRequest.
        return None, _settled(reason, "allowed-always", "memory")

    fns = ctx.listeners(APPROVAL_REQUEST)
    if fns:
        work = run_waterfall(APPROVAL_REQUEST.name, fns, (call, req), _abstain, ApprovalDecision)
        try:
            decision = await race(work, signal)
        except SignalAbortedError:
            return aborted_before(signal), _settled(reason, "cancelled", APPROVAL_REQUEST.name)
        except ListenerError as failure:
            return listener_failed("approval", failure.listener, failure.error), None
        if isinstance(decision, ApprovalAllow):
            if decision.always and broker is not None:
                broker.remember(req)
            allowed = "allowed-always" if decision.always else "allowed-once"
            return None, _settled(reason, allowed, APPROVAL_REQUEST.name, decision.reason)
        if isinstance(decision, ApprovalDeny):
            return _rejected(agent, reason, decision), _settled(
                reason, "rejected", APPROVAL_REQUEST.name, decision.reason
            )

    try:
        reply = await race(service.request(req), signal)
        outcome, why = answer_outcome(reply)
    except SignalAbortedError:
        return aborted_before(signal), _settled(reason, "cancelled", "service")
    except Exception as exc:
        return listener_failed("approval", service, exc), None
    if outcome == "allowed-once" or outcome == "allowed-always":
        return None, _settled(reason, outcome, "service", why)
    extra = {"approval_reason": why} if why is not None else {}
    result = denied("approval", reason, outcome=outcome or "no-channel", **extra)
    return result, _settled(reason, outcome or "no-channel", "service", why)


def _rejected(agent: ToolCaller, asked: str, decision: ApprovalDeny) -> ToolResult:
    halt = {"interrupt": True} if decision.interrupt else {}
    if decision.interrupt:
        # The request a pre-execute hook's ``continue: false`` makes: end the
        # turn once the step's calls have finished.
        agent.cancel(AbortCause(kind="hook", reason=decision.reason), when="after_step")
    return denied(
        "approval",
        decision.reason,
        outcome="rejected",
        channel=APPROVAL_REQUEST.name,
        asked=asked,
        **halt,
    )


# -- phase 4: guards ----------------------------------------------------------------


def run_guard(guard: Guard, call: ToolCall) -> ToolResult | None:
    try:
        denial = guard(call)
    except Exception as exc:
        return listener_failed("guard", guard, exc)
    if denial is None:
        return None
    if type(denial) is GuardDenial:
        extra = {"info": denial.info} if denial.info is not None else {}
        return denied("guard", denial.reason, guard=describe(guard), **extra)
    if inspect.iscoroutine(denial):
        denial.close()
    error = ChannelError(
        f"guard returned {type(denial).__name__}; a guard returns a GuardDenial or None"
    )
    return listener_failed("guard", guard, error)


# -- phase 7: post-execute ----------------------------------------------------------


async def post_execute(
    fns: tuple[Callable[..., Awaitable[Any]], ...],
    call: ToolCall,
    result: ToolResult,
    signal: AbortSignal | None,
) -> tuple[ToolResult, tuple[str, ...]]:
    """The result as the post-execute policy leaves it, and the context it adds.

    It runs for every outcome, an aborted one included; only an abort that
    lands while it runs cuts it short (the result then stands as it was).
    """
    # The protected snapshot: a listener that mutates ``result`` cannot reach these.
    content, output, is_error, code, info = (
        result.content,
        result.output,
        result.is_error,
        result.code,
        result.info,
    )
    work = run_waterfall(POST_EXECUTE.name, fns, (call, result), _accept, _POST_VARIANTS)
    racing = signal if signal is not None and not signal.aborted else None
    try:
        decision: PostToolVariant = await (work if racing is None else race(work, racing))
    except SignalAbortedError:
        return result, ()
    except ListenerError as failure:
        # A failure stays a failure, and a broken policy fails the call closed.
        failed = listener_failed("post-execute", failure.listener, failure.error)
        more = FrozenDict(failed.info, original_code=code)
        return ToolResult(failed.content, output, True, "LISTENER_ERROR", more), ()
    if decision.output is not None:
        try:
            # A call without a definition (UNKNOWN_TOOL) is a failed one too.
            if is_error or call.tool is None:
                raise OutputMismatchError(
                    f"the output of a failed call ({code}) cannot be replaced; only a"
                    " successful call's can"
                )
            content = call.tool.present_output(decision.output)
        except Exception as exc:
            text = f"post-execute: {exc_text(exc)}"
            more = FrozenDict(phase="post-execute", error=text, original_code=code)
            return ToolResult(text, output, True, "LISTENER_ERROR", more), ()
        output = decision.output
    if decision.content is not None:
        content = decision.content
    if type(decision) is PostToolBlock and decision.feedback:
        feedback = decision.feedback
        if not content:
            content = feedback
        else:
            blocks = (TextBlock(content),) if isinstance(content, str) else content
            content = (*blocks, TextBlock(feedback))
    if (
        content is result.content
        and output is result.output
        and is_error is result.is_error
        and code is result.code
        and info is result.info
    ):
        # Nothing changed, and no listener reached into the result: it is the
        # snapshot already (a new copy would cost more than the whole phase).
        return result, decision.additional_context
    return ToolResult(content, output, is_error, code, info), decision.additional_context
