"""The task tools: ``TaskCreate``, ``TaskGet``, ``TaskList`` and ``TaskUpdate``.

The session's task list lives in ``workspace.session_state["dsh.tasks"]``:
tasks by id in creation order, and the last id handed out, so an id is never
reused (not after a blocked creation, not after a delete). The list lives as
long as the session's workspace: a resumed session (``dsh run --resume``)
starts with none, where Claude Code keeps tasks on disk. TaskCreate fires
``TASK_CREATED`` and TaskUpdate fires ``TASK_COMPLETED`` (``dsh.tools._tasks``).

Names, input fields, output shapes and result texts are Claude Code's. The
recording (conformance case ``task-tools``) shows TaskCreate's and a status
TaskUpdate's. The rest is taken from a public copy of Claude Code 2.1's
TypeScript source (``src/tools/Task{Create,Get,List,Update}Tool/*.ts`` and
``src/utils/tasks.ts``, e.g. GitHub DroxKiwi/claude-code-leak-packaged):
the input field descriptions; TaskGet's and TaskList's outputs and texts;
TaskUpdate's ``updatedFields`` (only fields whose value changes, in the
order subject, description, activeForm, owner, metadata, status, blocks,
blockedBy; text ``Updated task #N f1, f2``); ``deleted`` (output
``updatedFields: ["deleted"]``, the other fields of that call not applied,
the id dropped from other tasks' blocks/blockedBy); metadata merging (a
``null`` value deletes a key); blocks kept on both sides; TaskList leaving
completed tasks out of ``blockedBy``.

Where dsh differs, on purpose:
- an unknown ``taskId`` (TaskGet, TaskUpdate) is an error result
  ``Task #N not found``; Claude Code answers a non-error ``Task not found``;
- TaskUpdate refuses an unknown id or the task's own id in
  ``addBlocks``/``addBlockedBy`` (Claude Code reports such a block as updated
  and links nothing);
- a blocked TaskCompleted fails the call with the reason as its content
  (Claude Code: a non-error result with the hook's message);
- TaskCreate and TaskUpdate are not concurrency-safe: their listeners run
  between reading the list and changing it;
- TaskList shows every task (Claude Code hides ones whose metadata has
  ``_internal``, its own bookkeeping) and no teammate/verification texts.
"""

# No ``from __future__ import annotations``: pydantic then reads the models' annotations
# as objects instead of evaluating strings, ~1 ms less of every start-up.
import dataclasses
from typing import Any, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dsh.context import WaterfallChannel
from dsh.session import Content, thaw_json
from dsh.tools._tasks import (
    TASK_COMPLETED,
    TASK_CREATED,
    Task,
    TaskBlock,
    TaskDecision,
    TaskStatus,
)
from dsh.tools._types import ToolCaller, ToolInvocation, ToolResult, Workspace
from dsh.tools.builtin._common import (
    ArgumentsError,
    ToolInput,
    ToolOutput,
    builtin_tool,
    parse_arguments,
)

__all__ = [
    "TASKS_STATE_KEY",
    "TASK_CREATE_TOOL",
    "TASK_GET_TOOL",
    "TASK_LIST_TOOL",
    "TASK_UPDATE_TOOL",
    "TaskCreateInput",
    "TaskCreateOutput",
    "TaskGetInput",
    "TaskGetOutput",
    "TaskListInput",
    "TaskListOutput",
    "TaskUpdateInput",
    "TaskUpdateOutput",
    "present_task_create",
    "present_task_get",
    "present_task_list",
    "present_task_update",
]

TASKS_STATE_KEY = "dsh.tasks"
"""Where the task list lives in ``Workspace.session_state``."""

_ACTIVE_FORM = 'Present continuous form shown in spinner when in_progress (e.g., "Running tests")'


# Inputs -------------------------------------------------------------------------------


class TaskCreateInput(ToolInput):
    """Claude Code's TaskCreate input."""

    subject: str = Field(description="A brief title for the task")
    description: str = Field(description="What needs to be done")
    activeForm: str | SkipJsonSchema[None] = Field(default=None, description=_ACTIVE_FORM)
    metadata: dict[str, Any] | SkipJsonSchema[None] = Field(
        default=None, description="Arbitrary metadata to attach to the task"
    )


class TaskGetInput(ToolInput):
    """Claude Code's TaskGet input."""

    taskId: str = Field(description="The ID of the task to retrieve")


class TaskListInput(ToolInput):
    """Claude Code's TaskList input: none."""


class TaskUpdateInput(ToolInput):
    """Claude Code's TaskUpdate input."""

    taskId: str = Field(description="The ID of the task to update")
    subject: str | SkipJsonSchema[None] = Field(
        default=None, description="New subject for the task"
    )
    description: str | SkipJsonSchema[None] = Field(
        default=None, description="New description for the task"
    )
    activeForm: str | SkipJsonSchema[None] = Field(default=None, description=_ACTIVE_FORM)
    status: Literal["pending", "in_progress", "completed", "deleted"] | SkipJsonSchema[None] = (
        Field(default=None, description="New status for the task")
    )
    addBlocks: list[str] | SkipJsonSchema[None] = Field(
        default=None, description="Task IDs that this task blocks"
    )
    addBlockedBy: list[str] | SkipJsonSchema[None] = Field(
        default=None, description="Task IDs that block this task"
    )
    owner: str | SkipJsonSchema[None] = Field(default=None, description="New owner for the task")
    metadata: dict[str, Any] | SkipJsonSchema[None] = Field(
        default=None,
        description="Metadata keys to merge into the task. Set a key to null to delete it.",
    )


# Outputs and what the model sees of them ---------------------------------------------------


class _CreatedTask(ToolOutput):
    id: str
    subject: str
    description: str  # since Claude Code 2.1.332 (`task-tools`)


class TaskCreateOutput(ToolOutput):
    """A successful TaskCreate's output."""

    task: _CreatedTask


class _TaskDetail(ToolOutput):
    id: str
    subject: str
    description: str
    status: TaskStatus
    blocks: list[str]
    blockedBy: list[str]


class TaskGetOutput(ToolOutput):
    """A successful TaskGet's output (``task`` is ``null`` in Claude Code's for an unknown id)."""

    task: _TaskDetail | None


class _TaskSummary(ToolOutput):
    id: str
    subject: str
    status: TaskStatus
    owner: str | None = None
    blockedBy: list[str]


class TaskListOutput(ToolOutput):
    """A successful TaskList's output: every task, in creation order."""

    tasks: list[_TaskSummary]


class _StatusChange(ToolOutput):
    from_: str = Field(alias="from")
    to: str


class TaskUpdateOutput(ToolOutput):
    """A successful TaskUpdate's output."""

    success: bool
    taskId: str
    updatedFields: list[str]
    error: str | None = None
    statusChange: _StatusChange | None = None
    verificationNudgeNeeded: bool | None = None


def present_task_create(output: Any) -> Content:
    """What the model sees of a successful TaskCreate (recorded)."""
    task = output["task"]
    return f"Task #{task['id']} created successfully: {task['subject']}"


def _ids(ids: list[str]) -> str:
    return ", ".join(f"#{i}" for i in ids)


def present_task_get(output: Any) -> Content:
    """What the model sees of a TaskGet: the task's subject, status, description and links."""
    task = output["task"]
    if task is None:
        return "Task not found"
    lines = [
        f"Task #{task['id']}: {task['subject']}",
        f"Status: {task['status']}",
        f"Description: {task['description']}",
    ]
    if task["blockedBy"]:
        lines.append(f"Blocked by: {_ids(task['blockedBy'])}")
    if task["blocks"]:
        lines.append(f"Blocks: {_ids(task['blocks'])}")
    return "\n".join(lines)


def present_task_list(output: Any) -> Content:
    """What the model sees of a TaskList: one task a line, or ``No tasks found``."""
    tasks = output["tasks"]
    if not tasks:
        return "No tasks found"
    lines = []
    for task in tasks:
        owner = f" ({task['owner']})" if task.get("owner") else ""
        blocked = f" [blocked by {_ids(task['blockedBy'])}]" if task["blockedBy"] else ""
        lines.append(f"#{task['id']} [{task['status']}] {task['subject']}{owner}{blocked}")
    return "\n".join(lines)


def present_task_update(output: Any) -> Content:
    """What the model sees of a TaskUpdate: ``Updated task #N`` and the updated fields.

    As Claude Code's, the fields are joined after one space, so an update that
    changed nothing reads ``Updated task #N `` (a trailing space).
    """
    if not output["success"]:
        return output.get("error") or f"Task #{output['taskId']} not found"
    return f"Updated task #{output['taskId']} {', '.join(output['updatedFields'])}"


# The session's list -----------------------------------------------------------------------


class _TaskList:
    """The tasks by id, in creation order, and the last id handed out."""

    __slots__ = ("last_id", "tasks")

    def __init__(self) -> None:
        self.last_id = 0
        self.tasks: dict[str, Task] = {}

    def new_id(self) -> str:
        self.last_id += 1
        return str(self.last_id)

    def delete(self, task_id: str) -> None:
        del self.tasks[task_id]
        for other in list(self.tasks.values()):
            if task_id in other.blocks or task_id in other.blocked_by:
                self.tasks[other.id] = dataclasses.replace(
                    other,
                    blocks=tuple(i for i in other.blocks if i != task_id),
                    blocked_by=tuple(i for i in other.blocked_by if i != task_id),
                )


def _task_list(workspace: Workspace) -> _TaskList:
    state = workspace.session_state.get(TASKS_STATE_KEY)
    if state is None:
        state = workspace.session_state[TASKS_STATE_KEY] = _TaskList()
    if not isinstance(state, _TaskList):
        raise TypeError(
            f"workspace.session_state[{TASKS_STATE_KEY!r}] holds a {type(state).__name__},"
            " not the task tools' task list"
        )
    return state


_TaskSeam = WaterfallChannel[TaskDecision, ToolCaller | None, Task]


async def _decide(
    invocation: ToolInvocation,
    channel: _TaskSeam,
    task: Task,
) -> TaskDecision | ToolResult:
    """The seam's decision, or the failed call's result when a listener failed."""
    ctx = invocation.ctx
    if ctx is None:
        return TaskDecision.allow()
    try:
        return await ctx.waterfall(channel, invocation.agent, task)
    except Exception as exc:
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return ToolResult.error(
            f"{channel.name} listener failed: {text}",
            code="LISTENER_ERROR",
            info={"seam": channel.name, "error": text},
        )


def _blocked(channel: _TaskSeam, reason: str) -> ToolResult:
    return ToolResult.error(reason, info={"seam": channel.name, "reason": reason})


# The tools -----------------------------------------------------------------------------------


async def _run_create(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(TaskCreateInput, invocation)
    except ArgumentsError as exc:
        return exc.result
    tasks = _task_list(invocation.workspace)
    task = Task(
        id=tasks.new_id(),  # used from now on, whatever the listeners decide
        subject=args.subject,
        description=args.description,
        active_form=args.activeForm,
        metadata=args.metadata,
    )
    decision = await _decide(invocation, TASK_CREATED, task)
    if isinstance(decision, ToolResult):
        return decision
    if isinstance(decision, TaskBlock):
        return _blocked(TASK_CREATED, decision.reason)
    tasks.tasks[task.id] = task
    output = {"task": {"id": task.id, "subject": task.subject, "description": task.description}}
    return ToolResult.ok(present_task_create(output), output=output)


def _not_found(task_id: str) -> ToolResult:
    return ToolResult.error(f"Task #{task_id} not found")


async def _run_get(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(TaskGetInput, invocation)
    except ArgumentsError as exc:
        return exc.result
    tasks = _task_list(invocation.workspace)
    task = tasks.tasks.get(args.taskId)
    if task is None:
        return _not_found(args.taskId)
    output = {
        "task": {
            "id": task.id,
            "subject": task.subject,
            "description": task.description,
            "status": task.status,
            "blocks": list(task.blocks),
            "blockedBy": list(task.blocked_by),
        }
    }
    return ToolResult.ok(present_task_get(output), output=output)


async def _run_list(invocation: ToolInvocation) -> ToolResult:
    try:
        parse_arguments(TaskListInput, invocation)
    except ArgumentsError as exc:
        return exc.result
    tasks = _task_list(invocation.workspace)
    completed = {t.id for t in tasks.tasks.values() if t.status == "completed"}
    listed: list[dict[str, Any]] = []
    for task in tasks.tasks.values():
        entry: dict[str, Any] = {"id": task.id, "subject": task.subject, "status": task.status}
        if task.owner is not None:
            entry["owner"] = task.owner
        entry["blockedBy"] = [i for i in task.blocked_by if i not in completed]
        listed.append(entry)
    output = {"tasks": listed}
    return ToolResult.ok(present_task_list(output), output=output)


def _merge_metadata(current: Any, updates: dict[str, Any]) -> dict[str, Any]:
    merged: dict[str, Any] = thaw_json(current) if current is not None else {}
    for key, value in updates.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


async def _run_update(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(TaskUpdateInput, invocation)
    except ArgumentsError as exc:
        return exc.result
    tasks = _task_list(invocation.workspace)
    task_id = args.taskId
    existing = tasks.tasks.get(task_id)
    if existing is None:
        return _not_found(task_id)
    add_blocks = list(dict.fromkeys(args.addBlocks or ()))
    add_blocked_by = list(dict.fromkeys(args.addBlockedBy or ()))
    for linked in (*add_blocks, *add_blocked_by):
        if linked == task_id:
            return ToolResult.error(f"Task #{task_id} cannot block itself")
        if linked not in tasks.tasks:
            return _not_found(linked)

    if args.status == "deleted":
        tasks.delete(task_id)
        output: dict[str, Any] = {
            "success": True,
            "taskId": task_id,
            "updatedFields": ["deleted"],
            "statusChange": {"from": existing.status, "to": "deleted"},
        }
        return ToolResult.ok(present_task_update(output), output=output)

    changes: dict[str, Any] = {}
    fields: list[str] = []
    for name, attr, value in (
        ("subject", "subject", args.subject),
        ("description", "description", args.description),
        ("activeForm", "active_form", args.activeForm),
        ("owner", "owner", args.owner),
    ):
        if value is not None and value != getattr(existing, attr):
            changes[attr] = value
            fields.append(name)
    if args.metadata is not None:
        changes["metadata"] = _merge_metadata(existing.metadata, args.metadata)
        fields.append("metadata")
    status_change = None
    if args.status is not None and args.status != existing.status:
        if args.status == "completed":
            decision = await _decide(invocation, TASK_COMPLETED, existing)
            if isinstance(decision, ToolResult):
                return decision
            if isinstance(decision, TaskBlock):
                return _blocked(TASK_COMPLETED, decision.reason)
            if tasks.tasks.get(task_id) is not existing or any(
                linked not in tasks.tasks for linked in (*add_blocks, *add_blocked_by)
            ):
                return ToolResult.error(
                    f"Task #{task_id} was changed while the {TASK_COMPLETED.name} listeners"
                    " ran; this update was not applied"
                )
        changes["status"] = args.status
        fields.append("status")
        status_change = {"from": existing.status, "to": args.status}

    new_blocks = [i for i in add_blocks if i not in existing.blocks]
    new_blocked_by = [i for i in add_blocked_by if i not in existing.blocked_by]
    if new_blocks:
        changes["blocks"] = (*existing.blocks, *new_blocks)
        fields.append("blocks")
    if new_blocked_by:
        changes["blocked_by"] = (*existing.blocked_by, *new_blocked_by)
        fields.append("blockedBy")
    if changes:
        tasks.tasks[task_id] = dataclasses.replace(existing, **changes)
    # The other side of each new link.
    for other_id in new_blocks:
        other = tasks.tasks[other_id]
        if task_id not in other.blocked_by:
            tasks.tasks[other_id] = dataclasses.replace(
                other, blocked_by=(*other.blocked_by, task_id)
            )
    for other_id in new_blocked_by:
        other = tasks.tasks[other_id]
        if task_id not in other.blocks:
            tasks.tasks[other_id] = dataclasses.replace(other, blocks=(*other.blocks, task_id))

    output = {"success": True, "taskId": task_id, "updatedFields": fields}
    if status_change is not None:
        output["statusChange"] = status_change
    return ToolResult.ok(present_task_update(output), output=output)


TASK_CREATE_TOOL = builtin_tool(
    "TaskCreate",
    "Creates a task in the session's task list (status pending) and returns its id. Use it to "
    "track the steps of multi-step work.",
    TaskCreateInput,
    _run_create,
    output_model=TaskCreateOutput,
    present=present_task_create,
)

TASK_GET_TOOL = builtin_tool(
    "TaskGet",
    "Returns one task of the session's task list by id: subject, status, description and "
    "which tasks it blocks or is blocked by.",
    TaskGetInput,
    _run_get,
    output_model=TaskGetOutput,
    present=present_task_get,
    read_only=True,
    concurrency_safe=True,
)

TASK_LIST_TOOL = builtin_tool(
    "TaskList",
    "Lists every task of the session's task list: id, status, subject, owner and the open "
    "tasks blocking it.",
    TaskListInput,
    _run_list,
    output_model=TaskListOutput,
    present=present_task_list,
    read_only=True,
    concurrency_safe=True,
)

TASK_UPDATE_TOOL = builtin_tool(
    "TaskUpdate",
    "Updates a task of the session's task list: subject, description, activeForm, status "
    "(pending, in_progress, completed; deleted removes the task), owner, metadata, and "
    "links to the tasks it blocks or is blocked by.",
    TaskUpdateInput,
    _run_update,
    output_model=TaskUpdateOutput,
    present=present_task_update,
)
