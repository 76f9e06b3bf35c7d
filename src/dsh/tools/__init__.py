"""The tool registry, its five-phase pipeline and tool decisions (built-in tools: ``.builtin``).

``ToolRegistry`` (the ``TOOLS`` service) seals each call (after the
``tools/rewrite-input`` chain; ``seal``), then (``run``) runs the
``tools/pre-execute`` waterfall, the approval seam, the guards, the
``tools/execute`` wrappers around dispatch and the ``tools/post-execute``
waterfall, normalizes every failure to a stable code, and hands the final
result to the ``tools/result`` observers and the caller. Each call carries a
slot for listeners, ``call.state`` (``CallState``, read and written with a
typed ``CallStateKey``), from sealing until its result is final. The task seams' names
(``TASK_CREATED``, ``Task``, ...) load on first use: only the task tools and the hooks that
listen for them need them.
"""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.tools._call_state import CallState, CallStateKey
from dsh.tools._channels import (
    APPROVAL_REQUEST,
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    REWRITE_INPUT,
    ExecuteNext,
)
from dsh.tools._decisions import (
    GuardDenial,
    InputKeep,
    InputReplace,
    InputRewrite,
    InputRewriteVariant,
    PostToolAccept,
    PostToolBlock,
    PostToolDecision,
    PostToolVariant,
    PreToolAllow,
    PreToolAsk,
    PreToolDecision,
    PreToolDefer,
    PreToolDeny,
    PreToolVariant,
)
from dsh.tools._deferred import offered_tools
from dsh.tools._identity import (
    ProposedCall,
    ToolCall,
    ToolExecution,
    ToolExecutionResult,
    ToolRequest,
)
from dsh.tools._registry import TOOLS, ToolRegistrationError, ToolRegistry
from dsh.tools._seal import validate_arguments
from dsh.tools._types import (
    FailureCode,
    LazyModel,
    McpServerRef,
    OutputMismatchError,
    ToolBody,
    ToolCaller,
    ToolDefinition,
    ToolInvocation,
    ToolResult,
    Workspace,
)

if TYPE_CHECKING:
    from dsh.tools._phases import Guard
    from dsh.tools._tasks import (
        TASK_COMPLETED,
        TASK_CREATED,
        Task,
        TaskAllow,
        TaskBlock,
        TaskDecision,
        TaskStatus,
        TaskVariant,
    )

__all__ = [
    "APPROVAL_REQUEST",
    "EXECUTE",
    "POST_EXECUTE",
    "PRE_EXECUTE",
    "RESULT",
    "REWRITE_INPUT",
    "TASK_COMPLETED",
    "TASK_CREATED",
    "TOOLS",
    "CallState",
    "CallStateKey",
    "ExecuteNext",
    "FailureCode",
    "Guard",
    "GuardDenial",
    "InputKeep",
    "InputReplace",
    "InputRewrite",
    "InputRewriteVariant",
    "LazyModel",
    "McpServerRef",
    "OutputMismatchError",
    "PostToolAccept",
    "PostToolBlock",
    "PostToolDecision",
    "PostToolVariant",
    "PreToolAllow",
    "PreToolAsk",
    "PreToolDecision",
    "PreToolDefer",
    "PreToolDeny",
    "PreToolVariant",
    "ProposedCall",
    "Task",
    "TaskAllow",
    "TaskBlock",
    "TaskDecision",
    "TaskStatus",
    "TaskVariant",
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
    "offered_tools",
    "validate_arguments",
]

publish(globals())

__getattr__ = lazy(
    globals(),
    {
        "dsh.tools._phases": ("Guard",),  # a call's phases: imported at a tool's first call
        "dsh.tools._tasks": (
            "TASK_COMPLETED",
            "TASK_CREATED",
            "Task",
            "TaskAllow",
            "TaskBlock",
            "TaskDecision",
            "TaskStatus",
            "TaskVariant",
        ),
    },
)
