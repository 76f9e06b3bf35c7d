"""Codex 0.171's hook events: names, trust labels, matcher fields, timeouts, tool aliases.

One place for the vocabulary the catalog, the trust hash and the runtime share
(reference §1.2, §1.3, §1.5; the model-request pair from the 0.171 binary): the
fourteen event keys in Codex's own order (the
order its engine numbers handlers in, so a ``hook_run_id`` comes out as
Codex's), the snake-case label each one has in a trust key, which events test
a matcher and against what, and the timeout rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = [
    "CODEX_HOOK_EVENTS",
    "CONTEXT_LIMIT_EVENTS",
    "DEFAULT_TIMEOUT",
    "EVENT_LABELS",
    "EXIT2_EVENTS",
    "MATCHER_FIELDS",
    "OUTPUT_IGNORED_EVENTS",
    "SHORT_TIMEOUT_CAP",
    "SHORT_TIMEOUT_DEFAULT",
    "SHORT_TIMEOUT_EVENTS",
    "TOOL_ALIASES",
    "run_id_label",
]

CODEX_HOOK_EVENTS: Final = (
    "PreModelRequest",
    "PostModelRequest",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "Interrupt",
)
"""The event keys of ``hooks.json`` and ``[hooks]``, in Codex's order (``HookEventsToml``;
the model-request pair first, as the 0.171 binary's ``hooks/list`` numbers them)."""

EVENT_LABELS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "PreModelRequest": "pre_model_request",
        "PostModelRequest": "post_model_request",
        "PreToolUse": "pre_tool_use",
        "PermissionRequest": "permission_request",
        "PostToolUse": "post_tool_use",
        "PreCompact": "pre_compact",
        "PostCompact": "post_compact",
        "SessionStart": "session_start",
        "SessionEnd": "session_end",
        "UserPromptSubmit": "user_prompt_submit",
        "SubagentStart": "subagent_start",
        "SubagentStop": "subagent_stop",
        "Stop": "stop",
        "Interrupt": "interrupt",
    }
)
"""Each event's label in a trust key and in the trust hash's ``event_name``."""

MATCHER_FIELDS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "PreToolUse": "tool_name",
        "PermissionRequest": "tool_name",
        "PostToolUse": "tool_name",
        "SessionStart": "source",
        "SubagentStart": "agent_type",
        "SubagentStop": "agent_type",
        "PreCompact": "trigger",
        "PostCompact": "trigger",
        "SessionEnd": "reason",
    }
)
"""What each matcher-testing event's ``matcher`` is tested against; the others ignore it."""

EXIT2_EVENTS: Final = frozenset(
    {"PreToolUse", "PermissionRequest", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"}
)
"""Where exit 2 with non-empty stderr means block/deny/feedback; elsewhere it is a failure."""

CONTEXT_LIMIT_EVENTS: Final = frozenset(
    {"PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "SubagentStart"}
)
"""Where ``additionalContextLimit`` means something: the events whose output may carry
``additionalContext``. Elsewhere Codex 0.171 ignores it (with a warning) and leaves it out
of the trust hash (checked with the real binary: tests/hooks_codex/fixtures/codex-trust)."""

OUTPUT_IGNORED_EVENTS: Final = frozenset({"SessionEnd", "PreModelRequest", "PostModelRequest"})
"""Whose stdout Codex 0.171 ignores whatever it says (JSON, plain text, unknown keys): only a
non-zero exit counts, as a failed run (checked with the binary for the model-request pair)."""

DEFAULT_TIMEOUT: Final = 600
"""Seconds a handler may run unless it says otherwise (at least 1)."""

SHORT_TIMEOUT_EVENTS: Final = frozenset({"SessionEnd", "Interrupt"})
SHORT_TIMEOUT_DEFAULT: Final = 1
SHORT_TIMEOUT_CAP: Final = 3
"""SessionEnd and Interrupt: 1 s unless set, never more than 3 s (Codex clamps and warns)."""

TOOL_ALIASES: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "apply_patch": ("Write", "Edit"),
        "spawn_agent": ("Agent",),
        # dsh's own file tools are Codex's apply_patch to a matcher; its Agent is spawn_agent.
        "Write": ("apply_patch", "Edit"),
        "Edit": ("apply_patch", "Write"),
        "MultiEdit": ("apply_patch", "Write", "Edit"),
        "Agent": ("spawn_agent",),
    }
)
"""The other names a matcher may select a tool by (never sent on stdin)."""


def run_id_label(event: str) -> str:
    """The event as a ``hook_run_id`` names it: ``pre-tool-use``, ``stop``."""
    return EVENT_LABELS[event].replace("_", "-")
