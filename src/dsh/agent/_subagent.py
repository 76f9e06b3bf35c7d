"""Subagents: the ``Agent`` tool, which runs a child agent in-process on its own session.

``subagent_plugin(ctx)`` (``_subagent_tools``) registers the tool (Claude Code's name and
input fields) on the scope's registry, with ``SendMessage`` (``_send_message_tool``), which
continues a child this agent started; this module, the tool's body, is imported at its
first call. A call checks the
agent type, makes the child's worktree for an ``isolation: worktree`` type
(``_isolation``), and makes the child (``_subagent_child``); in the background (2.1.332's
default) it launches it and returns at once (``_subagent_launch``), in the foreground it
runs its turn and hands its report back (``_handback``).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from dsh.agent._agent import Agent
from dsh.agent._agent_types import (
    AGENT_TYPES,
    GENERAL_PURPOSE,
    WORKTREE_MAKER,
    WORKTREE_SETTINGS,
)
from dsh.agent._handback import foreground_output
from dsh.agent._subagent_child import (
    Started,
    can_continue,
    child_agent,
    new_agent_id,
    result_block,
    run_child,
    started_subagents,
)
from dsh.agent._subagent_launch import launch
from dsh.agent._subagent_tools import AGENT_INPUT
from dsh.agent._task_output import open_output
from dsh.agent._turn import COMPLETED, STOPPED, TurnResult
from dsh.base import DshError
from dsh.tools import ToolInvocation, ToolResult

if TYPE_CHECKING:
    from dsh.agent._subagent_input import AgentToolInput

__all__ = ["run_agent_tool"]


async def run_agent_tool(inv: ToolInvocation) -> ToolResult:
    """The ``Agent`` tool's body (``_subagent_tools.AGENT_TOOL`` hands its calls here)."""
    parent = inv.agent
    if not isinstance(parent, Agent):
        return ToolResult.error("the Agent tool runs only inside an agent")
    store = parent.store
    if store is None:
        return ToolResult.error(
            "subagents need a session store; this agent was created without one"
        )
    args = AGENT_INPUT.load().model_validate(dict(inv.arguments))
    # Without a list of types (no bridge provides one), the type is a label on the default
    # agent; with one, 2.1.332's rule: an unknown type is refused.
    types = parent.ctx.get(AGENT_TYPES)
    kind = types.get(args.subagent_type) if types is not None else GENERAL_PURPOSE
    if kind is None:
        # 2.1.332's refusal, word for word.
        names = ", ".join(types.names()) if types is not None else ""
        return ToolResult.error(
            f"Agent type '{args.subagent_type}' not found. Available agents: {names}"
        )
    agent_id = new_agent_id()
    worktree, made = None, None
    if kind.isolation == "worktree":  # the child in a git worktree of its own
        from dsh.agent._isolation import isolated_worktree

        maker = parent.ctx.get(WORKTREE_MAKER)
        try:
            if maker is not None:  # a hook makes it in place of git
                made = await maker(parent, f"agent-{agent_id}")
            else:
                project = parent.workspace.project_dir or parent.workspace.cwd
                settings = parent.ctx.get(WORKTREE_SETTINGS)
                worktree = await asyncio.to_thread(isolated_worktree, project, agent_id, settings)
        except DshError as exc:
            return ToolResult.error(str(exc))
    cwd = worktree.path if worktree is not None else made
    if _in_background(parent, args):
        output = open_output(parent, agent_id)
        on_event = output.write if output is not None else None
        child = child_agent(parent, store.create(), store, inv, args, agent_id, on_event, kind, cwd)
        started_subagents(parent)[agent_id] = Started(args, kind, child)
        return await launch(parent, child, inv, args, output, worktree, made)
    child = child_agent(parent, store.create(), store, inv, args, agent_id, None, kind, cwd)
    started_subagents(parent)[agent_id] = Started(args, kind, child)
    started = time.monotonic()
    result = await run_child(parent, child, inv, args)
    duration_ms = max(0, round((time.monotonic() - started) * 1000))
    shown = _tool_result(parent, child, args, result, duration_ms)
    if made is not None:
        from dsh.agent._isolation import named_result

        return named_result(shown, made)
    if worktree is None:
        return shown
    from dsh.agent._isolation import settled_result

    return await asyncio.to_thread(settled_result, shown, worktree)


def _in_background(parent: Agent, args: AgentToolInput) -> bool:
    """2.1.332's default is the background; a subagent's own Agent calls stay in the
    foreground unless asked (dsh runs no notification turn for a subagent)."""
    if args.run_in_background is not None:
        return args.run_in_background
    return parent.parent is None


def _tool_result(
    parent: Agent, child: Agent, args: AgentToolInput, result: TurnResult, duration_ms: int
) -> ToolResult:
    """A finished foreground child's result: its report in 2.1.332's hand-back frame and
    record (``_handback``); a child that did not finish, an error naming how it ended."""
    if result.end_reason in (COMPLETED, STOPPED):
        report = result.final_text or "(the subagent gave no answer)"
        text, record = foreground_output(
            child,
            report,
            prompt=args.prompt,
            model=child.model.name,
            duration_ms=duration_ms,
            can_continue=can_continue(parent),
        )
        return ToolResult.ok(result_block(text), output=record)
    output = {
        "agent_id": child.agent_id,
        "agent_type": child.agent_type,
        "session_id": child.session_id,
        "end_reason": result.end_reason.value,
        "steps": result.steps,
    }
    detail = result.error or (result.cause.reason if result.cause is not None else None)
    reason = f"the subagent ended {result.end_reason.value}"
    return ToolResult.error(f"{reason}: {detail}" if detail else reason, output=output)
