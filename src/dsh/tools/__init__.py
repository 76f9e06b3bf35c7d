"""The tool registry, its five-phase pipeline, tool decisions and the built-in tools.

``ToolRegistry`` (the ``TOOLS`` service) seals each call (after the
``tools/rewrite-input`` chain; ``seal``), then (``run``) runs the
``tools/pre-execute`` waterfall, the approval seam, the guards, the
``tools/execute`` wrappers around dispatch and the ``tools/post-execute``
waterfall, normalizes every failure to a stable code, and hands the final
result to the ``tools/result`` observers and the caller. Each call carries a
slot for listeners, ``call.state`` (``CallState``, read and written with a
typed ``CallStateKey``), from sealing until its result is final.
"""

from dsh.base import AbortedError, AbortSignal
from dsh.tools._call_state import CallState, CallStateKey
from dsh.tools._channels import (
    APPROVAL_REQUEST,
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    REWRITE_INPUT,
    ExecuteChannel,
    ExecuteListener,
    ExecuteNext,
    RewriteChannel,
    RewriteListener,
)
from dsh.tools._decisions import (
    GuardDenial,
    InputKeep,
    InputReplace,
    InputRewrite,
    InputRewriteVerdict,
    PostToolAccept,
    PostToolBlock,
    PostToolDecision,
    PostToolVerdict,
    PreToolAllow,
    PreToolAsk,
    PreToolDecision,
    PreToolDeny,
    PreToolVerdict,
)
from dsh.tools._deferred import (
    TOOL_SEARCH,
    deferred_announcement,
    loaded_tools,
    offered_tools,
)
from dsh.tools._identity import (
    CallToken,
    ProposedCall,
    ToolCall,
    ToolExecution,
    ToolExecutionResult,
    ToolRequest,
)
from dsh.tools._phases import Guard
from dsh.tools._registry import TOOLS, ToolRegistrationError, ToolRegistry
from dsh.tools._seal import SealFailure, validate_arguments
from dsh.tools._tasks import (
    TASK_COMPLETED,
    TASK_CREATED,
    Task,
    TaskAllow,
    TaskBlock,
    TaskDecision,
    TaskStatus,
    TaskVerdict,
)
from dsh.tools._types import (
    FAILURE_CODES,
    FailureCode,
    LazyModel,
    ModelRef,
    OutputMismatchError,
    OutputPresenter,
    ToolBody,
    ToolCaller,
    ToolDefinition,
    ToolInvocation,
    ToolResult,
    Workspace,
    load_model,
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
    ShellRun,
    builtin_tools,
    run_shell,
)

__all__ = [
    "APPROVAL_REQUEST",
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
    "REWRITE_INPUT",
    "TASK_COMPLETED",
    "TASK_CREATED",
    "TOOLS",
    "TOOL_SEARCH",
    "WRITE_TOOL",
    "AbortSignal",
    "AbortedError",
    "CallState",
    "CallStateKey",
    "CallToken",
    "ExecuteChannel",
    "ExecuteListener",
    "ExecuteNext",
    "FailureCode",
    "Guard",
    "GuardDenial",
    "InputKeep",
    "InputReplace",
    "InputRewrite",
    "InputRewriteVerdict",
    "LazyModel",
    "ModelRef",
    "OutputMismatchError",
    "OutputPresenter",
    "PostToolAccept",
    "PostToolBlock",
    "PostToolDecision",
    "PostToolVerdict",
    "PreToolAllow",
    "PreToolAsk",
    "PreToolDecision",
    "PreToolDeny",
    "PreToolVerdict",
    "ProposedCall",
    "RewriteChannel",
    "RewriteListener",
    "SealFailure",
    "ShellRun",
    "Task",
    "TaskAllow",
    "TaskBlock",
    "TaskDecision",
    "TaskStatus",
    "TaskVerdict",
    "ToolBody",
    "ToolCall",
    "ToolCaller",
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
    "deferred_announcement",
    "load_model",
    "loaded_tools",
    "offered_tools",
    "run_shell",
    "validate_arguments",
]
