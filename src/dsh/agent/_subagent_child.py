"""A subagent's child agent: how it is made, and its turn between ``subagent/start`` and ``/end``.

The child shares the parent's context, model and registry (limited to its type's tools),
gets a copy of its workspace (in its worktree, when it has one) and a session in the
parent's store, and its tool calls carry the token of the parent's ``Agent`` call
(``child_agent``). ``run_child`` runs its turn, with ``subagent/start`` and
``subagent/end`` in the parent's log around it, then closes it; a background launch
waits until the hooks of ``subagent/start`` have started (``started``). The subagents an agent
started are kept in its session state (``started_subagents``), for SendMessage.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from dsh.agent._agent import Agent
from dsh.agent._agent_types import SUBAGENT_MODELS, AgentType
from dsh.agent._channels import SUBAGENT_END, SUBAGENT_START
from dsh.agent._send_message import SEND_MESSAGE
from dsh.agent._task_output import TaskOutput
from dsh.agent._turn import ABORTED, TurnResult
from dsh.base._hooks_started import telling_hooks_started
from dsh.messages import Content, TextBlock
from dsh.models import Model
from dsh.session import (
    AbortCause,
    SessionEvent,
    SessionLog,
    SessionStore,
    SubagentEnd,
    SubagentStart,
)
from dsh.tools import ToolInvocation, Workspace

if TYPE_CHECKING:
    from dsh.agent._subagent_input import AgentToolInput

__all__ = [
    "Started",
    "can_continue",
    "child_agent",
    "new_agent_id",
    "result_block",
    "run_child",
    "started_subagents",
]

_KNOWN: Final = "dsh.agent.subagents"


def new_agent_id() -> str:
    # Claude Code's shape: "a" and 16 hex digits.
    return "a" + uuid.uuid4().hex[:16]


@dataclasses.dataclass(slots=True)
class Started:
    """A subagent this agent started (what SendMessage needs to reach or resume it): its
    input and type, and its latest run's child (closed once that run ended)."""

    args: AgentToolInput
    kind: AgentType
    child: Agent


def started_subagents(parent: Agent) -> dict[str, Started]:
    """The subagents ``parent`` started, by agent id (in its session state)."""
    state = parent.workspace.session_state
    found = state.get(_KNOWN)
    if not isinstance(found, dict):
        found = state[_KNOWN] = {}
    return found


def can_continue(parent: Agent) -> bool:
    """2.1.332 offers to continue an agent only to a caller that has SendMessage."""
    return SEND_MESSAGE in {d.name for d in parent.registry.definitions()}


def result_block(text: str) -> Content:
    """An Agent result as 2.1.332 hands it back: one text block."""
    return (TextBlock(text),)


def child_agent(
    parent: Agent,
    session: SessionLog,
    store: SessionStore,
    inv: ToolInvocation,
    args: AgentToolInput,
    agent_id: str,
    on_event: Callable[[SessionEvent], None] | None,
    kind: AgentType,
    cwd: Path | None = None,
) -> Agent:
    """The child: the parent's context and limits, its type's tools, model and system prompt
    (the parent's where the type names none); a copy of its workspace (in ``cwd``, its
    worktree, when it has one)."""
    workspace = Workspace(
        cwd=cwd or parent.workspace.cwd,
        env=dict(parent.workspace.env),
        project_dir=parent.workspace.project_dir,
        # The same list, not a copy: what the session's hooks export later reaches the child too.
        env_scripts=parent.workspace.env_scripts,
        tool_results_dir=parent.workspace.tool_results_dir,
        sandbox=parent.workspace.sandbox,  # a subagent's commands are the model's too
    )
    registry = parent.registry
    offered = kind.offered(d.name for d in registry.definitions())
    return Agent(
        parent.ctx,
        model=_model_of(parent, kind),
        session=session,
        registry=registry.limited_to(offered) if offered is not None else registry,
        workspace=workspace,
        options=parent.options,
        source="startup",
        system=kind.prompt if kind.prompt is not None else parent.system,
        store=store,
        on_event=on_event,
        parent=parent,
        parent_token=inv.token,
        agent_id=agent_id,
        agent_type=args.subagent_type,
    )


def _model_of(parent: Agent, kind: AgentType) -> Model:
    """The type's model (through ``SUBAGENT_MODELS``), else the parent's."""
    resolve = parent.ctx.get(SUBAGENT_MODELS)
    if kind.model is None or kind.model == "inherit" or resolve is None:
        return parent.model
    return resolve(kind.model)


async def run_child(
    parent: Agent,
    child: Agent,
    inv: ToolInvocation,
    args: AgentToolInput,
    output: TaskOutput | None = None,
    started: asyncio.Future[None] | None = None,
) -> TurnResult:
    """The child's turn between ``subagent/start`` and ``subagent/end``; then it is closed.
    ``started`` is set once the hooks of ``subagent/start`` have started (``_announce``)."""
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
        await _announce(parent, child, started)
        child.send(args.prompt, source="subagent")
        result = await child.run_turn()
        await parent.ctx.emit(SUBAGENT_END, parent, child, result)
    finally:
        if started is not None and not started.done():
            started.set_result(None)  # a child ended before its announcement: nobody waits
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
            if output is not None:
                output.close()
    return result


async def _announce(parent: Agent, child: Agent, started: asyncio.Future[None] | None) -> None:
    """``subagent/start``; ``started`` set once the hooks it fires have started (the
    executor's signal: ``dsh.base._hooks_started``), or once it is over when none did."""
    if started is None:
        await parent.ctx.emit(SUBAGENT_START, parent, child)
        return

    def tell() -> None:
        if not started.done():
            started.set_result(None)

    try:
        with telling_hooks_started(tell):
            await parent.ctx.emit(SUBAGENT_START, parent, child)
    finally:
        tell()
