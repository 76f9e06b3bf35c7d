"""Background subagents: an ``Agent`` call with ``run_in_background: true``.

The call returns at once (``async_launched``, as 2.1.332's); the child runs its turn as a
task of the parent's session, listed in ``background_subagents(parent)`` while it runs (what
Claude Code's Stop and SubagentStop send as ``background_tasks``). ``run_notifications``
waits for them and, for each one that finished, runs a parent turn whose prompt is a
``<task-notification>`` block, as Claude Code does; the parent's ``close`` cancels a child
still running (its process groups end with its turn).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Final, final

from dsh._frozen import frozen, slotted
from dsh.session import AbortCause

if TYPE_CHECKING:
    from dsh.agent._agent import Agent
    from dsh.agent._turn import TurnResult

__all__ = [
    "BackgroundSubagent",
    "background_subagents",
    "launch_background",
    "notification_prompt",
    "run_notifications",
    "settle_background",
]

_KEY: Final = "dsh.agent.background"
MAX_NOTIFICATION_RESULT: Final = 20_000


@final
@slotted
class BackgroundSubagent:
    """One background child: the child, what it was given, and the task running its turn."""

    agent_id: str
    description: str
    agent_type: str
    child: Agent
    task: asyncio.Task[TurnResult]
    notified: bool = False

    @property
    def running(self) -> bool:
        return not self.task.done()


@final
@frozen
class _Registry:
    tasks: dict[str, BackgroundSubagent]


def _registry(parent: Agent) -> dict[str, BackgroundSubagent]:
    state = parent.workspace.session_state
    found = state.get(_KEY)
    if not isinstance(found, _Registry):
        found = state[_KEY] = _Registry({})
    return found.tasks


def background_subagents(parent: Agent) -> tuple[BackgroundSubagent, ...]:
    """The parent's background subagents still running, in launch order."""
    return tuple(b for b in _registry(parent).values() if b.running)


def launch_background(
    parent: Agent,
    child: Agent,
    description: str,
    agent_type: str,
    run: asyncio.Task[TurnResult],
) -> BackgroundSubagent:
    """Register ``run`` (``child``'s turn, already started) as a background subagent."""
    agent_id = child.agent_id or child.session_id
    entry = BackgroundSubagent(agent_id, description, agent_type, child, run)
    _registry(parent)[agent_id] = entry
    return entry


def notification_prompt(entry: BackgroundSubagent, result: TurnResult) -> str:
    """The ``<task-notification>`` prompt 2.1.332 starts a turn with when a child stops."""
    status = "completed" if result.end_reason.value in ("completed", "stopped") else "failed"
    text = result.final_text or result.error or ""
    if len(text) > MAX_NOTIFICATION_RESULT:
        text = text[:MAX_NOTIFICATION_RESULT] + "\n[result truncated]"
    return (
        "<task-notification>\n"
        f"<task-id>{entry.agent_id}</task-id>\n"
        f"<status>{status}</status>\n"
        f'<summary>Agent "{entry.description}" finished</summary>\n'
        f"<result>{text}</result>\n"
        "</task-notification>"
    )


async def run_notifications(parent: Agent) -> TurnResult | None:
    """Wait for the parent's background subagents; run one notification turn per finished
    one (while more finish). Returns the last such turn's result, ``None`` for none."""
    last: TurnResult | None = None
    while True:
        pending = [b for b in _registry(parent).values() if not b.notified]
        if not pending:
            return last
        await asyncio.wait([b.task for b in pending], return_when=asyncio.FIRST_COMPLETED)
        for entry in pending:
            if entry.task.done() and not entry.notified:
                entry.notified = True
                if entry.task.cancelled() or entry.task.exception() is not None:
                    continue
                parent.send(notification_prompt(entry, entry.task.result()))
                last = await parent.run_turn()


async def settle_background(parent: Agent) -> None:
    """End the background subagents still running (their turns abort, as a user's cancel
    aborts one: running tools end with their process groups) and wait for them."""
    running = [b for b in _registry(parent).values() if b.running]
    for entry in running:
        entry.child.cancel(AbortCause(kind="user", reason="the parent session closed"))
    await asyncio.gather(*(b.task for b in running), return_exceptions=True)
