"""The tool registry, its five-phase pipeline, tool decisions and the built-in tools.

``ToolRegistry`` (the ``TOOLS`` service) seals each call, runs the
``tools/pre-execute`` waterfall, the approval seam, the guards, the
``tools/execute`` wrappers around dispatch and the ``tools/post-execute``
waterfall, normalizes every failure to a stable code, and hands the final
result to the ``tools/result`` observers and the caller.
"""

from dsh.tools._channels import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    ExecuteChannel,
    ExecuteListener,
    ExecuteNext,
)
from dsh.tools._decisions import GuardDenial, PostToolDecision, PreToolDecision
from dsh.tools._identity import (
    CallToken,
    ToolCall,
    ToolExecution,
    ToolExecutionResult,
    ToolRequest,
)
from dsh.tools._registry import TOOLS, Guard, ToolRegistrationError, ToolRegistry
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

# Last: the built-in tools stand on the names above.
from dsh.tools.builtin import (
    BASH_TOOL,
    EDIT_TOOL,
    GLOB_TOOL,
    GREP_TOOL,
    MULTI_EDIT_TOOL,
    READ_TOOL,
    WRITE_TOOL,
    builtin_tools,
)

__all__ = [
    "BASH_TOOL",
    "EDIT_TOOL",
    "EXECUTE",
    "FAILURE_CODES",
    "GLOB_TOOL",
    "GREP_TOOL",
    "MULTI_EDIT_TOOL",
    "POST_EXECUTE",
    "PRE_EXECUTE",
    "READ_TOOL",
    "RESULT",
    "TOOLS",
    "WRITE_TOOL",
    "AbortSignal",
    "AbortedError",
    "CallToken",
    "ExecuteChannel",
    "ExecuteListener",
    "ExecuteNext",
    "FailureCode",
    "Guard",
    "GuardDenial",
    "PostToolDecision",
    "PreToolDecision",
    "ToolBody",
    "ToolCall",
    "ToolDefinition",
    "ToolExecution",
    "ToolExecutionResult",
    "ToolInvocation",
    "ToolRegistrationError",
    "ToolRegistry",
    "ToolRequest",
    "ToolResult",
    "Workspace",
    "builtin_tools",
]
