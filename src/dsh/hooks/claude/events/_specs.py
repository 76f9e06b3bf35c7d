"""What Claude Code says about each hook event: matcher field, handler types, default timeout.

These are facts about the reference tool (``claude-code-hooks.md`` §1.3, §1.4, §3, §5),
independent of what this host runs; ``_support.py`` holds what dsh does with each event.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal, TypeAlias, final

from dsh._frozen import frozen

__all__ = [
    "CLAUDE_HOOK_EVENTS",
    "CLAUDE_HOOK_TYPES",
    "EFFORT_LEVEL",
    "EVENT_SPECS",
    "EventSpec",
    "HandlerType",
]

HandlerType: TypeAlias = Literal["command", "http", "mcp_tool", "prompt", "agent"]

CLAUDE_HOOK_TYPES: Final[tuple[HandlerType, ...]] = (
    "command",
    "http",
    "mcp_tool",
    "prompt",
    "agent",
)

_ALL: Final = frozenset(CLAUDE_HOOK_TYPES)
_NO_LLM: Final = frozenset({"command", "http", "mcp_tool"})
_START: Final = frozenset({"command", "mcp_tool"})

COMMAND_DEFAULT_TIMEOUT: Final = 600.0

EFFORT_LEVEL: Final = "medium"
"""The ``effort.level`` (and ``CLAUDE_EFFORT``) hooks get by default: 2.1.332's default model's."""


@final
@frozen(kw_only=True)
class EventSpec:
    """One Claude Code hook event as the reference describes it.

    ``matcher_field`` is the payload field the matcher is tested against (``None``:
    the event has no matcher support, a matcher is ignored); ``narrow_matcher``
    marks the events whose exact-name set is letters, digits, ``_`` and ``|`` only
    (``FileChanged``, ``StopFailure``); ``tool_event`` is where an ``if`` rule is
    evaluated (elsewhere a hook with ``if`` never runs); ``handler_types`` are the
    types Claude Code accepts on the event; ``default_timeout`` is the command-hook
    default in seconds; ``on_failure_ignored`` marks the events where Claude Code
    ignores ``onFailure: "block"`` (it would create loops).
    """

    matcher_field: str | None
    handler_types: frozenset[str] = _ALL
    default_timeout: float = COMMAND_DEFAULT_TIMEOUT
    narrow_matcher: bool = False
    tool_event: bool = False
    on_failure_ignored: bool = False


_TOOL: Final = EventSpec(matcher_field="tool_name", tool_event=True)


# In the order of the reference's §3 (lifecycle order, then standalone events).
_SPECS: Final[dict[str, EventSpec]] = {
    "SessionStart": EventSpec(matcher_field="source", handler_types=_START),
    "Setup": EventSpec(matcher_field="trigger", handler_types=_START),
    "InstructionsLoaded": EventSpec(matcher_field="load_reason", handler_types=_NO_LLM),
    "UserPromptSubmit": EventSpec(matcher_field=None, default_timeout=30.0),
    "UserPromptExpansion": EventSpec(matcher_field="command_name"),
    # 2.1.332: a custom command's or skill's shell command, before it runs.
    "PreSkillShellCommand": EventSpec(matcher_field="command_name", handler_types=_NO_LLM),
    "MessageDisplay": EventSpec(matcher_field=None, handler_types=_NO_LLM, default_timeout=10.0),
    "PreToolUse": _TOOL,
    "PermissionRequest": _TOOL,
    "PostToolUse": _TOOL,
    "PostToolUseFailure": _TOOL,
    "PostToolBatch": EventSpec(matcher_field=None),
    "PermissionDenied": _TOOL,
    "Notification": EventSpec(matcher_field="notification_type", handler_types=_NO_LLM),
    "SubagentStart": EventSpec(matcher_field="agent_type", handler_types=_NO_LLM),
    "SubagentStop": EventSpec(matcher_field="agent_type", on_failure_ignored=True),
    "TaskCreated": EventSpec(matcher_field=None),
    "TaskCompleted": EventSpec(matcher_field=None, on_failure_ignored=True),
    "Stop": EventSpec(matcher_field=None, on_failure_ignored=True),
    "StopFailure": EventSpec(matcher_field="error", handler_types=_NO_LLM, narrow_matcher=True),
    "TeammateIdle": EventSpec(matcher_field=None, on_failure_ignored=True),
    "ConfigChange": EventSpec(matcher_field="source", handler_types=_NO_LLM),
    "CwdChanged": EventSpec(matcher_field=None, handler_types=_NO_LLM),
    "DirectoryAdded": EventSpec(matcher_field="source", handler_types=_NO_LLM),
    "FileChanged": EventSpec(matcher_field="file_path", handler_types=_NO_LLM, narrow_matcher=True),
    "WorktreeCreate": EventSpec(matcher_field=None, handler_types=_NO_LLM),
    "WorktreeRemove": EventSpec(matcher_field=None, handler_types=_NO_LLM),
    "PreCompact": EventSpec(matcher_field="trigger", handler_types=_NO_LLM),
    "PostCompact": EventSpec(matcher_field="trigger", handler_types=_NO_LLM),
    "PreModelSwitch": EventSpec(
        matcher_field="to_model", handler_types=_NO_LLM, default_timeout=30.0
    ),
    "PostModelSwitch": EventSpec(matcher_field="to_model", default_timeout=30.0),
    "Elicitation": EventSpec(matcher_field="mcp_server_name", handler_types=_NO_LLM),
    "ElicitationResult": EventSpec(matcher_field="mcp_server_name", handler_types=_NO_LLM),
    "SessionEnd": EventSpec(matcher_field="reason", handler_types=_NO_LLM),
}

EVENT_SPECS: Final[Mapping[str, EventSpec]] = MappingProxyType(_SPECS)
"""Every Claude Code hook event (the reference's 33 and 2.1.332's PreSkillShellCommand)."""

CLAUDE_HOOK_EVENTS: Final[tuple[str, ...]] = tuple(_SPECS)
