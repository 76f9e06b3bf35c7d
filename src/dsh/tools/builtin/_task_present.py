"""What the model sees of each task tool's output (Claude Code's result texts).

Apart from the task tools' models (``_task_io.py``), so declaring the tools imports
no pydantic.
"""

from __future__ import annotations

from typing import Any

from dsh.messages import Content

__all__ = ["present_task_create", "present_task_get", "present_task_list", "present_task_update"]


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
