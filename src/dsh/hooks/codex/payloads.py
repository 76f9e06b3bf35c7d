"""What a Codex hook gets on stdin: one ``TypedDict`` per event the bridge sends.

The keys are Codex 0.171's, declared in the order the bridge writes them
(and Codex writes them): ``session_id``, ``turn_id`` where the event has one,
``agent_id`` and ``agent_type`` inside a subagent, ``transcript_path``
(``null`` for a session without a log), ``cwd``, ``hook_event_name``,
``model`` and ``permission_mode`` where the event has them, then the event's
own fields; the model-request events have an order of their own. A
``NotRequired`` key is one the bridge sends only sometimes. The bridge builds
every payload as its event's type, so mypy checks each one, and the
conformance tests hold the recorded payloads of the real tool to these types.

For a hook written in Python::

    import json, sys
    from dsh.hooks.codex.payloads import PreToolUseHookInput

    payload: PreToolUseHookInput = json.load(sys.stdin)
    if payload["tool_name"] == "Bash":
        ...

``HOOK_INPUTS`` maps each event's name to its type.
"""

# No ``from __future__ import annotations``: Python 3.11's TypedDict tells a
# ``NotRequired`` key only from an evaluated annotation.

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, Literal, NotRequired, TypedDict

__all__ = [
    "HOOK_INPUTS",
    "InterruptHookInput",
    "PermissionRequestHookInput",
    "PostCompactHookInput",
    "PostModelRequestHookInput",
    "PostToolUseHookInput",
    "PreCompactHookInput",
    "PreModelRequestHookInput",
    "PreToolUseHookInput",
    "SessionEndHookInput",
    "SessionStartHookInput",
    "StopHookInput",
    "SubagentStartHookInput",
    "SubagentStopHookInput",
    "TokenUsage",
    "UserPromptSubmitHookInput",
]


class _TurnStart(TypedDict):
    session_id: str
    turn_id: str
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    transcript_path: str | None
    cwd: str


class _SessionStart(TypedDict):
    session_id: str
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    transcript_path: str | None
    cwd: str


class _SubagentStart(TypedDict):
    session_id: str
    turn_id: str
    agent_id: str
    agent_type: str
    transcript_path: str | None
    cwd: str


class SessionStartHookInput(_SessionStart):
    hook_event_name: Literal["SessionStart"]
    model: str
    permission_mode: str
    source: str


class UserPromptSubmitHookInput(_TurnStart):
    hook_event_name: Literal["UserPromptSubmit"]
    model: str
    permission_mode: str
    prompt: str


class PreToolUseHookInput(_TurnStart):
    hook_event_name: Literal["PreToolUse"]
    model: str
    permission_mode: str
    tool_name: str
    tool_input: Any
    tool_use_id: str | None


class PermissionRequestHookInput(_TurnStart):
    hook_event_name: Literal["PermissionRequest"]
    model: str
    permission_mode: str
    tool_name: str
    tool_input: Any


class PostToolUseHookInput(_TurnStart):
    hook_event_name: Literal["PostToolUse"]
    model: str
    permission_mode: str
    tool_name: str
    tool_input: Any
    tool_response: Any
    tool_use_id: str | None


class PreCompactHookInput(_TurnStart):
    hook_event_name: Literal["PreCompact"]
    model: str
    trigger: str


class PostCompactHookInput(_TurnStart):
    hook_event_name: Literal["PostCompact"]
    model: str
    trigger: str


class SubagentStartHookInput(_SubagentStart):
    hook_event_name: Literal["SubagentStart"]
    model: str
    permission_mode: str


class SubagentStopHookInput(_SubagentStart):
    hook_event_name: Literal["SubagentStop"]
    model: str
    permission_mode: str
    stop_hook_active: bool
    last_assistant_message: str | None
    agent_transcript_path: str | None


class StopHookInput(_TurnStart):
    hook_event_name: Literal["Stop"]
    model: str
    permission_mode: str
    stop_hook_active: bool
    last_assistant_message: str | None


class InterruptHookInput(_TurnStart):
    hook_event_name: Literal["Interrupt"]
    model: str
    permission_mode: str


class SessionEndHookInput(_SessionStart):
    hook_event_name: Literal["SessionEnd"]
    reason: str


class TokenUsage(TypedDict):
    """PostModelRequest's ``token_usage``: ``input_tokens`` counts the cached ones too."""

    input_tokens: int
    cached_input_tokens: int
    cache_write_input_tokens: int
    output_tokens: int
    reasoning_output_tokens: int
    total_tokens: int


class PreModelRequestHookInput(TypedDict):
    kind: str
    request_id: str
    attempt_number: int
    session_id: str
    thread_id: str
    turn_id: str | None
    cwd: str
    transcript_path: str | None
    model: str
    hook_event_name: Literal["PreModelRequest"]


class PostModelRequestHookInput(TypedDict):
    kind: str
    request_id: str
    attempt_number: int
    session_id: str
    thread_id: str
    turn_id: str | None
    cwd: str
    transcript_path: str | None
    model: str
    hook_event_name: Literal["PostModelRequest"]
    status: str
    error: str | None
    token_usage: TokenUsage | None
    response_id: str | None


HOOK_INPUTS: Final[Mapping[str, type[Mapping[str, Any]]]] = MappingProxyType(
    {
        "PreModelRequest": PreModelRequestHookInput,
        "PostModelRequest": PostModelRequestHookInput,
        "PreToolUse": PreToolUseHookInput,
        "PermissionRequest": PermissionRequestHookInput,
        "PostToolUse": PostToolUseHookInput,
        "PreCompact": PreCompactHookInput,
        "PostCompact": PostCompactHookInput,
        "SessionStart": SessionStartHookInput,
        "SessionEnd": SessionEndHookInput,
        "UserPromptSubmit": UserPromptSubmitHookInput,
        "SubagentStart": SubagentStartHookInput,
        "SubagentStop": SubagentStopHookInput,
        "Stop": StopHookInput,
        "Interrupt": InterruptHookInput,
    }
)
"""Each event the bridge sends, by name, to the type of its payload."""
