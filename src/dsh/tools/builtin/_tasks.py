"""The task tools: ``TaskCreate``, ``TaskGet``, ``TaskList`` and ``TaskUpdate``.

The session's task list lives in ``workspace.session_state["dsh.tasks"]``:
tasks by id in creation order, and the last id handed out, so an id is never
reused (not after a blocked creation, not after a delete). The list lives as
long as the session's workspace: a resumed session (``dsh run --resume``)
starts with none, where Claude Code keeps tasks on disk. TaskCreate fires
``TASK_CREATED`` and TaskUpdate fires ``TASK_COMPLETED`` (``dsh.tools._tasks``).
A blocked creation fails the call; a blocked completion is, as Claude Code
2.1.332 records it (``exit2-task-completed``), not an error: TaskUpdate's
output says ``success: false`` with the reason as its ``error``, the reason is
the text, and the task is left as it was.

The four are deferred (``ToolDefinition.deferred``), as 2.1.332 offers them:
the model loads them with ToolSearch (``select:TaskCreate,TaskUpdate``), and a
call made before that still runs.

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
- an unknown id in ``addBlocks``/``addBlockedBy`` is an error result ``Task #N not found``
  (an unknown ``taskId`` of TaskGet or TaskUpdate is, as in 2.1.332, a normal result
  ``Task not found``: recorded, ``task-tools`` in ``tests/fixtures/claude_strict.json``);
- TaskUpdate refuses an unknown id or the task's own id in
  ``addBlocks``/``addBlockedBy`` (Claude Code reports such a block as updated
  and links nothing);
- TaskCreate and TaskUpdate are not concurrency-safe: their listeners run
  between reading the list and changing it;
- TaskList shows every task (Claude Code hides ones whose metadata has
  ``_internal``, its own bookkeeping) and no teammate/verification texts.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from dsh.base import thaw_json
from dsh.context import WaterfallChannel
from dsh.tools._tasks import (
    TASK_COMPLETED,
    TASK_CREATED,
    Task,
    TaskBlock,
    TaskDecision,
)
from dsh.tools._types import LazyModel, ToolCaller, ToolInvocation, ToolResult, Workspace
from dsh.tools.builtin._common import (
    ArgumentsError,
    parse_arguments,
)
from dsh.tools.builtin._declarations import (
    TASK_CREATE,
    TASK_CREATE_INPUT,
    TASK_GET,
    TASK_GET_INPUT,
    TASK_LIST,
    TASK_LIST_INPUT,
    TASK_UPDATE,
    TASK_UPDATE_INPUT,
    implement,
)
from dsh.tools.builtin._task_present import (
    present_task_create,
    present_task_get,
    present_task_list,
    present_task_update,
)

if TYPE_CHECKING:
    from dsh.tools.builtin._task_io import (
        TaskCreateInput,
        TaskGetInput,
        TaskListInput,
        TaskUpdateInput,
    )

__all__ = [
    "TASKS_STATE_KEY",
    "TASK_CREATE_TOOL",
    "TASK_GET_TOOL",
    "TASK_LIST_TOOL",
    "TASK_UPDATE_TOOL",
    "session_tasks",
]

TASKS_STATE_KEY = "dsh.tasks"
_CREATE_INPUT: LazyModel[TaskCreateInput] = TASK_CREATE_INPUT
_GET_INPUT: LazyModel[TaskGetInput] = TASK_GET_INPUT
_LIST_INPUT: LazyModel[TaskListInput] = TASK_LIST_INPUT
_UPDATE_INPUT: LazyModel[TaskUpdateInput] = TASK_UPDATE_INPUT
"""Where the task list lives in ``Workspace.session_state``."""


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

    def link_back(self, task_id: str, blocks: list[str], blocked_by: list[str]) -> None:
        """The other side of ``task_id``'s new links to the tasks it blocks and is blocked by."""
        for other_id in blocks:
            other = self.tasks[other_id]
            if task_id not in other.blocked_by:
                self.tasks[other_id] = dataclasses.replace(
                    other, blocked_by=(*other.blocked_by, task_id)
                )
        for other_id in blocked_by:
            other = self.tasks[other_id]
            if task_id not in other.blocks:
                self.tasks[other_id] = dataclasses.replace(other, blocks=(*other.blocks, task_id))


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


def session_tasks(workspace: Workspace) -> tuple[Task, ...]:
    """The session's task list as the task tools keep it, in creation order (for a front
    end's plan view); empty before any ``TaskCreate``."""
    state = workspace.session_state.get(TASKS_STATE_KEY)
    return tuple(state.tasks.values()) if isinstance(state, _TaskList) else ()


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


def _completion_blocked(task_id: str, reason: str) -> ToolResult:
    output = {"success": False, "taskId": task_id, "updatedFields": [], "error": reason}
    return ToolResult(
        content=present_task_update(output),
        output=output,
        info={"seam": TASK_COMPLETED.name, "reason": reason},
    )


# The tools -----------------------------------------------------------------------------------


async def _run_create(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(_CREATE_INPUT, invocation)
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


NOT_FOUND = "Task not found"


def _not_found(task_id: str) -> ToolResult:
    return ToolResult.error(f"Task #{task_id} not found")


async def _run_get(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(_GET_INPUT, invocation)
    except ArgumentsError as exc:
        return exc.result
    tasks = _task_list(invocation.workspace)
    task = tasks.tasks.get(args.taskId)
    if task is None:  # a normal result, as 2.1.332's (`task-tools` in claude_strict.json)
        return ToolResult.ok(present_task_get({"task": None}), output={"task": None})
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
        parse_arguments(_LIST_INPUT, invocation)
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


def _field_changes(existing: Task, args: TaskUpdateInput) -> tuple[dict[str, Any], list[str]]:
    """The changes of subject, description, activeForm, owner and metadata, and their names."""
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
    return changes, fields


async def _completion_refused(
    invocation: ToolInvocation, tasks: _TaskList, existing: Task, links: list[str]
) -> ToolResult | None:
    """The call's result when the completion may not go ahead; None when it may."""
    decision = await _decide(invocation, TASK_COMPLETED, existing)
    if isinstance(decision, ToolResult):
        return decision
    if isinstance(decision, TaskBlock):
        return _completion_blocked(existing.id, decision.reason)
    if tasks.tasks.get(existing.id) is not existing or any(
        linked not in tasks.tasks for linked in links
    ):
        return ToolResult.error(
            f"Task #{existing.id} was changed while the {TASK_COMPLETED.name} listeners"
            " ran; this update was not applied"
        )
    return None


async def _run_update(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(_UPDATE_INPUT, invocation)
    except ArgumentsError as exc:
        return exc.result
    tasks = _task_list(invocation.workspace)
    task_id = args.taskId
    existing = tasks.tasks.get(task_id)
    if existing is None:  # a normal result, as 2.1.332's (`task-tools` in claude_strict.json)
        missing = {"success": False, "taskId": task_id, "updatedFields": [], "error": NOT_FOUND}
        return ToolResult.ok(present_task_update(missing), output=missing)
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

    changes, fields = _field_changes(existing, args)
    status_change = None
    if args.status is not None and args.status != existing.status:
        if args.status == "completed":
            refused = await _completion_refused(
                invocation, tasks, existing, add_blocks + add_blocked_by
            )
            if refused is not None:
                return refused
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
    tasks.link_back(task_id, new_blocks, new_blocked_by)

    output = {"success": True, "taskId": task_id, "updatedFields": fields}
    if status_change is not None:
        output["statusChange"] = status_change
    return ToolResult.ok(present_task_update(output), output=output)


TASK_CREATE_TOOL = implement(TASK_CREATE, _run_create, present_task_create)

TASK_GET_TOOL = implement(TASK_GET, _run_get, present_task_get)

TASK_LIST_TOOL = implement(TASK_LIST, _run_list, present_task_list)

TASK_UPDATE_TOOL = implement(TASK_UPDATE, _run_update, present_task_update)
