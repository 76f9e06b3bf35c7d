"""A background subagent's launch: the child's turn started as a task, and the call's result.

``launch`` starts a child made for an ``Agent`` call in the background (``_background``
keeps it and notifies the parent when it ends) and answers the call as 2.1.332 does
(``async_launched``, ``launch_text``) once the child's SubagentStart hooks have started
(the executor's signal, ``dsh.base._hooks_started``); ``start_background`` is the start
alone, which
SendMessage's resume of a finished child uses too. A child in a worktree of its own has
it removed after its turn when nothing changed there.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dsh.agent._background import launch_background
from dsh.agent._send_message import SEND_MESSAGE
from dsh.agent._subagent_child import can_continue, new_agent_id, result_block, run_child
from dsh.agent._task_output import TaskOutput
from dsh.agent._turn import TurnResult
from dsh.session import ToolCallEvent
from dsh.tools import ToolInvocation, ToolResult

if TYPE_CHECKING:
    from dsh.agent._agent import Agent
    from dsh.agent._subagent_input import AgentToolInput
    from dsh.base._worktree import Worktree

__all__ = ["launch", "launch_text", "start_background"]


async def launch(
    parent: Agent,
    child: Agent,
    inv: ToolInvocation,
    args: AgentToolInput,
    output: TaskOutput | None,
    worktree: Worktree | None = None,
    made: Path | None = None,
) -> ToolResult:
    """Start ``child`` as a background subagent; the call's result says so (2.1.332's),
    once the child's SubagentStart hooks have started: 2.1.332 spawns them before the call
    returns, so they start before the call's PostToolUse hooks on every run."""
    started = asyncio.get_running_loop().create_future()
    agent_id, run = start_background(
        parent, child, inv, args, output, worktree, started=started, made=made
    )
    # The run's end too: a child cancelled before its announcement sets nothing.
    await asyncio.wait((started, run), return_when=asyncio.FIRST_COMPLETED)
    offered = can_continue(parent)
    result = {
        "isAsync": True,
        "status": "async_launched",
        "agentId": agent_id,
        "description": args.description,
        "resolvedModel": child.model.name,
        "prompt": args.prompt,
        "outputFile": str(output.path) if output is not None else "",
        "canReadOutputFile": output is not None,
        "canContinueAgent": offered,
    }
    text = launch_text(agent_id, output, can_continue=offered)
    return ToolResult.ok(result_block(text), output=result)


def start_background(
    parent: Agent,
    child: Agent,
    inv: ToolInvocation,
    args: AgentToolInput,
    output: TaskOutput | None,
    worktree: Worktree | None = None,
    *,
    started: asyncio.Future[None] | None = None,
    made: Path | None = None,
) -> tuple[str, asyncio.Task[TurnResult]]:
    """Run ``child``'s turn as a background subagent of ``parent`` (its worktree, if any,
    removed after if nothing changed there); its agent id and the task running it.
    ``started``: set once the hooks of its ``subagent/start`` have started; ``made``: the
    folder a ``WORKTREE_MAKER`` made it (named in its notification, as git's worktree is)."""
    agent_id = child.agent_id or new_agent_id()
    # Not tied to this call's signal: the call ends now; the parent's close cancels the child.
    unbound = dataclasses.replace(inv, signal=None)
    running = run_child(parent, child, unbound, args, output, started)
    run = asyncio.get_running_loop().create_task(
        running if worktree is None else _then_settle(running, worktree),
        name=f"subagent:{agent_id}",
    )
    launch_background(
        parent,
        child,
        args.description,
        args.subagent_type,
        run,
        tool_use_id=_tool_use_id(parent, inv),
        output=output,
        worktree=(worktree.path, worktree.branch) if worktree is not None else _made(made),
    )
    return agent_id, run


def _made(made: Path | None) -> tuple[Path, str | None] | None:
    return (made, None) if made is not None else None


async def _then_settle(running: Coroutine[Any, Any, TurnResult], worktree: Worktree) -> TurnResult:
    """A background child's run, then its worktree removed if nothing changed there."""
    from dsh.base._worktree import remove_if_unchanged

    try:
        return await running
    finally:
        await asyncio.to_thread(remove_if_unchanged, worktree)


def _tool_use_id(parent: Agent, inv: ToolInvocation) -> str | None:
    """The model's id of this call (the ``<tool-use-id>`` of its notification)."""
    token = str(inv.token) if inv.token is not None else None
    for event in reversed(parent.events):
        if isinstance(event, ToolCallEvent) and event.token == token:
            return event.tool_use_id
    return None


def launch_text(agent_id: str, output: TaskOutput | None, *, can_continue: bool) -> str:
    """2.1.332's result of a background launch, word for word."""
    cont = (
        f" Use {SEND_MESSAGE} with to: '{agent_id}', summary: '<5-10 word recap>' to continue"
        " this agent."
        if can_continue
        else ""
    )
    head = (
        "Async agent launched successfully. (This tool result is internal metadata \u2014"
        " never quote or paste any part of it, including the agentId below, into a user-facing"
        " reply.)\n"
        f"agentId: {agent_id} (internal ID - do not mention to user.{cont})\n"
        "The agent is working in the background. You will be notified automatically when it"
        " completes. You know nothing about its results until that notification arrives \u2014"
        " do not report, assume, or predict them; continue other work or respond to the user in"
        " the meantime."
    )
    if output is None:
        return (
            f"{head}\nIn your own words, briefly tell the user what you launched \u2014 do not"
            " echo this tool result. Agent results will arrive in a subsequent message. If the"
            " user asks for progress, say the agent is still running."
        )
    return (
        f"{head}\nDo not duplicate this agent's work \u2014 avoid working with the same files"
        " or topics it is using.\n"
        f"output_file: {output.path}\n"
        "Do NOT Read or tail this file via the shell tool \u2014 it is the full subagent JSONL"
        " transcript and reading it will overflow your context. If the user asks for progress,"
        " say the agent is still running; you'll get a completion notification."
    )
