"""The Codex bridge's schema refusals, word for word (pinned from the pydantic-era decoder).

``config/_parse.py`` and ``answers/_decode.py`` read through ``dsh._schema``
(msgspec); these tables hold the paths the other tests do not reach: keys read
under a second name (``run_async``, ``command_windows``, ``continue_``), the
handler ``type`` dispatch, u64 bounds, and a wrong type at each level, each
with the first reason in the order pydantic reported it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.hook_protocol import HookCommand, HookDecodeError, HookOrigin, HookRun
from dsh.hooks.codex import decode_codex_answer
from dsh.hooks.codex.config._parse import CommandHandler, parse_hooks_json

C: dict[str, Any] = {"type": "command", "command": "c"}
VOID = "; Codex rejects the whole file, so none of its hooks run"
TAGS = "expected one of `command`, `mcp_tool`, `prompt`, `agent`"
MCP: dict[str, Any] = {"type": "mcp_tool", "server": "s"}
U64_ABOVE = "Input should be less than or equal to 18446744073709551615"
INSTANCE = "Input should be a valid dictionary or instance of"
FORBIDS = "(Codex's output schema forbids it)"


def diagnostics(pre_tool_use: Any) -> list[str]:
    data = json.dumps({"hooks": {"PreToolUse": pre_tool_use}}).encode()
    return [d.describe() for d in parse_hooks_json(Path("/x/hooks.json"), data).diagnostics]


GROUP_CASES = [
    (
        [{"hooks": [{**C, "run_async": 1}]}],
        "[0][0]: invalid `run_async`: Input should be a valid boolean",
    ),
    (
        [{"hooks": [{**C, "run_async": True, "async": 1}]}],
        "[0][0]: invalid `async`: Input should be a valid boolean",
    ),
    (
        [{"hooks": [{**C, "commandWindows": 1, "command_windows": "a"}]}],
        "[0][0]: invalid `commandWindows`: Input should be a valid string",
    ),
    (
        [{"hooks": [{**C, "status_message": 1}]}],
        "[0][0]: invalid `status_message`: Input should be a valid string",
    ),
    (
        [{"hooks": [{**C, "additional_context_limit": "x"}]}],
        "[0][0]: invalid `additional_context_limit`: Input should be a valid integer",
    ),
    (
        [{"hooks": [{**C, "timeout": -1}]}],
        "[0][0]: invalid `timeout`: Input should be greater than or equal to 0",
    ),
    ([{"hooks": [{**C, "timeout": 2**64}]}], f"[0][0]: invalid `timeout`: {U64_ABOVE}"),
    (
        [{"hooks": [{**C, "additionalContextLimit": 2**64}]}],
        f"[0][0]: invalid `additionalContextLimit`: {U64_ABOVE}",
    ),
    (
        [{"hooks": [{**C, "timeout": 1.0}]}],
        "[0][0]: invalid `timeout`: Input should be a valid integer",
    ),
    (
        [{"hooks": [{**C, "timeout": True}]}],
        "[0][0]: invalid `timeout`: Input should be a valid integer",
    ),
    ([{"hooks": [{"type": "command"}]}], "[0][0]: missing field `command`"),
    ([{"hooks": [C, {"type": 1}]}], f"[0][1]: unknown variant `1`, {TAGS}"),
    ([{"hooks": [{"type": None}]}], f"[0][0]: unknown variant `None`, {TAGS}"),
    ([{"hooks": [{"type": [1]}]}], f"[0][0]: unknown variant `[1]`, {TAGS}"),
    ([{"hooks": [{"type": True}]}], f"[0][0]: unknown variant `True`, {TAGS}"),
    ([{"matcher": "x"}, {"hooks": [{"command": "c"}]}], "[1][0]: missing field `type`"),
    (
        [{"hooks": [5]}],
        "[0][0]: invalid `hooks`: Input should be a valid dictionary or object to extract"
        " fields from",
    ),
    ([{"hooks": []}, 5], f"[1]: invalid `value`: {INSTANCE} _Group"),
    (5, ": invalid `value`: Input should be a valid list"),
    ([{"matcher": 1, "hooks": 5}], "[0]: invalid `matcher`: Input should be a valid string"),
    (
        [{"hooks": [{**C, "timeout": "x"}]}, {"matcher": 1}],
        "[0][0]: invalid `timeout`: Input should be a valid integer",
    ),
    ([{"hooks": None}], "[0]: invalid `hooks`: Input should be a valid list"),
    (
        [{"hooks": [{**MCP, "tool": "t", "input": [1]}]}],
        "[0][0]: invalid `input`: Input should be a valid dictionary",
    ),
    (
        [{"hooks": [{**MCP, "tool": "t", "statusMessage": 2}]}],
        "[0][0]: invalid `statusMessage`: Input should be a valid string",
    ),
    ([{"hooks": [MCP]}], "[0][0]: missing field `tool`"),
]


@pytest.mark.parametrize(("groups", "reason"), GROUP_CASES)
def test_a_bad_hook_declaration_voids_the_file_with_serdes_words(groups: Any, reason: str) -> None:
    assert diagnostics(groups) == [f"/x/hooks.json: PreToolUse{reason}{VOID}"]


ROOT_CASES = [
    ([1], f"invalid `value`: {INSTANCE} _HooksFile"),
    ({"hooks": None}, "invalid `hooks`: Input should be a valid dictionary"),
    ({"x": 1, "hooks": 1}, "invalid `hooks`: Input should be a valid dictionary"),
    (
        {"hooks": {}, "description": 1, "$schema": 2},
        "invalid `description`: Input should be a valid string",
    ),
]


@pytest.mark.parametrize(("root", "reason"), ROOT_CASES)
def test_a_bad_root_voids_the_file(root: Any, reason: str) -> None:
    parsed = parse_hooks_json(Path("/x/hooks.json"), json.dumps(root).encode())
    assert [d.describe() for d in parsed.diagnostics] == [f"/x/hooks.json: {reason}{VOID}"]


def test_snake_case_keys_are_read_and_the_camel_case_key_wins() -> None:
    handler = {**C, "run_async": True, "command_windows": "w", "status_message": "s"}
    both = {**C, "async": True, "run_async": 1, "additional_context_limit": 7, "timeout": 2**64 - 1}
    data = json.dumps({"hooks": {"Stop": [{"hooks": [handler, both]}]}}).encode()
    parsed = parse_hooks_json(Path("/x/hooks.json"), data)
    assert parsed.diagnostics == ()
    first, second = (d.handler for d in parsed.handlers)
    assert first == CommandHandler(
        type="command", command="c", command_windows="w", run_async=True, status_message="s"
    )
    assert isinstance(second, CommandHandler)
    assert (second.run_async, second.additional_context_limit) == (True, 7)
    assert second.timeout == 2**64 - 1


def _run(event: str, answer: dict[str, Any]) -> HookRun:
    cmd = HookCommand(argv=("true",), timeout=1, origin=HookOrigin(source="t", event=event))
    return HookRun(
        command=cmd,
        pid=1,
        exit_code=0,
        signal=None,
        stdout=json.dumps(answer),
        stderr="",
        duration=0,
    )


SPEC = "hookSpecificOutput"
ANSWER_CASES = [
    ("Stop", {"continue_": 1}, "invalid `continue_`: Input should be a valid boolean"),
    ("Stop", {"continue": True, "continue_": False}, f"unknown field `continue_` {FORBIDS}"),
    ("Interrupt", {"continue_": False}, f"unknown field `continue_` {FORBIDS}"),
    ("PreToolUse", {SPEC: 1}, f"invalid `{SPEC}`: {INSTANCE} _PreToolSpecific"),
    (
        "PreToolUse",
        {SPEC: {"hookEventName": "PreToolUse", "permissionDecision": "x"}},
        f"invalid `{SPEC}.permissionDecision`: Input should be 'allow', 'deny' or 'ask'",
    ),
    (
        "PermissionRequest",
        {SPEC: {"hookEventName": "PermissionRequest", "decision": {"behavior": "x", "zz": 1}}},
        f"invalid `{SPEC}.decision.behavior`: Input should be 'allow' or 'deny'",
    ),
    (
        "PermissionRequest",
        {SPEC: {"hookEventName": "PermissionRequest", "decision": [1]}},
        f"invalid `{SPEC}.decision`: {INSTANCE} _PermissionRequestDecision",
    ),
    ("Stop", {"stopReason": 1, "zz": 1}, "invalid `stopReason`: Input should be a valid string"),
    ("PreToolUse", {SPEC: {"permissionDecision": "x"}}, f"missing field `{SPEC}.hookEventName`"),
    ("Stop", {"continue": 1.0}, "invalid `continue`: Input should be a valid boolean"),
    ("Stop", {"decision": "nope"}, "invalid `decision`: Input should be 'block' or 'approve'"),
    (
        "PreToolUse",
        {SPEC: {"hookEventName": "PreToolUse", "updatedInput": [1]}},
        f"invalid `{SPEC}.updatedInput`: Input should be a valid dictionary",
    ),
    (
        "SessionStart",
        {SPEC: {"hookEventName": "SessionStart", "additionalContext": 3}},
        f"invalid `{SPEC}.additionalContext`: Input should be a valid string",
    ),
]


@pytest.mark.parametrize(("event", "answer", "reason"), ANSWER_CASES)
def test_a_bad_answer_is_refused_in_the_same_words(
    event: str, answer: dict[str, Any], reason: str
) -> None:
    with pytest.raises(HookDecodeError) as info:
        decode_codex_answer(_run(event, answer), event)
    assert info.value.reason == f"hook {_run(event, answer).command.origin.describe()}: {reason}"


def test_continue_is_read_under_its_python_name_too() -> None:
    answer = decode_codex_answer(_run("Stop", {"continue_": False}), "Stop")
    assert answer is not None
    assert answer.halt
