"""Assertions on what was decided: a call denied (with which reason), allowed, asked about.

Each takes what a test has in hand: a ``ToolCallRecord`` (``run.tool_call("Bash")``
of a ``run_session``), a ``HookTestResult`` (``run_hook`` of PreToolUse) or a
``PreToolDecision`` a plugin's listener returned. On failure the
``AssertionError`` says what was decided instead, and why.
"""

from __future__ import annotations

from typing import TypeAlias

from dsh.testing._hooks import HookRunRecord, HookTestResult
from dsh.testing._session import ToolCallRecord
from dsh.tools import PreToolAllow, PreToolAsk, PreToolDecision, PreToolDeny

__all__ = ["Decided", "assert_allowed", "assert_asked", "assert_denied"]

Decided: TypeAlias = ToolCallRecord | HookTestResult | PreToolDecision
"""What the assertions accept: a session's tool call, a hook test, or a decision."""


def assert_denied(decided: Decided, *, reason_contains: str | None = None) -> str:
    """Assert the call was denied (with ``reason_contains`` in the reason the model reads);
    return that reason."""
    kind, reason = _decided_kind(decided)
    if kind != "denied":
        raise AssertionError(f"expected a denial, but {_describe(decided, kind, reason)}")
    if reason_contains is not None and reason_contains not in reason:
        raise AssertionError(
            f"denied, but the reason does not contain {reason_contains!r}: {reason!r}"
        )
    return reason


def assert_allowed(decided: Decided) -> None:
    """Assert the call was allowed: it ran (whatever its outcome), or the hooks let it run."""
    kind, reason = _decided_kind(decided)
    if kind != "allowed":
        raise AssertionError(
            f"expected the call to be allowed, but {_describe(decided, kind, reason)}"
        )


def assert_asked(decided: Decided, *, reason_contains: str | None = None) -> str:
    """Assert the decision asks for approval (``reason_contains`` in its reason); return it."""
    kind, reason = _decided_kind(decided)
    if kind != "asked":
        raise AssertionError(f"expected an ask, but {_describe(decided, kind, reason)}")
    if reason_contains is not None and reason_contains not in reason:
        raise AssertionError(
            f"asked, but the reason does not contain {reason_contains!r}: {reason!r}"
        )
    return reason


def _decided_kind(decided: Decided) -> tuple[str, str]:
    """``denied``, ``asked``, ``allowed``, ``failed`` (a call refused before any decision:
    unknown tool, invalid arguments) or ``undecided``, with the reason (or output) in the
    model's words."""
    if isinstance(decided, ToolCallRecord):
        if decided.denied:
            return "denied", decided.content
        if not decided.dispatched:  # an unknown tool, invalid arguments, aborted before it ran
            return "failed", f"{decided.code}: {decided.content}"
        return "allowed", decided.content
    decision = decided
    if isinstance(decided, HookTestResult):
        if decided.decision is None:
            return "undecided", f"{decided.event} has no decision to assert on (PreToolUse has)"
        decision = decided.decision
    if isinstance(decision, PreToolDeny):
        return "denied", decision.reason
    if isinstance(decision, PreToolAsk):
        return "asked", decision.reason
    if isinstance(decision, PreToolAllow):
        return "allowed", ""
    return "undecided", repr(decision)


def _describe(decided: Decided, kind: str, reason: str) -> str:
    if isinstance(decided, ToolCallRecord):
        what = f"the {decided.name} call {_args(decided)}"
    elif isinstance(decided, HookTestResult):
        ran = "; ".join(_run_line(r) for r in decided.runs) or "no hook matched the payload"
        what = f"the {decided.bridge} {decided.event} test ({ran})"
    else:
        what = "the decision"
    said = {
        "denied": f"was denied: {reason!r}",
        "asked": f"asked: {reason!r}",
        "allowed": "was allowed" + (f" (the model read {reason[:200]!r})" if reason else ""),
        "failed": f"never ran: {reason[:200]!r}",
    }.get(kind, f"came to no decision: {reason}")
    return f"{what} {said}"


def _args(call: ToolCallRecord) -> str:
    shown = ", ".join(f"{k}={v!r}" for k, v in call.arguments.items())
    return f"({shown[:200]})"


def _run_line(run: HookRunRecord) -> str:
    ended = "timed out" if run.timed_out else f"exit {run.exit_code}"
    answer = run.problem or (f"answered {dict(run.answer)}" if run.answer else "no answer")
    return f"{run.command}: {ended}, {answer}"
