"""The task tools' pydantic inputs and outputs (imported at a task tool's first call).

Claude Code's names, field descriptions, output shapes and result texts; where
each comes from is told in ``dsh.tools.builtin._tasks``.
"""

# No ``from __future__ import annotations``: pydantic then reads the models' annotations
# as objects instead of evaluating strings, ~1 ms less of every start-up.
from typing import Any, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dsh.tools._tasks import TaskStatus
from dsh.tools.builtin._models import ToolInput, ToolOutput

__all__ = [
    "TaskCreateInput",
    "TaskCreateOutput",
    "TaskGetInput",
    "TaskGetOutput",
    "TaskListInput",
    "TaskListOutput",
    "TaskUpdateInput",
    "TaskUpdateOutput",
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
