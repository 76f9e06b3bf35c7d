"""The tools 2.1.332 defers that dsh lists but does not run yet.

Each is registered with 2.1.332's name, description and input schema, deferred as 2.1.332
defers it, so ToolSearch finds and loads the same tools 2.1.332's does (``total_deferred_tools``
counts them). A call is an error result saying the tool is not available in dsh and why, so
a model reads a clear answer rather than an unknown tool.
"""

from __future__ import annotations

from dsh.tools._types import ToolDefinition, ToolInvocation, ToolResult
from dsh.tools.builtin._deferred_schemas import DESCRIPTIONS, SCHEMAS

__all__ = ["UNAVAILABLE_TOOLS", "not_available"]

_WHY: dict[str, str] = {
    "CronCreate": "dsh does not schedule prompts; run the prompt again yourself, or use Bash",
    "CronDelete": "dsh does not schedule prompts, so there is no job to cancel",
    "CronList": "dsh does not schedule prompts, so there are no jobs",
    "Monitor": "use Bash with run_in_background and read its output file instead",
    "EnterWorktree": "start the session with `dsh run --worktree NAME` instead",
    "ExitWorktree": "dsh sessions cannot enter a worktree mid-session",
    "WebSearch": "dsh has no web search",
}


def not_available(name: str) -> str:
    """The error text a call of the unavailable tool ``name`` gets."""
    why = _WHY.get(name)
    return f"{name} is not available in dsh" + (f": {why}." if why else ".")


def _unavailable(name: str) -> ToolDefinition:
    async def run(invocation: ToolInvocation) -> ToolResult:
        return ToolResult.error(not_available(invocation.name), code="TOOL_ERROR")

    return ToolDefinition(
        name=name,
        description=DESCRIPTIONS[name],
        input_schema=SCHEMAS[name],
        run=run,
        deferred=True,
    )


UNAVAILABLE_TOOLS: tuple[ToolDefinition, ...] = tuple(
    _unavailable(name)
    for name in (
        "CronCreate",
        "CronDelete",
        "CronList",
        "EnterWorktree",
        "ExitWorktree",
        "Monitor",
        "WebSearch",
    )
)
