"""Helpers for the built-in tool tests: a direct call of a tool body, the recorded cases."""

from __future__ import annotations

import json
from typing import Any

from dsh.base import AbortSignal, freeze_json
from dsh.tools import ToolDefinition, ToolInvocation, ToolResult, Workspace
from tests.shared_paths import CONFORMANCE as SHARED_CONFORMANCE

CONFORMANCE = SHARED_CONFORMANCE / "claude"


async def call(
    tool: ToolDefinition, workspace: Workspace, signal: AbortSignal | None = None, **arguments: Any
) -> ToolResult:
    """Run ``tool``'s body as the registry would, with sealed (frozen) arguments."""
    return await call_with(tool, workspace, arguments, signal)


async def call_with(
    tool: ToolDefinition,
    workspace: Workspace,
    arguments: dict[str, Any],
    signal: AbortSignal | None = None,
) -> ToolResult:
    """``call`` with the arguments as a dict (for Grep's ``-i`` style names)."""
    model = tool.load_input_model()
    if model is not None:
        model.model_validate(arguments)
    return await tool.run(
        ToolInvocation(tool.name, freeze_json(arguments), workspace, signal=signal)
    )


def conformance_payloads(event: str, tool_name: str) -> list[dict[str, Any]]:
    """Every recorded ``event`` payload (``PreToolUse``, ...) of ``tool_name``."""
    found = []
    for path in sorted(CONFORMANCE.glob(f"*/{event}*.json")):
        payload = json.loads(path.read_text())["payload"]
        if payload.get("hook_event_name") == event and payload.get("tool_name") == tool_name:
            found.append(payload)
    return found
