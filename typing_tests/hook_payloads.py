"""A hook's payload is typed per event: its keys, their types, the event's name."""

from __future__ import annotations

from typing import assert_type

from dsh.hooks.claude.payloads import PostToolUseHookInput, PreToolUseHookInput, StopHookInput
from dsh.hooks.codex.payloads import PreToolUseHookInput as CodexPreToolUse


def reads(pre: PreToolUseHookInput, stop: StopHookInput, codex: CodexPreToolUse) -> None:
    assert_type(pre["tool_name"], str)
    assert_type(pre["tool_use_id"], str | None)
    assert_type(stop["stop_hook_active"], bool)
    assert_type(codex["transcript_path"], str | None)
    pre["tool_respons"]  # type: ignore[typeddict-item]
    stop["tool_name"]  # type: ignore[typeddict-item]


def builds() -> PostToolUseHookInput:
    done: PostToolUseHookInput = {  # type: ignore[typeddict-item]
        "session_id": "s",
        "transcript_path": "/t.jsonl",
        "cwd": "/p",
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {},
        "tool_use_id": None,
    }
    wrong: PreToolUseHookInput = {
        "session_id": "s",
        "transcript_path": "/t.jsonl",
        "cwd": "/p",
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",  # type: ignore[typeddict-item]
        "tool_name": "Bash",
        "tool_input": {},
        "tool_use_id": None,
    }
    del wrong
    return done
