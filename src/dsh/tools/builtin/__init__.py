"""The built-in tools, with Claude Code's tool names and input field names.

``Bash``, ``Read``, ``Write``, ``Edit``, ``MultiEdit``, ``Glob``, ``Grep`` and
the task tools (``TaskCreate``, ``TaskGet``, ``TaskList``, ``TaskUpdate``, deferred) and
``ToolSearch``, which loads deferred tools,
each a ``ToolDefinition`` whose ``output`` has the shape Claude Code hooks
receive as ``tool_response``, described by its ``output_model`` (``BashOutput``,
...) and rendered as the model sees it by its ``present``. Paths resolve against the invocation's
``Workspace`` (relative ones against its ``cwd``).
"""

from typing import TYPE_CHECKING, Any

from dsh.tools._types import ToolDefinition
from dsh.tools.builtin._bash import (
    BASH_TOOL,
    DEFAULT_TIMEOUT_MS,
    MAX_OUTPUT_CHARS,
    MAX_TIMEOUT_MS,
    BackgroundShell,
    background_shell,
)
from dsh.tools.builtin._glob import GLOB_TOOL, MAX_GLOB_RESULTS
from dsh.tools.builtin._grep import GREP_TOOL, grep_tool
from dsh.tools.builtin._read import DEFAULT_READ_LIMIT, READ_TOOL
from dsh.tools.builtin._shell import ShellRun, run_shell
from dsh.tools.builtin._tasks import (
    TASK_CREATE_TOOL,
    TASK_GET_TOOL,
    TASK_LIST_TOOL,
    TASK_UPDATE_TOOL,
    TASKS_STATE_KEY,
    session_tasks,
)
from dsh.tools.builtin._tool_search import DEFAULT_MAX_RESULTS, TOOL_SEARCH_TOOL, search_tools
from dsh.tools.builtin._write import EDIT_TOOL, MULTI_EDIT_TOOL, WRITE_TOOL

if TYPE_CHECKING:
    from dsh.tools.builtin._models import (
        BashInput,
        BashOutput,
        EditInput,
        EditOperation,
        EditOutput,
        GlobInput,
        GlobOutput,
        GrepInput,
        GrepOutput,
        MultiEditInput,
        MultiEditOutput,
        ReadInput,
        ReadOutput,
        ToolSearchInput,
        ToolSearchOutput,
        WriteInput,
        WriteOutput,
    )
    from dsh.tools.builtin._task_io import (
        TaskCreateInput,
        TaskCreateOutput,
        TaskGetInput,
        TaskGetOutput,
        TaskListInput,
        TaskListOutput,
        TaskUpdateInput,
        TaskUpdateOutput,
    )

__all__ = [
    "BASH_TOOL",
    "DEFAULT_MAX_RESULTS",
    "DEFAULT_READ_LIMIT",
    "DEFAULT_TIMEOUT_MS",
    "EDIT_TOOL",
    "GLOB_TOOL",
    "GREP_TOOL",
    "MAX_GLOB_RESULTS",
    "MAX_OUTPUT_CHARS",
    "MAX_TIMEOUT_MS",
    "MULTI_EDIT_TOOL",
    "READ_TOOL",
    "TASKS_STATE_KEY",
    "TASK_CREATE_TOOL",
    "TASK_GET_TOOL",
    "TASK_LIST_TOOL",
    "TASK_UPDATE_TOOL",
    "TOOL_SEARCH_TOOL",
    "WRITE_TOOL",
    "BackgroundShell",
    "BashInput",
    "BashOutput",
    "EditInput",
    "EditOperation",
    "EditOutput",
    "GlobInput",
    "GlobOutput",
    "GrepInput",
    "GrepOutput",
    "MultiEditInput",
    "MultiEditOutput",
    "ReadInput",
    "ReadOutput",
    "ShellRun",
    "TaskCreateInput",
    "TaskCreateOutput",
    "TaskGetInput",
    "TaskGetOutput",
    "TaskListInput",
    "TaskListOutput",
    "TaskUpdateInput",
    "TaskUpdateOutput",
    "ToolSearchInput",
    "ToolSearchOutput",
    "WriteInput",
    "WriteOutput",
    "background_shell",
    "builtin_tools",
    "grep_tool",
    "run_shell",
    "search_tools",
    "session_tasks",
]


def builtin_tools() -> tuple[ToolDefinition, ...]:
    """Bash, Read, Write, Edit, MultiEdit, Glob, Grep, TaskCreate, TaskGet, TaskList, TaskUpdate
    (the task tools deferred) and ToolSearch."""
    return (
        BASH_TOOL,
        READ_TOOL,
        WRITE_TOOL,
        EDIT_TOOL,
        MULTI_EDIT_TOOL,
        GLOB_TOOL,
        GREP_TOOL,
        TASK_CREATE_TOOL,
        TASK_GET_TOOL,
        TASK_LIST_TOOL,
        TASK_UPDATE_TOOL,
        TOOL_SEARCH_TOOL,
    )


# The pydantic models (the names of __all__ not bound above), imported with pydantic when
# one is first asked for: the tools name them lazily, so importing the tools imports none.
def __getattr__(name: str) -> Any:
    if name not in __all__ or not name.endswith(("Input", "Output", "Operation")):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = "_task_io" if name.startswith("Task") else "_models"
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
