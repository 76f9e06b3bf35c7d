"""What a Claude Code hook gets on stdin: one ``TypedDict`` per event the bridge sends.

The keys are Claude Code 2.1.332's, declared in the order the bridge writes
them (and Claude Code writes them): the session's ``session_id``,
``transcript_path`` and ``cwd``; then, where the event has them,
``prompt_id``, ``permission_mode``, ``agent_id`` and ``agent_type`` (inside a
subagent) and ``effort``; then ``hook_event_name``; then the event's own
fields. A ``NotRequired`` key is one the bridge sends only sometimes (no
``prompt_id`` before the session's first prompt, no ``effort`` when it is
turned off). The bridge builds every payload as its event's type, so mypy
checks each one, and the conformance tests hold the recorded payloads of the
real tool to these types.

For a hook written in Python::

    import json, sys
    from dsh.hooks.claude.payloads import PreToolUseHookInput

    payload: PreToolUseHookInput = json.load(sys.stdin)
    if payload["tool_name"] == "Bash" and "rm -rf" in payload["tool_input"].get("command", ""):
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
    "BaseHookInput",
    "ConfigChangeHookInput",
    "CwdChangedHookInput",
    "DirectoryAddedHookInput",
    "Effort",
    "ElicitationHookInput",
    "ElicitationResultHookInput",
    "FileChangedHookInput",
    "InstructionsLoadedHookInput",
    "McpServerInfo",
    "MessageDisplayHookInput",
    "NotificationHookInput",
    "PermissionDeniedHookInput",
    "PermissionRequestHookInput",
    "PostCompactHookInput",
    "PostModelSwitchHookInput",
    "PostToolBatchCall",
    "PostToolBatchHookInput",
    "PostToolUseFailureHookInput",
    "PostToolUseHookInput",
    "PreCompactHookInput",
    "PreModelSwitchHookInput",
    "PreSkillShellCommandHookInput",
    "PreToolUseHookInput",
    "SessionEndHookInput",
    "SessionStartHookInput",
    "SetupHookInput",
    "StopFailureHookInput",
    "StopHookInput",
    "SubagentStartHookInput",
    "SubagentStopHookInput",
    "TaskCompletedHookInput",
    "TaskCreatedHookInput",
    "UserPromptExpansionHookInput",
    "UserPromptSubmitHookInput",
    "WorktreeCreateHookInput",
    "WorktreeRemoveHookInput",
]


class McpServerInfo(TypedDict):
    """``mcp_server``: the MCP server of an ``mcp__`` tool (``{"name": ..., "source": ...}``,
    the source ``project``, ``user``, ``local``, ``dynamic`` or ``plugin``), the last key."""

    name: str
    source: str


class Effort(TypedDict):
    """``effort``: the reasoning effort of the session's model (``{"level": "medium"}``)."""

    level: str


class BaseHookInput(TypedDict):
    """The keys every event starts with."""

    session_id: str
    transcript_path: str
    cwd: str


class SetupHookInput(BaseHookInput):
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    hook_event_name: Literal["Setup"]
    trigger: str


class SessionStartHookInput(BaseHookInput):
    """``model`` on ``source: "compact"``; the four resume figures on ``"resume"``."""

    prompt_id: NotRequired[str]
    hook_event_name: Literal["SessionStart"]
    source: str
    model: NotRequired[str]
    seconds_since_last_response: NotRequired[int]
    context_tokens: NotRequired[int]
    prompt_cache_likely_expired: NotRequired[bool]
    estimated_cache_write_usd: NotRequired[float]


class InstructionsLoadedHookInput(BaseHookInput):
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    hook_event_name: Literal["InstructionsLoaded"]
    file_path: str
    memory_type: str
    load_reason: str
    globs: NotRequired[list[str]]
    trigger_file_path: NotRequired[str]
    parent_file_path: NotRequired[str]


class UserPromptSubmitHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    permission_mode: str
    hook_event_name: Literal["UserPromptSubmit"]
    prompt: str


class UserPromptExpansionHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    permission_mode: str
    hook_event_name: Literal["UserPromptExpansion"]
    expansion_type: str
    command_name: str
    command_args: str
    command_source: str
    prompt: str


class PreSkillShellCommandHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    permission_mode: str
    effort: NotRequired[Effort]
    hook_event_name: Literal["PreSkillShellCommand"]
    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str
    command_name: str
    command_source: str
    invoked_by: str


class MessageDisplayHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    hook_event_name: Literal["MessageDisplay"]
    turn_id: str
    message_id: str
    index: int
    final: bool
    delta: str


class PreToolUseHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    permission_mode: str
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    effort: NotRequired[Effort]
    hook_event_name: Literal["PreToolUse"]
    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str | None
    mcp_server: NotRequired[McpServerInfo]


class PermissionRequestHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    permission_mode: str
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    effort: NotRequired[Effort]
    hook_event_name: Literal["PermissionRequest"]
    tool_name: str
    tool_input: dict[str, Any]
    permission_suggestions: NotRequired[list[dict[str, Any]]]
    mcp_server: NotRequired[McpServerInfo]


class PostToolUseHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    permission_mode: str
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    effort: NotRequired[Effort]
    hook_event_name: Literal["PostToolUse"]
    tool_name: str
    tool_input: dict[str, Any]
    tool_response: Any
    tool_use_id: str | None
    duration_ms: int
    mcp_server: NotRequired[McpServerInfo]


class PostToolUseFailureHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    permission_mode: str
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    effort: NotRequired[Effort]
    hook_event_name: Literal["PostToolUseFailure"]
    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str | None
    error: str
    is_interrupt: bool
    duration_ms: int
    mcp_server: NotRequired[McpServerInfo]


class PostToolBatchCall(TypedDict):
    """One call of the batch: the model's own input, and the content its result gave."""

    tool_name: str
    tool_input: Any
    tool_use_id: str | None
    tool_response: Any


class PostToolBatchHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    permission_mode: str
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    effort: NotRequired[Effort]
    hook_event_name: Literal["PostToolBatch"]
    tool_calls: list[PostToolBatchCall]


class PermissionDeniedHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    permission_mode: str
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    effort: NotRequired[Effort]
    hook_event_name: Literal["PermissionDenied"]
    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str | None
    reason: str


class SubagentStartHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    agent_id: str
    agent_type: str
    hook_event_name: Literal["SubagentStart"]


class SubagentStopHookInput(BaseHookInput):
    """Also the compaction's (``agent_type: ""``), as 2.1.332 sends it."""

    prompt_id: NotRequired[str]
    permission_mode: str
    agent_id: str
    agent_type: str
    effort: NotRequired[Effort]
    hook_event_name: Literal["SubagentStop"]
    stop_hook_active: bool
    agent_transcript_path: str
    last_assistant_message: str
    background_tasks: list[dict[str, str]]
    session_crons: list[Any]


class TaskCreatedHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    hook_event_name: Literal["TaskCreated"]
    task_id: str
    task_subject: str
    task_description: str | None


class TaskCompletedHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    hook_event_name: Literal["TaskCompleted"]
    task_id: str
    task_subject: str
    task_description: str | None


class StopHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    permission_mode: str
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    effort: NotRequired[Effort]
    hook_event_name: Literal["Stop"]
    stop_hook_active: bool
    last_assistant_message: str
    background_tasks: list[dict[str, str]]
    session_crons: list[Any]


class StopFailureHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    effort: NotRequired[Effort]
    hook_event_name: Literal["StopFailure"]
    error: str
    last_assistant_message: str


class CwdChangedHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    hook_event_name: Literal["CwdChanged"]
    old_cwd: str
    new_cwd: str


class DirectoryAddedHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    hook_event_name: Literal["DirectoryAdded"]
    directory: str
    source: str


class PreCompactHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    hook_event_name: Literal["PreCompact"]
    trigger: str
    custom_instructions: str | None


class PostCompactHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    hook_event_name: Literal["PostCompact"]
    trigger: str
    compact_summary: str


class PreModelSwitchHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    hook_event_name: Literal["PreModelSwitch"]
    from_model: str
    to_model: str
    requested_model: str
    source: str
    context_tokens: int
    prompt_cache_warm: bool
    cache_ttl: str
    estimated_cache_write_usd: float
    pricing: str


class PostModelSwitchHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    hook_event_name: Literal["PostModelSwitch"]
    from_model: str
    to_model: str
    requested_model: str
    source: str
    context_tokens: int
    prompt_cache_warm: bool
    cache_ttl: str
    estimated_cache_write_usd: float
    pricing: str


class SessionEndHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    hook_event_name: Literal["SessionEnd"]
    reason: str


class ElicitationHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    hook_event_name: Literal["Elicitation"]
    mcp_server_name: str
    message: str
    mode: str
    requested_schema: NotRequired[dict[str, Any]]


class ConfigChangeHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    hook_event_name: Literal["ConfigChange"]
    source: str
    file_path: str


class WorktreeCreateHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    hook_event_name: Literal["WorktreeCreate"]
    name: str


class WorktreeRemoveHookInput(BaseHookInput):
    hook_event_name: Literal["WorktreeRemove"]
    worktree_path: str


class FileChangedHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    hook_event_name: Literal["FileChanged"]
    file_path: str
    event: str


class NotificationHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    hook_event_name: Literal["Notification"]
    message: str
    title: NotRequired[str]
    notification_type: str


class ElicitationResultHookInput(BaseHookInput):
    prompt_id: NotRequired[str]
    agent_id: NotRequired[str]
    agent_type: NotRequired[str]
    hook_event_name: Literal["ElicitationResult"]
    mcp_server_name: str
    elicitation_id: NotRequired[str]
    mode: str
    action: str
    content: NotRequired[dict[str, Any]]


HOOK_INPUTS: Final[Mapping[str, type[Mapping[str, Any]]]] = MappingProxyType(
    {
        "Setup": SetupHookInput,
        "SessionStart": SessionStartHookInput,
        "InstructionsLoaded": InstructionsLoadedHookInput,
        "UserPromptSubmit": UserPromptSubmitHookInput,
        "UserPromptExpansion": UserPromptExpansionHookInput,
        "PreSkillShellCommand": PreSkillShellCommandHookInput,
        "MessageDisplay": MessageDisplayHookInput,
        "PreToolUse": PreToolUseHookInput,
        "PermissionRequest": PermissionRequestHookInput,
        "PostToolUse": PostToolUseHookInput,
        "PostToolUseFailure": PostToolUseFailureHookInput,
        "PostToolBatch": PostToolBatchHookInput,
        "PermissionDenied": PermissionDeniedHookInput,
        "SubagentStart": SubagentStartHookInput,
        "SubagentStop": SubagentStopHookInput,
        "TaskCreated": TaskCreatedHookInput,
        "TaskCompleted": TaskCompletedHookInput,
        "Stop": StopHookInput,
        "StopFailure": StopFailureHookInput,
        "CwdChanged": CwdChangedHookInput,
        "DirectoryAdded": DirectoryAddedHookInput,
        "PreCompact": PreCompactHookInput,
        "PostCompact": PostCompactHookInput,
        "PreModelSwitch": PreModelSwitchHookInput,
        "PostModelSwitch": PostModelSwitchHookInput,
        "SessionEnd": SessionEndHookInput,
        "Elicitation": ElicitationHookInput,
        "ConfigChange": ConfigChangeHookInput,
        "WorktreeCreate": WorktreeCreateHookInput,
        "WorktreeRemove": WorktreeRemoveHookInput,
        "FileChanged": FileChangedHookInput,
        "Notification": NotificationHookInput,
        "ElicitationResult": ElicitationResultHookInput,
    }
)
"""Each event the bridge sends, by name, to the type of its payload."""
