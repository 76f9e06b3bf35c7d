"""``TaskStop``: stops one of the session's background shells, as 2.1.332's tool does.

The task is a ``Bash`` call's ``run_in_background`` shell, by the id its result gave
(``task_id``, or the deprecated ``shell_id``), and only one this session started. Its whole
process group is killed. The result is 2.1.332's: the ``tool_response`` (``message``,
``task_id``, ``task_type`` ``local_bash``, ``command``) as compact JSON; an input it refuses
(no id, an id it does not know, a task no longer running) in 2.1.332's words inside
``<tool_use_error>`` (``tests/fixtures/claude_deferred_tools.json``). dsh's background
subagents are not tasks TaskStop knows (they end with their parent's turn).
"""

from __future__ import annotations

import json
from typing import Any

from dsh.messages import Content
from dsh.tools._types import ToolInvocation, ToolResult
from dsh.tools.builtin._bash import SHELLS_STATE_KEY, background_shell
from dsh.tools.builtin._common import refused

__all__ = ["present", "present_task_stop", "run"]


def present_task_stop(output: Any) -> Content:
    """The ``tool_response`` as 2.1.332 sends it: compact JSON."""
    return json.dumps(output, ensure_ascii=False, separators=(",", ":"))


def _status(returncode: int) -> str:
    return "completed" if returncode == 0 else "killed" if returncode < 0 else "failed"


async def run(invocation: ToolInvocation) -> ToolResult:
    task_id = invocation.arguments.get("task_id") or invocation.arguments.get("shell_id")
    if not isinstance(task_id, str) or not task_id:
        return refused("Missing required parameter: task_id")
    mine = invocation.workspace.session_state.get(SHELLS_STATE_KEY) or set()
    shell = background_shell(task_id) if task_id in mine else None
    if shell is None:
        return refused(f"No task found with ID: {task_id}")
    if shell.returncode is not None:
        return refused(f"Task {task_id} is not running (status: {_status(shell.returncode)})")
    shell.kill()
    output = {
        "message": f"Successfully stopped task: {task_id} ({shell.command})",
        "task_id": task_id,
        "task_type": "local_bash",
        "command": shell.command,
    }
    return ToolResult.ok(present_task_stop(output), output=output)


present = present_task_stop
