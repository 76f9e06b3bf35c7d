"""Background subagents: an ``Agent`` call that runs its child while the parent goes on.

As 2.1.332's default (``run_in_background`` not ``false``), the call returns at once
(``async_launched``); the child runs its turn as a task of the parent's session, listed in
``background_subagents(parent)`` while it runs (what Claude Code's Stop and SubagentStop send
as ``background_tasks``), its events written to its output file (``_task_output``). When it
finishes, the parent gets a turn whose prompt is a ``<task-notification>`` block, as Claude
Code's: ``run_notifications`` waits for every child and runs those turns (``dsh run``),
``run_ready_notifications`` runs the turns of the children already finished, and
``watch_background`` tells a runner (``dsh acp``, the interactive prompt) when one finishes,
so it can run them between its own turns. The parent's ``close`` cancels a child still
running (its process groups end with its turn).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeAlias, final

from dsh._frozen import frozen, slotted
from dsh.session import AbortCause, AssistantMessageEvent, ToolCallEvent

if TYPE_CHECKING:
    from dsh.agent._agent import Agent
    from dsh.agent._task_output import TaskOutput  # a launch's: it imports the module
    from dsh.agent._turn import TurnResult

__all__ = [
    "BackgroundSubagent",
    "background_subagents",
    "launch_background",
    "notification_prompt",
    "notifications_ready",
    "run_notifications",
    "run_ready_notifications",
    "settle_background",
    "watch_background",
]

logger = logging.getLogger("dsh.agent")

_KEY: Final = "dsh.agent.background"
MAX_NOTIFICATION_RESULT: Final = 20_000
MAX_NOTIFICATION_TURNS: Final = 100
"""The most notification turns one call of ``run_notifications`` (or ``run_ready_notifications``)
runs: the bound on a chain of them no prompt interrupts."""
# 2.1.332's note for an agent that stopped with no background children of its own.
_NOTE: Final = (
    "A task-notification fires each time this agent stops with no live background children"
    " of its own. The user can send it another message and resume it, so the same task-id"
    " may notify more than once."
)


@final
@slotted
class BackgroundSubagent:
    """One background child: the child, what it was given, and the task running its turn."""

    agent_id: str
    description: str
    agent_type: str
    child: Agent
    task: asyncio.Task[TurnResult]
    tool_use_id: str | None = None
    output: TaskOutput | None = None
    worktree_path: Path | None = None
    """Its ``isolation: worktree`` folder: named in its notification if still there."""
    worktree_branch: str | None = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    notified: bool = False

    @property
    def running(self) -> bool:
        return not self.task.done()


@final
@frozen
class _Registry:
    tasks: dict[str, BackgroundSubagent]
    watchers: list[Callable[[], None]]


def _state(parent: Agent) -> _Registry:
    state = parent.workspace.session_state
    found = state.get(_KEY)
    if not isinstance(found, _Registry):
        found = state[_KEY] = _Registry({}, [])
    return found


def _registry(parent: Agent) -> dict[str, BackgroundSubagent]:
    return _state(parent).tasks


def background_subagents(parent: Agent) -> tuple[BackgroundSubagent, ...]:
    """The parent's background subagents still running, in launch order."""
    return tuple(b for b in _registry(parent).values() if b.running)


def watch_background(parent: Agent, on_finished: Callable[[], None]) -> Callable[[], None]:
    """Call ``on_finished`` (on the loop, no arguments) each time one of ``parent``'s
    background subagents finishes; returns what removes the watcher."""
    watchers = _state(parent).watchers
    watchers.append(on_finished)

    def remove() -> None:
        if on_finished in watchers:
            watchers.remove(on_finished)

    return remove


def launch_background(
    parent: Agent,
    child: Agent,
    description: str,
    agent_type: str,
    run: asyncio.Task[TurnResult],
    *,
    tool_use_id: str | None = None,
    output: TaskOutput | None = None,
    worktree: tuple[Path, str | None] | None = None,
) -> BackgroundSubagent:
    """Register ``run`` (``child``'s turn, already started) as a background subagent
    (``worktree``: the folder and branch of its own worktree, if it has one)."""
    agent_id = child.agent_id or child.session_id
    path, branch = worktree if worktree is not None else (None, None)
    entry = BackgroundSubagent(
        agent_id,
        description,
        agent_type,
        child,
        run,
        tool_use_id=tool_use_id,
        output=output,
        worktree_path=path,
        worktree_branch=branch,
    )
    state = _state(parent)
    state.tasks[agent_id] = entry

    def finished(_task: object) -> None:
        entry.finished = time.monotonic()
        for watcher in list(state.watchers):
            try:
                watcher()
            except Exception:
                logger.exception("%r: a background watcher failed", parent)

    run.add_done_callback(finished)
    return entry


def _usage(entry: BackgroundSubagent) -> str:
    """2.1.332's ``<usage>``: the child's last model call's tokens, its tool calls, its time."""
    events = entry.child.events
    replies = [e for e in events if isinstance(e, AssistantMessageEvent)]
    last = replies[-1].usage if replies else None
    tokens = 0
    if last is not None:
        tokens = (
            last.input_tokens
            + last.output_tokens
            + last.cache_read_input_tokens
            + last.cache_creation_input_tokens
        )
    uses = sum(1 for e in events if isinstance(e, ToolCallEvent))
    end = entry.finished if entry.finished is not None else time.monotonic()
    duration = max(0, round((end - entry.started) * 1000))
    return (
        f"<usage><subagent_tokens>{tokens}</subagent_tokens><tool_uses>{uses}</tool_uses>"
        f"<duration_ms>{duration}</duration_ms></usage>"
    )


def notification_prompt(entry: BackgroundSubagent, result: TurnResult) -> str:
    """The ``<task-notification>`` prompt 2.1.332 starts a turn with when a child stops."""
    ok = result.end_reason.value in ("completed", "stopped")
    text = result.final_text or result.error or ""
    if len(text) > MAX_NOTIFICATION_RESULT:
        text = text[:MAX_NOTIFICATION_RESULT] + "\n[result truncated]"
    lines = ["<task-notification>", f"<task-id>{entry.agent_id}</task-id>"]
    if entry.tool_use_id is not None:
        lines.append(f"<tool-use-id>{entry.tool_use_id}</tool-use-id>")
    if entry.output is not None:
        lines.append(f"<output-file>{entry.output.path}</output-file>")
    status, verb = ("completed", "finished") if ok else ("failed", "failed")
    lines += [
        f"<status>{status}</status>",
        f'<summary>Agent "{entry.description}" {verb}</summary>',
        f"<note>{_NOTE}</note>",
        f"<result>{text}</result>",
        _usage(entry),
        *_worktree(entry),
        "</task-notification>",
    ]
    return "\n".join(lines)


def _worktree(entry: BackgroundSubagent) -> list[str]:
    """2.1.332's ``<worktree>`` line for a child whose worktree is kept (one with no change
    was removed when its turn ended: no line); the branch when git made it."""
    path = entry.worktree_path
    if path is None or not path.is_dir():
        return []
    branch = entry.worktree_branch
    named = f"<worktreeBranch>{branch}</worktreeBranch>" if branch is not None else ""
    return [f"<worktree><worktreePath>{path}</worktreePath>{named}</worktree>"]


def _ready(parent: Agent) -> list[BackgroundSubagent]:
    return [b for b in _registry(parent).values() if b.task.done() and not b.notified]


def notifications_ready(parent: Agent) -> bool:
    """Whether a background subagent of ``parent`` finished and awaits its notification turn."""
    return bool(_ready(parent))


OnTurn: TypeAlias = Callable[["TurnResult"], None]
"""Told each notification turn's result as it ends (``dsh run`` prints one ``result`` each)."""


async def run_ready_notifications(
    parent: Agent, *, max_turns: int = MAX_NOTIFICATION_TURNS, on_turn: OnTurn | None = None
) -> TurnResult | None:
    """Run a notification turn for each background subagent that finished and has not been
    notified (waiting for none); the last such turn's result, ``None`` for none. At most
    ``max_turns`` turns (``_drop``: what is left is never notified)."""
    last, _ = await _run_ready(parent, max_turns, on_turn)
    return last


async def _run_ready(
    parent: Agent, budget: int, on_turn: OnTurn | None
) -> tuple[TurnResult | None, int]:
    last: TurnResult | None = None
    turns = 0
    while not parent.closed:
        ready = _ready(parent)
        if not ready:
            break
        if turns >= budget:
            _drop(parent, ready, budget)
            break
        entry = ready[0]
        entry.notified = True
        if entry.task.cancelled() or entry.task.exception() is not None:
            continue
        parent.send(notification_prompt(entry, entry.task.result()))
        last = await parent.run_turn()
        turns += 1
        if on_turn is not None:
            on_turn(last)
    return last, turns


def _drop(parent: Agent, entries: list[BackgroundSubagent], budget: int) -> None:
    """A model that launches another subagent from every notification turn would keep the
    session turning for ever: past the bound, the rest are never notified (those still
    running end with the session)."""
    for entry in entries:
        entry.notified = True
    parent.notice(
        f"{len(entries)} background subagent(s) get no notification turn: {budget} such turns"
        " ran without a prompt in between",
        source="agent",
        level="warning",
    )


async def run_notifications(
    parent: Agent, *, max_turns: int = MAX_NOTIFICATION_TURNS, on_turn: OnTurn | None = None
) -> TurnResult | None:
    """Wait for the parent's background subagents; run one notification turn per finished
    one (while more finish), at most ``max_turns``. Returns the last such turn's result,
    ``None`` for none."""
    last: TurnResult | None = None
    budget = max_turns
    while not parent.closed:
        pending = [b for b in _registry(parent).values() if not b.notified]
        if not pending:
            break
        if budget <= 0:
            _drop(parent, pending, max_turns)
            break
        await asyncio.wait([b.task for b in pending], return_when=asyncio.FIRST_COMPLETED)
        ran, turns = await _run_ready(parent, budget, on_turn)
        last = ran or last
        budget -= turns
    return last


async def settle_background(parent: Agent) -> None:
    """End the background subagents still running (their turns abort, as a user's cancel
    aborts one: running tools end with their process groups) and wait for them."""
    running = [b for b in _registry(parent).values() if b.running]
    for entry in running:
        entry.child.cancel(AbortCause(kind="user", reason="the parent session closed"))
    await asyncio.gather(*(b.task for b in running), return_exceptions=True)
