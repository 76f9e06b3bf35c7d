"""The task tools' inputs and outputs, and what the model sees of each output.

Claude Code's names, field descriptions, output shapes and result texts; where
each comes from is told in ``dsh.tools.builtin._tasks``.
"""

# No ``from __future__ import annotations``: pydantic then reads the models' annotations
# as objects instead of evaluating strings, ~1 ms less of every start-up.
from typing import Any, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dsh.session import Content
from dsh.tools._tasks import TaskStatus
from dsh.tools.builtin._common import ToolInput, ToolOutput

__all__ = [
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
