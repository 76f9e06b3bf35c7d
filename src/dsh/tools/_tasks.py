"""The session's task list as the task tools keep it, and the two seams they fire.

``TaskCreate`` fires ``TASK_CREATED`` with the task it would create, and
``TaskUpdate`` fires ``TASK_COMPLETED`` with a task it would mark completed
(Claude Code's ``TaskCreated`` and ``TaskCompleted`` hooks stand on these).
Each listener answers ``TaskDecision.allow()`` or ``TaskDecision.block(reason)``;
a block changes nothing and the model reads ``reason`` (TaskCreate: as an error result;
TaskUpdate: as its ``success: false`` result, not an error, as Claude Code answers).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.base import freeze_json
from dsh.base._union import ClosedUnion
from dsh.context import WaterfallChannel
from dsh.tools._types import ToolCaller

__all__ = [
    "TASK_COMPLETED",
    "TASK_CREATED",
    "Task",
    "TaskAllow",
    "TaskBlock",
    "TaskDecision",
    "TaskStatus",
    "TaskVariant",
]

TaskStatus: TypeAlias = Literal["pending", "in_progress", "completed"]


@final
@frozen(kw_only=True)
class Task:
    """One task of the session's list, as the task tools keep it.

    ``id`` is ``"1"``, ``"2"``, ... in creation order, per session, and never
    reused (not after a blocked creation, not after a delete). ``blocks`` and
    ``blocked_by`` name other tasks' ids; the tools keep the two sides in step.
    ``metadata`` is frozen JSON (an object) or ``None``.
    """

    id: str
    subject: str
    description: str
    active_form: str | None = None
    status: TaskStatus = "pending"
    owner: str | None = None
    blocks: tuple[str, ...] = ()
    blocked_by: tuple[str, ...] = ()
    metadata: Any = None

    def __post_init__(self) -> None:
        if self.metadata is not None:
            object.__setattr__(self, "metadata", freeze_json(self.metadata, "$.metadata"))


class TaskDecision(ClosedUnion):
    """A task seam listener's answer: ``allow()`` or ``block(reason)``."""

    __slots__ = ()
    kind: ClassVar[Literal["allow", "block"]]

    @staticmethod
    def allow() -> TaskAllow:
        return _ALLOW

    @staticmethod
    def block(reason: str) -> TaskBlock:
        """Refuse: the call fails with ``reason`` (a non-empty str) as its content."""
        return TaskBlock(reason)


@final
@frozen
class TaskAllow(TaskDecision):
    """Let the tool go on."""

    kind: ClassVar[Literal["allow"]] = "allow"


@final
@frozen
class TaskBlock(TaskDecision):
    """Refuse: the call fails with ``reason`` as its content and changes nothing."""

    kind: ClassVar[Literal["block"]] = "block"
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.reason, str):
            raise TypeError(
                f"a block decision's reason must be a str, not {type(self.reason).__name__}"
            )
        if not self.reason:
            raise ValueError("a block decision's reason must not be empty (the model reads it)")


_ALLOW = TaskAllow()

TaskVariant: TypeAlias = TaskAllow | TaskBlock


def _allow(agent: ToolCaller | None, task: Task) -> TaskVariant:
    return _ALLOW


TASK_CREATED: WaterfallChannel[TaskDecision, ToolCaller | None, Task] = WaterfallChannel(
    "tools/task-created",
    default=_allow,
    returns=TaskDecision,
)
"""While TaskCreate runs, with the task it would create (its id assigned): allow, or
block(reason): the task is not kept (its id stays used) and the call fails with ``reason``
as its content. Listener: ``async def fn(agent, task, next) -> TaskDecision``."""

TASK_COMPLETED: WaterfallChannel[TaskDecision, ToolCaller | None, Task] = WaterfallChannel(
    "tools/task-completed",
    default=_allow,
    returns=TaskDecision,
)
"""While TaskUpdate would mark a task completed, with the task as it is (status not yet
changed): block(reason) leaves it as it was (no field of the update is applied) and the call
answers, not as an error, ``reason`` as its content (output ``success: false``, ``error``
``reason``), as Claude Code's TaskUpdate does. Fired only for a change to ``completed`` from another
status. Listener: ``async def fn(agent, task, next) -> TaskDecision``."""
