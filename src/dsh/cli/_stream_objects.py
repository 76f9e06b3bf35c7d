"""The shapes of Claude Code's ``claude -p`` stream-json objects (2.1.332's recordings).

Pure values, no session state: a ``system`` line, an ``assistant`` line for one content
block, a ``user`` line, the ``init`` fields, a SessionStart hook's ``hook_started`` /
``hook_response`` pair, ``usage``, timestamps, and the table of how each way a turn ends
is reported in ``result`` (``subtype``, ``is_error``, ``terminal_reason``,
``stop_reason``). ``StreamJson`` (``_stream_json``) decides which of them a session's
events make, and when.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime
from typing import Any

from dsh import __version__
from dsh.messages import Usage
from dsh.session import SessionEvent, TurnEndReason

__all__ = [
    "API_ERRORS",
    "CLAUDE_CODE_VERSION",
    "ENDINGS",
    "HTTP_STATUS",
    "STOP_REASONS",
    "assistant_line",
    "field",
    "hook_response",
    "hook_started",
    "init_fields",
    "js_number",
    "plain",
    "system_line",
    "timestamp",
    "usage_fields",
    "user_line",
]

CLAUDE_CODE_VERSION = "2.1.332"
"""The ``claude -p`` release whose output shapes these are (its recordings')."""

_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)

HTTP_STATUS = re.compile(r"\bHTTP (\d{3})\b")
API_ERRORS = {401: "authentication_failed", 403: "permission_denied", 429: "rate_limit"}

# Claude Code's stop_reason by terminal_reason (an API error's synthetic message "stops").
STOP_REASONS = {
    "completed": "end_turn",
    "api_error": "stop_sequence",
    "tool_deferred": "tool_deferred",
}

# (subtype, is_error, terminal_reason) for each way a turn ends.
ENDINGS: dict[TurnEndReason, tuple[str, bool, str]] = {
    TurnEndReason.completed: ("success", False, "completed"),
    TurnEndReason.stopped: ("success", False, "completed"),
    TurnEndReason.rejected: ("success", False, "prompt_blocked"),
    TurnEndReason.error: ("success", True, "api_error"),
    TurnEndReason.max_steps: ("error_max_turns", True, "max_turns"),
    TurnEndReason.aborted: ("error_during_execution", True, "aborted"),
    TurnEndReason.deferred: ("success", False, "tool_deferred"),
}


def usage_fields(usage: Usage | None = None) -> dict[str, int]:
    if usage is None:
        return dict.fromkeys(_USAGE_KEYS, 0)
    return {key: getattr(usage, key) for key in _USAGE_KEYS}


def timestamp(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def system_line(subtype: str, session_id: str, **fields: Any) -> dict[str, Any]:
    return {"type": "system", "subtype": subtype, **fields, "session_id": session_id}


def init_fields(
    *,
    cwd: str,
    tools: list[str],
    mcp_servers: list[dict[str, str]],
    model: str,
    permission_mode: str,
) -> dict[str, Any]:
    """The fields of ``system`` ``init`` (2.1.332's, with ``dsh_version`` added)."""
    return {
        "cwd": cwd,
        "tools": tools,
        "mcp_servers": mcp_servers,
        "model": model,
        "permissionMode": permission_mode,
        "slash_commands": ["compact"],
        "apiKeySource": "none",
        "claude_code_version": CLAUDE_CODE_VERSION,
        "dsh_version": __version__,
        "output_style": "default",
        "agents": ["general-purpose"],
        "skills": [],
        "plugins": [],
        "uuid": str(uuid.uuid4()),
        "sandbox_enabled": False,
        "memory_paths": {},
        "original_cwd": cwd,
        "additional_directories": [],
    }


def hook_started(event: SessionEvent, session_id: str, hook_name: str) -> dict[str, Any]:
    """A SessionStart hook's ``hook_started`` line, from its ``hook/invocation``."""
    return system_line(
        "hook_started",
        session_id,
        hook_id=event.id,
        hook_name=hook_name,
        hook_event="SessionStart",
        uuid=event.id,
    )


def hook_response(event: SessionEvent, session_id: str, hook_name: str) -> dict[str, Any]:
    """A SessionStart hook's ``hook_response`` line, from its ``hook/result``."""
    code = field(event, "exit_code")
    stderr = str(field(event, "stderr") or "")
    outcome = "success" if code == 0 else "cancelled" if field(event, "cancelled") else "error"
    return system_line(
        "hook_response",
        session_id,
        hook_id=field(event, "invocation_id") or event.id,
        hook_name=hook_name,
        hook_event="SessionStart",
        output=stderr,
        stdout="",
        stderr=stderr,
        exit_code=code,
        outcome=outcome,
        uuid=event.id,
    )


def assistant_line(
    *,
    when: float,
    message: str,
    model: str,
    session_id: str,
    block: dict[str, Any],
    usage: Usage | None = None,
) -> dict[str, Any]:
    """An ``assistant`` line carrying one content block of the reply ``message``."""
    return {
        "type": "assistant",
        "message": {
            "id": f"msg_{message.replace('-', '')[:20]}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage_fields(usage),
            "context_management": None,
        },
        "parent_tool_use_id": None,
        "session_id": session_id,
        "uuid": str(uuid.uuid4()),
        "timestamp": timestamp(when),
    }


def user_line(
    block: dict[str, Any], event: SessionEvent, session_id: str, **extra: Any
) -> dict[str, Any]:
    """A ``user`` line carrying one content block (a tool result, a synthetic prompt)."""
    return {
        "type": "user",
        "message": {"role": "user", "content": [block]},
        "parent_tool_use_id": None,
        "session_id": session_id,
        "uuid": str(uuid.uuid4()),
        "timestamp": timestamp(event.time),
        **extra,
    }


def js_number(value: float) -> str:
    """``value`` as JavaScript writes a number in a template (``5``, ``0.25``)."""
    return str(int(value)) if value.is_integer() else repr(value)


def field(event: SessionEvent, name: str) -> Any:
    return getattr(event, name, None)


def plain(value: Any) -> Any:
    """Frozen JSON (``FrozenDict``, tuples) as plain JSON values."""
    return json.loads(json.dumps(value, default=_as_plain))


def _as_plain(value: Any) -> Any:
    if isinstance(value, dict) or hasattr(value, "items"):
        return dict(value.items())
    if isinstance(value, (tuple, frozenset)):
        return list(value)
    return str(value)
