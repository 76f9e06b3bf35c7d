"""The ``Agent`` and ``SendMessage`` tools as a session registers them (``subagent_plugin``):
names, descriptions and input schemas, with bodies imported at the first call.

Every session with subagents registers both tools; most never call them. Their bodies
(``_subagent.run_agent_tool``, ``_send_message_tool.run_send_message``) and what those stand
on (the child agent, its launch, the hand-back, the task output files) are imported when
first called, so a run that starts no subagent imports none of it.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

from dsh.agent._send_message import SEND_MESSAGE
from dsh.agent._send_message_text import DESCRIPTION as SEND_MESSAGE_DESCRIPTION
from dsh.agent._send_message_text import INPUT_SCHEMA as SEND_MESSAGE_SCHEMA
from dsh.context import Context
from dsh.tools import TOOLS, LazyModel, ToolBody, ToolDefinition, ToolInvocation, ToolResult

if TYPE_CHECKING:
    from dsh.agent._subagent_input import AgentToolInput

__all__ = [
    "AGENT_INPUT",
    "AGENT_TOOL",
    "DEFAULT_SUBAGENT_TYPE",
    "SEND_MESSAGE_DECLARED",
    "subagent_plugin",
    "with_body",
]

DEFAULT_SUBAGENT_TYPE = "general-purpose"

_DESCRIPTION = (
    "Launch a subagent to handle a task on its own. It works in a fresh conversation with the "
    "same tools and returns its final answer as this tool's result. Give it a short "
    "description and a complete, self-contained prompt."
)


def _body_in(module: str, name: str) -> ToolBody:
    """A body that imports ``module`` at its first call and hands every call to its ``name``."""

    async def run(inv: ToolInvocation) -> ToolResult:
        body: ToolBody = getattr(import_module(module), name)
        return await body(inv)

    return run


def with_body(declared: ToolDefinition, run: ToolBody) -> ToolDefinition:
    """``declared`` with its real body: the definition of the body's own module."""
    return replace(declared, run=run)


AGENT_INPUT: LazyModel[AgentToolInput] = LazyModel("dsh.agent._subagent_input", "AgentToolInput")
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
    run=_body_in("dsh.agent._subagent", "run_agent_tool"),
    input_model=AGENT_INPUT,
)
"""The ``Agent`` tool; ``subagent_plugin`` registers it."""

SEND_MESSAGE_DECLARED = ToolDefinition(
    name=SEND_MESSAGE,
    description=SEND_MESSAGE_DESCRIPTION,
    input_schema=SEND_MESSAGE_SCHEMA,
    run=_body_in("dsh.agent._send_message_tool", "run_send_message"),
    input_model=LazyModel("dsh.agent._send_message_input", "SendMessageInput"),
    deferred=True,
)
"""The ``SendMessage`` tool as registered (``_send_message_tool.SEND_MESSAGE_TOOL`` is it with
its body)."""


def subagent_plugin(ctx: Context) -> None:
    """Register the ``Agent`` and ``SendMessage`` tools on the scope's registry (removed when
    the scope is disposed)."""
    tools = ctx.require(TOOLS)
    ctx.add_disposer(tools.register(AGENT_TOOL))
    ctx.add_disposer(tools.register(SEND_MESSAGE_DECLARED))
