"""The built-in tools, with Claude Code's tool names and input field names.

``Bash``, ``Read``, ``Write``, ``Edit``, ``MultiEdit``, ``Glob``, ``Grep`` and
the task tools (``TaskCreate``, ``TaskGet``, ``TaskList``, ``TaskUpdate``, deferred),
``ToolSearch``, which loads deferred tools, and the other tools 2.1.332 defers, with its
names, descriptions and input schemas: ``NotebookEdit``, ``TaskStop`` and ``WebFetch`` (run;
WebFetch reads pages with the model the host provides as ``PAGE_READER``), ``CronCreate``,
``CronDelete``, ``CronList``, ``EnterWorktree``, ``ExitWorktree``, ``Monitor`` and
``WebSearch`` (each a clear "not available in dsh" error until dsh runs it),
each a ``ToolDefinition`` whose ``output`` has the shape Claude Code hooks
receive as ``tool_response``, described by its ``output_model`` (``BashOutput``,
...) and rendered as the model sees it by its ``present``. Paths resolve against the invocation's
``Workspace`` (relative ones against its ``cwd``).
"""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.tools._types import ToolDefinition
from dsh.tools.builtin._declarations import (
    BASH,
    EDIT,
    GLOB,
    GREP,
    MULTI_EDIT,
    READ,
    TASK_CREATE,
    TASK_GET,
    TASK_LIST,
    TASK_UPDATE,
    TOOL_SEARCH_DEFINITION,
    WRITE,
)
from dsh.tools.builtin._deferred_tools import (
    NOTEBOOK_EDIT_TOOL,
    PAGE_READER,
    TASK_STOP_TOOL,
    WEB_FETCH_TOOL,
)
from dsh.tools.builtin._unavailable import UNAVAILABLE_TOOLS

if TYPE_CHECKING:
    from dsh.tools.builtin._bash import BASH_TOOL
    from dsh.tools.builtin._glob import GLOB_TOOL
    from dsh.tools.builtin._grep import GREP_TOOL
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
    from dsh.tools.builtin._read import READ_TOOL
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
    from dsh.tools.builtin._tasks import (
        TASK_CREATE_TOOL,
        TASK_GET_TOOL,
        TASK_LIST_TOOL,
        TASK_UPDATE_TOOL,
    )
    from dsh.tools.builtin._tool_search import TOOL_SEARCH_TOOL
    from dsh.tools.builtin._write import EDIT_TOOL, MULTI_EDIT_TOOL, WRITE_TOOL

__all__ = [
    "BASH_TOOL",
    "EDIT_TOOL",
    "GLOB_TOOL",
    "GREP_TOOL",
    "MULTI_EDIT_TOOL",
    "NOTEBOOK_EDIT_TOOL",
    "PAGE_READER",
    "READ_TOOL",
    "TASK_CREATE_TOOL",
    "TASK_GET_TOOL",
    "TASK_LIST_TOOL",
    "TASK_STOP_TOOL",
    "TASK_UPDATE_TOOL",
    "TOOL_SEARCH_TOOL",
    "WEB_FETCH_TOOL",
    "WRITE_TOOL",
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
    "builtin_tools",
]


def builtin_tools() -> tuple[ToolDefinition, ...]:
    """Bash, Read, Write, Edit, MultiEdit, Glob, Grep, TaskCreate, TaskGet, TaskList, TaskUpdate
    (the task tools deferred), ToolSearch, and the other tools 2.1.332 defers, in its order
    (CronCreate, CronDelete, CronList, EnterWorktree, ExitWorktree, Monitor, NotebookEdit,
    TaskStop, WebFetch, WebSearch).

    Each body and presenter imports its tool's module at its first call (``_declarations``):
    registering them imports no tool's implementation."""
    others = {
        t.name: t for t in (*UNAVAILABLE_TOOLS, NOTEBOOK_EDIT_TOOL, TASK_STOP_TOOL, WEB_FETCH_TOOL)
    }
    return (
        BASH,
        READ,
        WRITE,
        EDIT,
        MULTI_EDIT,
        GLOB,
        GREP,
        TASK_CREATE,
        TASK_GET,
        TASK_LIST,
        TASK_UPDATE,
        TOOL_SEARCH_DEFINITION,
        *(others[name] for name in sorted(others)),
    )


publish(globals())

# Each tool's own definition (its body and presenter the functions of its module), imported
# with that module when first asked for: a session registers ``builtin_tools()`` instead.
# The pydantic models, imported with pydantic when one is first asked for: the tools name
# them lazily, so importing the tools imports none.
__getattr__ = lazy(
    globals(),
    {
        "dsh.tools.builtin._bash": ("BASH_TOOL",),
        "dsh.tools.builtin._glob": ("GLOB_TOOL",),
        "dsh.tools.builtin._grep": ("GREP_TOOL",),
        "dsh.tools.builtin._read": ("READ_TOOL",),
        "dsh.tools.builtin._tasks": (
            "TASK_CREATE_TOOL",
            "TASK_GET_TOOL",
            "TASK_LIST_TOOL",
            "TASK_UPDATE_TOOL",
        ),
        "dsh.tools.builtin._tool_search": ("TOOL_SEARCH_TOOL",),
        "dsh.tools.builtin._write": ("EDIT_TOOL", "MULTI_EDIT_TOOL", "WRITE_TOOL"),
        "dsh.tools.builtin._models": (
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
            "ToolSearchInput",
            "ToolSearchOutput",
            "WriteInput",
            "WriteOutput",
        ),
        "dsh.tools.builtin._task_io": (
            "TaskCreateInput",
            "TaskCreateOutput",
            "TaskGetInput",
            "TaskGetOutput",
            "TaskListInput",
            "TaskListOutput",
            "TaskUpdateInput",
            "TaskUpdateOutput",
        ),
    },
)
