"""Subagents: the ``Agent`` tool, which runs a child agent in-process on its own session.

``subagent_plugin(ctx)`` registers the tool (Claude Code's name and input
fields) on the scope's registry; it is removed with the scope. The child
shares the parent's context, model and registry, gets a copy of its
workspace and a new session in the parent's store, and its tool calls carry
the token of the parent's ``Agent`` call. The parent's log records
``subagent/start`` and ``subagent/end`` around the child's turn. ``SEND_MESSAGE_TOOL``
(registered with it) continues a child this agent started (``_send_message``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dsh.agent._agent import Agent
from dsh.agent._agent_types import (
    AGENT_TYPES,
    GENERAL_PURPOSE,
    SUBAGENT_MODELS,
    WORKTREE_MAKER,
    AgentType,
)
from dsh.agent._background import launch_background
from dsh.agent._channels import SUBAGENT_END, SUBAGENT_START
from dsh.agent._handback import foreground_output
from dsh.agent._send_message import SEND_MESSAGE, delivered_text, not_addressable, queued, resumed
from dsh.agent._send_message_text import DESCRIPTION as SEND_MESSAGE_DESCRIPTION
from dsh.agent._send_message_text import INPUT_SCHEMA as SEND_MESSAGE_SCHEMA
from dsh.agent._task_output import TaskOutput, open_output
from dsh.agent._turn import ABORTED, COMPLETED, STOPPED, TurnResult
from dsh.base import DshError
from dsh.context import Context
from dsh.messages import Content, TextBlock
from dsh.models import Model
from dsh.session import (
    AbortCause,
    SessionEvent,
    SessionLog,
    SessionStore,
    SubagentEnd,
    SubagentStart,
    ToolCallEvent,
)
from dsh.tools import (
    TOOLS,
    LazyModel,
    ToolDefinition,
    ToolInvocation,
    ToolResult,
    Workspace,
)

if TYPE_CHECKING:
    from dsh.agent._subagent_input import AgentToolInput
    from dsh.base._worktree import Worktree

__all__ = ["AGENT_TOOL", "DEFAULT_SUBAGENT_TYPE", "subagent_plugin"]

DEFAULT_SUBAGENT_TYPE = "general-purpose"
_KNOWN: Final = "dsh.agent.subagents"

_DESCRIPTION = (
    "Launch a subagent to handle a task on its own. It works in a fresh conversation with the "
    "same tools and returns its final answer as this tool's result. Give it a short "
    "description and a complete, self-contained prompt."
)


def _new_agent_id() -> str:
    # Claude Code's shape: "a" and 16 hex digits.
    return "a" + uuid.uuid4().hex[:16]


@dataclasses.dataclass(slots=True)
class _Started:
    """A subagent this agent started (what SendMessage needs to reach or resume it): its
    input and type, and its latest run's child (closed once that run ended)."""

    args: AgentToolInput
    kind: AgentType
    child: Agent


def _started(parent: Agent) -> dict[str, _Started]:
    state = parent.workspace.session_state
    found = state.get(_KNOWN)
    if not isinstance(found, dict):
        found = state[_KNOWN] = {}
    return found


def _can_continue(parent: Agent) -> bool:
    """2.1.332 offers to continue an agent only to a caller that has SendMessage."""
    return SEND_MESSAGE in {d.name for d in parent.registry.definitions()}


def _block(text: str) -> Content:
    """An Agent result as 2.1.332 hands it back: one text block."""
    return (TextBlock(text),)


async def _run_agent_tool(inv: ToolInvocation) -> ToolResult:
    parent = inv.agent
    if not isinstance(parent, Agent):
        return ToolResult.error("the Agent tool runs only inside an agent")
    store = parent.store
    if store is None:
        return ToolResult.error(
            "subagents need a session store; this agent was created without one"
        )
    args = _INPUT.load().model_validate(dict(inv.arguments))
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
    agent_id = _new_agent_id()
    worktree, made = None, None
    if kind.isolation == "worktree":  # the child in a git worktree of its own
        from dsh.agent._isolation import isolated_worktree

        maker = parent.ctx.get(WORKTREE_MAKER)
        try:
            if maker is not None:  # a hook makes it in place of git
                made = await maker(parent, f"agent-{agent_id}")
            else:
                project = parent.workspace.project_dir or parent.workspace.cwd
                worktree = await asyncio.to_thread(isolated_worktree, project, agent_id)
        except DshError as exc:
            return ToolResult.error(str(exc))
    cwd = worktree.path if worktree is not None else made
    if _in_background(parent, args):
        output = open_output(parent, agent_id)
        on_event = output.write if output is not None else None
        child = _child_agent(
            parent, store.create(), store, inv, args, agent_id, on_event, kind, cwd
        )
        _started(parent)[agent_id] = _Started(args, kind, child)
        return _launch(parent, child, inv, args, output, worktree)
    child = _child_agent(parent, store.create(), store, inv, args, agent_id, None, kind, cwd)
    _started(parent)[agent_id] = _Started(args, kind, child)
    started = time.monotonic()
    result = await _run_child(parent, child, inv, args)
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


def _launch(
    parent: Agent,
    child: Agent,
    inv: ToolInvocation,
    args: AgentToolInput,
    output: TaskOutput | None,
    worktree: Worktree | None = None,
) -> ToolResult:
    """Start ``child`` as a background subagent; the call's result says so (2.1.332's)."""
    agent_id = _start_background(parent, child, inv, args, output, worktree)
    can_continue = _can_continue(parent)
    result = {
        "isAsync": True,
        "status": "async_launched",
        "agentId": agent_id,
        "description": args.description,
        "resolvedModel": child.model.name,
        "prompt": args.prompt,
        "outputFile": str(output.path) if output is not None else "",
        "canReadOutputFile": output is not None,
        "canContinueAgent": can_continue,
    }
    text = launch_text(agent_id, output, can_continue=can_continue)
    return ToolResult.ok(_block(text), output=result)


def _start_background(
    parent: Agent,
    child: Agent,
    inv: ToolInvocation,
    args: AgentToolInput,
    output: TaskOutput | None,
    worktree: Worktree | None = None,
) -> str:
    """Run ``child``'s turn as a background subagent of ``parent`` (its worktree, if any,
    removed after if nothing changed there); its agent id."""
    agent_id = child.agent_id or _new_agent_id()
    # Not tied to this call's signal: the call ends now; the parent's close cancels the child.
    running = _run_child(parent, child, dataclasses.replace(inv, signal=None), args, output)
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
    )
    return agent_id


async def continue_subagent(parent: Agent, inv: ToolInvocation, to: str, text: str) -> ToolResult:
    """SendMessage's delivery of ``text`` to the subagent ``to`` (``_send_message``): queued
    for one still running, a background resume of one that finished."""
    started = _started(parent).get(to)
    store = parent.store
    if started is None or store is None:
        return not_addressable(to)
    if not started.child.closed:
        started.child.steer(text)
        return queued(to)
    session = store.open(started.child.session_id)
    output = open_output(parent, to)
    on_event = output.write if output is not None else None
    args = started.args.model_copy(update={"prompt": text})
    cwd = started.child.workspace.cwd  # a worktree child resumes in its worktree
    child = _child_agent(parent, session, store, inv, args, to, on_event, started.kind, cwd)
    started.child = child
    _start_background(parent, child, inv, args, output)
    return resumed(to)


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


def _child_agent(
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


async def _run_child(
    parent: Agent,
    child: Agent,
    inv: ToolInvocation,
    args: AgentToolInput,
    output: TaskOutput | None = None,
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
            if output is not None:
                output.close()
    return result


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
            can_continue=_can_continue(parent),
        )
        return ToolResult.ok(_block(text), output=record)
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


_INPUT: LazyModel[AgentToolInput] = LazyModel("dsh.agent._subagent_input", "AgentToolInput")
# AgentToolInput.model_json_schema(), written out (tests/agent check they agree): declaring
# the tool imports no pydantic, which comes with the model at the tool's first call.
_INPUT_SCHEMA: dict[str, Any] = {
    "description": "The ``Agent`` tool's input, as Claude Code names it.",
    "properties": {
        "description": {
            "description": "A short (3-5 word) description of the task",
            "title": "Description",
            "type": "string",
        },
        "prompt": {
            "description": "The task for the subagent to perform",
            "title": "Prompt",
            "type": "string",
        },
        "subagent_type": {
            "default": DEFAULT_SUBAGENT_TYPE,
            "description": "The type of specialized agent to use",
            "title": "Subagent Type",
            "type": "string",
        },
        "run_in_background": {
            "anyOf": [{"type": "boolean"}, {"type": "null"}],
            "default": None,
            "description": "Run the agent in the background (the default): the call returns at"
            " once, and a notification arrives when it finishes; false waits for its answer",
            "title": "Run In Background",
        },
    },
    "required": ["description", "prompt"],
    "title": "AgentToolInput",
    "type": "object",
}

AGENT_TOOL = ToolDefinition(
    name="Agent",
    description=_DESCRIPTION,
    input_schema=_INPUT_SCHEMA,
    run=_run_agent_tool,
    input_model=_INPUT,
)
"""The ``Agent`` tool; ``subagent_plugin`` registers it."""


async def _run_send_message(inv: ToolInvocation) -> ToolResult:
    parent = inv.agent
    if not isinstance(parent, Agent):
        return ToolResult.error("SendMessage runs only inside an agent")
    message = inv.arguments.get("message", "")
    if not isinstance(message, str) or not message.strip():
        return ToolResult.error("message must be non-empty plain text")
    return await continue_subagent(parent, inv, str(inv.arguments["to"]), delivered_text(message))


SEND_MESSAGE_TOOL = ToolDefinition(
    name=SEND_MESSAGE,
    description=SEND_MESSAGE_DESCRIPTION,
    input_schema=SEND_MESSAGE_SCHEMA,
    run=_run_send_message,
    input_model=LazyModel("dsh.agent._send_message_input", "SendMessageInput"),
    deferred=True,
)
"""The ``SendMessage`` tool (``_send_message``); ``subagent_plugin`` registers it."""


def subagent_plugin(ctx: Context) -> None:
    """Register the ``Agent`` and ``SendMessage`` tools on the scope's registry (removed when
    the scope is disposed)."""
    tools = ctx.require(TOOLS)
    ctx.add_disposer(tools.register(AGENT_TOOL))
    ctx.add_disposer(tools.register(SEND_MESSAGE_TOOL))
