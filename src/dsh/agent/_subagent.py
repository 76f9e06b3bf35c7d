"""Subagents: the ``Agent`` tool, which runs a child agent in-process on its own session.

``subagent_plugin(ctx)`` registers the tool (Claude Code's name and input
fields) on the scope's registry; it is removed with the scope. The child
shares the parent's context, model and registry, gets a copy of its
workspace and a new session in the parent's store, and its tool calls carry
the token of the parent's ``Agent`` call. The parent's log records
``subagent/start`` and ``subagent/end`` around the child's turn.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid

from pydantic import BaseModel, ConfigDict, Field

from dsh.agent._agent import Agent
from dsh.agent._background import launch_background
from dsh.agent._channels import SUBAGENT_END, SUBAGENT_START
from dsh.agent._turn import ABORTED, COMPLETED, STOPPED, TurnResult
from dsh.context import Context
from dsh.session import AbortCause, SessionLog, SessionStore, SubagentEnd, SubagentStart
from dsh.tools import (
    TOOLS,
    CallToken,
    ToolDefinition,
    ToolInvocation,
    ToolResult,
    Workspace,
)

__all__ = ["AGENT_TOOL", "AgentToolInput", "subagent_plugin"]

DEFAULT_SUBAGENT_TYPE = "general-purpose"

_DESCRIPTION = (
    "Launch a subagent to handle a task on its own. It works in a fresh conversation with the "
    "same tools and returns its final answer as this tool's result. Give it a short "
    "description and a complete, self-contained prompt."
)


class AgentToolInput(BaseModel):
    """The ``Agent`` tool's input, as Claude Code names it."""

    model_config = ConfigDict(extra="ignore")

    description: str = Field(description="A short (3-5 word) description of the task")
    prompt: str = Field(description="The task for the subagent to perform")
    subagent_type: str = Field(
        default=DEFAULT_SUBAGENT_TYPE, description="The type of specialized agent to use"
    )
    run_in_background: bool = Field(
        default=False,
        description="Run the agent in the background: the call returns at once, and a"
        " notification arrives when it finishes",
    )


def _new_agent_id() -> str:
    # Claude Code's shape: "a" and 16 hex digits.
    return "a" + uuid.uuid4().hex[:16]


async def _run_agent_tool(inv: ToolInvocation) -> ToolResult:
    parent = inv.agent
    if not isinstance(parent, Agent):
        return ToolResult.error("the Agent tool runs only inside an agent")
    store = parent.store
    if store is None:
        return ToolResult.error(
            "subagents need a session store; this agent was created without one"
        )
    args = AgentToolInput.model_validate(dict(inv.arguments))
    child = _child_agent(parent, store.create(), store, inv.token, args.subagent_type)
    if args.run_in_background:
        return _launch(parent, child, inv, args)
    result = await _run_child(parent, child, inv, args)
    return _tool_result(child, result)


def _launch(parent: Agent, child: Agent, inv: ToolInvocation, args: AgentToolInput) -> ToolResult:
    """Start ``child`` as a background subagent; the call's result says so (2.1.332's)."""
    agent_id = child.agent_id or _new_agent_id()
    # Not tied to this call's signal: the call ends now; the parent's close cancels the child.
    run = asyncio.get_running_loop().create_task(
        _run_child(parent, child, dataclasses.replace(inv, signal=None), args),
        name=f"subagent:{agent_id}",
    )
    launch_background(parent, child, args.description, args.subagent_type, run)
    output = {
        "isAsync": True,
        "status": "async_launched",
        "agentId": agent_id,
        "description": args.description,
        "prompt": args.prompt,
    }
    return ToolResult.ok(
        "Async agent launched successfully.\n"
        f"agentId: {agent_id}\n"
        "The agent is working in the background. You will be notified automatically when it"
        " completes.",
        output=output,
    )


def _child_agent(
    parent: Agent,
    session: SessionLog,
    store: SessionStore,
    token: CallToken | None,
    agent_type: str,
) -> Agent:
    """The child: the parent's context, model, registry and limits; a copy of its workspace."""
    workspace = Workspace(
        cwd=parent.workspace.cwd,
        env=dict(parent.workspace.env),
        project_dir=parent.workspace.project_dir,
        # The same list, not a copy: what the session's hooks export later reaches the child too.
        env_scripts=parent.workspace.env_scripts,
    )
    return Agent(
        parent.ctx,
        model=parent.model,
        session=session,
        registry=parent.registry,
        workspace=workspace,
        source="startup",
        max_steps=parent.max_steps,
        continuation_cap=parent.continuation_cap,
        system=parent.system,
        store=store,
        compact_budget=parent.compact_budget,
        parallel_tools=parent.parallel_tools,
        parent=parent,
        parent_token=token,
        agent_id=_new_agent_id(),
        agent_type=agent_type,
    )


async def _run_child(
    parent: Agent, child: Agent, inv: ToolInvocation, args: AgentToolInput
) -> TurnResult:
    """The child's turn between ``subagent/start`` and ``subagent/end``; then it is closed."""
    session = child.session
    remove_abort = (
        inv.signal.on_abort(lambda reason: child.cancel(AbortCause(kind="user", reason=reason)))
        if inv.signal is not None
        else None
    )
    parent.append_event(
        SubagentStart(
            child_session_id=session.id,
            agent_type=args.subagent_type,
            description=args.description,
            parent_token=str(inv.token) if inv.token is not None else None,
        )
    )
    result: TurnResult | None = None
    try:
        await parent.ctx.emit(SUBAGENT_START, parent, child)
        child.send(args.prompt, source="subagent")
        result = await child.run_turn()
        await parent.ctx.emit(SUBAGENT_END, parent, child, result)
    finally:
        if remove_abort is not None:
            remove_abort()
        if result is None:
            result = TurnResult(end_reason=ABORTED)
        parent.append_event(
            SubagentEnd(
                child_session_id=session.id,
                end_reason=result.end_reason,
                final_text=result.final_text,
            )
        )
        try:
            await child.close("other")
        finally:
            session.close()
    return result


def _tool_result(child: Agent, result: TurnResult) -> ToolResult:
    output = {
        "agent_id": child.agent_id,
        "agent_type": child.agent_type,
        "session_id": child.session_id,
        "end_reason": result.end_reason.value,
        "steps": result.steps,
    }
    if result.end_reason in (COMPLETED, STOPPED):
        return ToolResult.ok(result.final_text or "(the subagent gave no answer)", output=output)
    detail = result.error or (result.cause.reason if result.cause is not None else None)
    reason = f"the subagent ended {result.end_reason.value}"
    return ToolResult.error(f"{reason}: {detail}" if detail else reason, output=output)


AGENT_TOOL = ToolDefinition.from_model("Agent", _DESCRIPTION, AgentToolInput, _run_agent_tool)
"""The ``Agent`` tool; ``subagent_plugin`` registers it."""


def subagent_plugin(ctx: Context) -> None:
    """Register the ``Agent`` tool on the scope's registry (removed when the scope is disposed)."""
    ctx.add_disposer(ctx.require(TOOLS).register(AGENT_TOOL))
