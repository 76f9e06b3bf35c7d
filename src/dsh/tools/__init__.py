"""The tool registry, its five-phase pipeline, tool decisions and the built-in tools."""

from dsh.tools._signal import AbortedError, AbortSignal
from dsh.tools._types import (
    FAILURE_CODES,
    FailureCode,
    ToolBody,
    ToolDefinition,
    ToolInvocation,
    ToolResult,
    Workspace,
)

__all__ = [
    "FAILURE_CODES",
    "AbortSignal",
    "AbortedError",
    "FailureCode",
    "ToolBody",
    "ToolDefinition",
    "ToolInvocation",
    "ToolResult",
    "Workspace",
]
