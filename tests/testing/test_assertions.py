"""The assertions on decisions, and what they say when they fail."""

from __future__ import annotations

import pytest

from dsh.testing import (
    HookRunRecord,
    HookTestResult,
    ToolCallRecord,
    assert_allowed,
    assert_asked,
    assert_denied,
)
from dsh.tools import PreToolDecision

DENIED = ToolCallRecord(
    name="Bash",
    arguments={"command": "git push --force"},
    content="force-push is not allowed here",
    code="DENIED",
    is_error=True,
    dispatched=False,
)
RAN = ToolCallRecord(name="Bash", arguments={"command": "ls"}, content="a.txt")
FAILED = ToolCallRecord(name="Bash", arguments={"command": "false"}, content="", code="ERROR")
UNKNOWN = ToolCallRecord(
    name="Nope", arguments={}, content="no such tool", code="UNKNOWN_TOOL", dispatched=False
)


def test_a_denied_call() -> None:
    assert assert_denied(DENIED) == "force-push is not allowed here"
    assert_denied(DENIED, reason_contains="force-push")
    with pytest.raises(AssertionError) as info:
        assert_denied(DENIED, reason_contains="rm")
    assert str(info.value) == (
        "denied, but the reason does not contain 'rm': 'force-push is not allowed here'"
    )
    with pytest.raises(AssertionError) as info:
        assert_allowed(DENIED)
    assert str(info.value) == (
        "expected the call to be allowed, but the Bash call (command='git push --force')"
        " was denied: 'force-push is not allowed here'"
    )


def test_an_allowed_call_even_one_that_failed_when_it_ran() -> None:
    assert_allowed(RAN)
    assert_allowed(FAILED)
    with pytest.raises(AssertionError) as info:
        assert_denied(RAN)
    assert str(info.value) == (
        "expected a denial, but the Bash call (command='ls') was allowed (the model read 'a.txt')"
    )
    with pytest.raises(AssertionError) as info:
        assert_allowed(UNKNOWN)
    assert str(info.value) == (
        "expected the call to be allowed, but the Nope call () never ran:"
        " 'UNKNOWN_TOOL: no such tool'"
    )


def test_decisions_directly() -> None:
    assert_denied(PreToolDecision.deny("no"), reason_contains="no")
    assert_allowed(PreToolDecision.allow())
    assert assert_asked(PreToolDecision.ask("sure?"), reason_contains="sure") == "sure?"
    with pytest.raises(AssertionError) as info:
        assert_asked(PreToolDecision.deny("never"))
    assert str(info.value) == "expected an ask, but the decision was denied: 'never'"
    with pytest.raises(AssertionError) as info:
        assert_asked(PreToolDecision.ask("sure?"), reason_contains="really")
    assert str(info.value) == "asked, but the reason does not contain 'really': 'sure?'"
    with pytest.raises(AssertionError, match=r"expected an ask, but the decision was allowed$"):
        assert_asked(PreToolDecision.allow())


def _hook_result(runs: tuple[HookRunRecord, ...], event: str = "PreToolUse") -> HookTestResult:
    decision = PreToolDecision.allow() if event == "PreToolUse" else None
    return HookTestResult(bridge="claude", event=event, payload={}, runs=runs, decision=decision)


def test_a_hook_test_s_failure_names_each_run() -> None:
    silent = HookRunRecord(
        command="python3 guard.py", exit_code=0, stdout="", stderr="", timed_out=False, answer=None
    )
    slow = HookRunRecord(
        command="sleep 99",
        exit_code=None,
        stdout="",
        stderr="",
        timed_out=True,
        answer=None,
        problem="no decision: timed out",
    )
    with pytest.raises(AssertionError) as info:
        assert_denied(_hook_result((silent, slow)), reason_contains="rm")
    assert str(info.value) == (
        "expected a denial, but the claude PreToolUse test (python3 guard.py: exit 0, no answer;"
        " sleep 99: timed out, no decision: timed out) was allowed"
    )
    with pytest.raises(AssertionError) as info:
        assert_denied(_hook_result(()))
    assert str(info.value) == (
        "expected a denial, but the claude PreToolUse test (no hook matched the payload)"
        " was allowed"
    )
    with pytest.raises(AssertionError) as info:
        assert_allowed(_hook_result((), event="Stop"))
    assert str(info.value) == (
        "expected the call to be allowed, but the claude Stop test (no hook matched the payload)"
        " came to no decision: Stop has no decision to assert on (PreToolUse has)"
    )
