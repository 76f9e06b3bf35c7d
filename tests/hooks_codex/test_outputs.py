"""Codex's strict answer rules: each rejection voids the answer (fail-open) with its reason.

The decoder reads what a real hook process printed (``run_hook`` on a shell
``printf``); one test per rule Codex enforces (reference §1.6, §1.7).
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.hook_protocol import HookCommand, HookDecodeError, HookOrigin, HookRun
from dsh.hook_protocol._executor import run_hook
from dsh.hooks.codex import CODEX_HOOK_EVENTS, CodexAnswer, decode_codex_answer


async def answer_of(event: str, stdout: Any, *, exit_code: int = 0, stderr: str = "") -> HookRun:
    text = stdout if isinstance(stdout, str) else json.dumps(stdout)
    script = f"printf %s {shlex.quote(text)}; printf %s {shlex.quote(stderr)} >&2; exit {exit_code}"
    cmd = HookCommand(
        argv=("sh", "-c", script), timeout=10, origin=HookOrigin(source="t", event=event)
    )
    return await run_hook(cmd, b"{}")


async def decoded(event: str, stdout: Any, **kw: Any) -> CodexAnswer | None:
    return decode_codex_answer(await answer_of(event, stdout, **kw), event)


async def rejected(event: str, stdout: Any, **kw: Any) -> str:
    run = await answer_of(event, stdout, **kw)
    with pytest.raises(HookDecodeError) as info:
        decode_codex_answer(run, event)
    return info.value.reason


SPEC = {"hookEventName": "PreToolUse"}

REJECTIONS: list[tuple[str, str, Any, str]] = [
    ("unknown key", "Stop", {"decision": "block", "reason": "r", "extra": 1}, "unknown field"),
    ("unknown nested key", "PreToolUse", {"hookSpecificOutput": {**SPEC, "x": 1}}, "unknown field"),
    (
        "wrong hookEventName",
        "PreToolUse",
        {"hookSpecificOutput": {"hookEventName": "PostToolUse"}},
        "not 'PreToolUse'",
    ),
    ("missing hookEventName", "SessionStart", {"hookSpecificOutput": {}}, "missing field"),
    ("block without reason", "Stop", {"decision": "block"}, "non-empty `reason`"),
    (
        "block with empty reason",
        "UserPromptSubmit",
        {"decision": "block", "reason": " "},
        "non-empty",
    ),
    ("reason without decision", "PostToolUse", {"reason": "r"}, "without `decision`"),
    ("decision approve", "PreToolUse", {"decision": "approve"}, "approve"),
    (
        "ask",
        "PreToolUse",
        {
            "hookSpecificOutput": {
                **SPEC,
                "permissionDecision": "ask",
                "permissionDecisionReason": "r",
            }
        },
        '"ask" is not supported',
    ),
    (
        "allow without updatedInput",
        "PreToolUse",
        {"hookSpecificOutput": {**SPEC, "permissionDecision": "allow"}},
        "needs `updatedInput`",
    ),
    (
        "updatedInput without allow",
        "PreToolUse",
        {"hookSpecificOutput": {**SPEC, "updatedInput": {"command": "x"}}},
        'needs permissionDecision "allow"',
    ),
    (
        "deny without reason",
        "PreToolUse",
        {"hookSpecificOutput": {**SPEC, "permissionDecision": "deny"}},
        "non-empty permissionDecisionReason",
    ),
    (
        "reason without permission decision",
        "PreToolUse",
        {"hookSpecificOutput": {**SPEC, "permissionDecisionReason": "r"}},
        "without permissionDecision",
    ),
    ("continue false on PreToolUse", "PreToolUse", {"continue": False}, "invalid on PreToolUse"),
    ("stopReason on PreToolUse", "PreToolUse", {"stopReason": "s"}, "invalid on PreToolUse"),
    ("suppressOutput on PostToolUse", "PostToolUse", {"suppressOutput": True}, "suppressOutput"),
    (
        "updatedMCPToolOutput",
        "PostToolUse",
        {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": {}}},
        "updatedMCPToolOutput",
    ),
    (
        "PermissionRequest updatedInput",
        "PermissionRequest",
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow", "updatedInput": {}},
            }
        },
        "reserved",
    ),
    (
        "PermissionRequest interrupt",
        "PermissionRequest",
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "interrupt": True},
            }
        },
        "reserved",
    ),
    ("continue false on PermissionRequest", "PermissionRequest", {"continue": False}, "invalid on"),
    ("Interrupt allows only systemMessage", "Interrupt", {"continue": False}, "unknown field"),
    ("wrong type", "Stop", {"continue": "no"}, "invalid `continue`"),
    ("JSON-looking but broken", "PreToolUse", "{not json", "not valid JSON"),
    ("a JSON array", "SessionStart", "[1, 2]", "not an object"),
    ("plain text on Stop", "Stop", "keep going", "plain text"),
    ("plain text on Interrupt", "Interrupt", "hello", "plain text"),
]


@pytest.mark.parametrize(
    ("event", "stdout", "why"), [r[1:] for r in REJECTIONS], ids=[r[0] for r in REJECTIONS]
)
async def test_each_strict_rule_rejects_the_answer(event: str, stdout: Any, why: str) -> None:
    assert why in await rejected(event, stdout)


async def test_exit_2_blocks_only_with_stderr_and_only_where_codex_says() -> None:
    answer = await decoded("PreToolUse", "", exit_code=2, stderr="  no way \n")
    assert answer == CodexAnswer(exit2=True, block=True, reason="no way")
    assert "did not write a reason" in await rejected("Stop", "", exit_code=2)
    # SessionStart: exit 2 is a failure like any other code.
    assert "exited with code 2" in await rejected("SessionStart", "", exit_code=2, stderr="x")
    assert "exited with code 1" in await rejected("PreToolUse", "", exit_code=1, stderr="x")


async def test_plain_stdout_is_context_where_codex_takes_it_and_ignored_elsewhere() -> None:
    assert await decoded("SessionStart", "hello") == CodexAnswer(plain="hello")
    assert await decoded("UserPromptSubmit", "hi") == CodexAnswer(plain="hi")
    assert await decoded("PreToolUse", "ignored text") is None
    assert await decoded("PostToolUse", "") is None
    assert await decoded("SessionEnd", {"anything": 1}) is None  # output ignored


async def test_accepted_answers() -> None:
    deny = {
        "hookSpecificOutput": {
            **SPEC,
            "permissionDecision": "deny",
            "permissionDecisionReason": "R",
        }
    }
    assert await decoded("PreToolUse", deny) == CodexAnswer(permission="deny", reason="R")
    allow = {
        "hookSpecificOutput": {
            **SPEC,
            "permissionDecision": "allow",
            "updatedInput": {"command": "x"},
        }
    }
    assert await decoded("PreToolUse", allow) == CodexAnswer(
        permission="allow", updated_input={"command": "x"}
    )
    legacy = await decoded("PreToolUse", {"decision": "block", "reason": "L"})
    assert legacy == CodexAnswer(block=True, reason="L")
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "M"},
        }
    }
    assert await decoded("PermissionRequest", answer) == CodexAnswer(behavior="deny", message="M")
    halt = await decoded(
        "PostToolUse", {"continue": False, "stopReason": "S", "systemMessage": "W"}
    )
    assert halt == CodexAnswer(halt=True, stop_reason="S", system_message="W")


def _run(event: str, stdout: str, exit_code: int, stderr: str) -> HookRun:
    cmd = HookCommand(argv=("true",), timeout=1, origin=HookOrigin(source="t", event=event))
    return HookRun(
        command=cmd,
        pid=1,
        exit_code=exit_code,
        signal=None,
        stdout=stdout,
        stderr=stderr,
        duration=0,
    )


@settings(max_examples=300, deadline=None)
@given(
    event=st.sampled_from(CODEX_HOOK_EVENTS),
    stdout=st.one_of(
        st.text(),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=8),
            lambda c: (
                st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=12), c, max_size=4)
            ),
            max_leaves=12,
        ).map(json.dumps),
    ),
    exit_code=st.sampled_from([0, 0, 0, 1, 2]),
    stderr=st.text(max_size=20),
)
def test_the_decoder_never_raises_anything_else(
    event: str, stdout: str, exit_code: int, stderr: str
) -> None:
    try:
        answer = decode_codex_answer(_run(event, stdout, exit_code, stderr), event)
    except HookDecodeError as exc:
        reason = exc.reason
        assert reason
        return
    assert answer is None or isinstance(answer, CodexAnswer)
    if answer is not None and answer.block:
        assert answer.reason is not None
        assert answer.reason.strip()
