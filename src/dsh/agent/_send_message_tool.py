"""The ``SendMessage`` tool: delivers a message to a subagent this agent started.

What it says is ``_send_message``'s (2.1.332's texts); this module reaches the subagent:
one still running is steered (the message at its next step), one that finished is resumed
in the background from its session (``_subagent_launch.start_background``), in its
worktree when it had one. ``subagent_plugin`` registers the tool with ``Agent``.
"""

from __future__ import annotations

from dsh.agent._agent import Agent
from dsh.agent._send_message import delivered_text, not_addressable, queued, resumed
from dsh.agent._subagent_child import child_agent, started_subagents
from dsh.agent._subagent_launch import start_background
from dsh.agent._subagent_tools import SEND_MESSAGE_DECLARED, with_body
from dsh.agent._task_output import open_output
from dsh.tools import ToolInvocation, ToolResult

__all__ = ["SEND_MESSAGE_TOOL", "continue_subagent", "run_send_message"]


async def continue_subagent(parent: Agent, inv: ToolInvocation, to: str, text: str) -> ToolResult:
    """SendMessage's delivery of ``text`` to the subagent ``to`` (``_send_message``): queued
    for one still running, a background resume of one that finished."""
    started = started_subagents(parent).get(to)
    store = parent.store
    if started is None or store is None:
        return not_addressable(to)
    if not started.child.closed:
        started.child.steer(text)
        return queued(to)
    session = store.open(started.child.session_id)
    output = open_output(parent, to, append=True)  # 2.1.332 continues the file
    on_event = output.write if output is not None else None
    args = started.args.model_copy(update={"prompt": text})
    cwd = started.child.workspace.cwd  # a worktree child resumes in its worktree
    child = child_agent(parent, session, store, inv, args, to, on_event, started.kind, cwd)
    started.child = child
    start_background(parent, child, inv, args, output)
    return resumed(to)


async def run_send_message(inv: ToolInvocation) -> ToolResult:
    """SendMessage's body (``_subagent_tools.SEND_MESSAGE_DECLARED`` hands its calls here)."""
    parent = inv.agent
    if not isinstance(parent, Agent):
        return ToolResult.error("SendMessage runs only inside an agent")
    message = inv.arguments.get("message", "")
    if not isinstance(message, str) or not message.strip():
        return ToolResult.error("message must be non-empty plain text")
    return await continue_subagent(parent, inv, str(inv.arguments["to"]), delivered_text(message))


SEND_MESSAGE_TOOL = with_body(SEND_MESSAGE_DECLARED, run_send_message)
"""The ``SendMessage`` tool with its body (``subagent_plugin`` registers it declared, its body
imported at the first call)."""
