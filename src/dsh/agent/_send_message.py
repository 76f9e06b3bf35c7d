"""SendMessage: 2.1.332's tool that continues one of the session's subagents (its texts).

A deferred tool (loaded with ToolSearch), registered with ``Agent`` by ``subagent_plugin``
(``_send_message_tool.SEND_MESSAGE_TOOL``, which delivers; this module holds what it says);
while it is registered, an Agent result offers it (``canContinueAgent``). ``to`` names a
subagent this agent started, by the ``agentId`` its Agent result gave:
- one still running gets the message at its next step (steering; a turn that would end
  with it pending goes on), and the result says it was queued;
- one that finished is resumed in the background from its session, the message its next
  user message (2.1.332's ``The coordinator sent a message while you were working:`` frame),
  between SubagentStart and SubagentStop; when it stops, the caller gets a
  ``<task-notification>`` naming this call, as for a background launch.
Any other recipient (teammates, ``main``, other sessions: dsh has none) is answered as
2.1.332 answers a name it cannot address. The results are 2.1.332's JSON text; the
``tool_response`` of a resume also carries ``revivedAgentId``. Recorded:
``tests/fixtures/claude_send_message.json`` (``benchmarks/record_claude_send_message.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from dsh.tools import ToolResult

__all__ = [
    "SEND_MESSAGE",
    "delivered_text",
    "not_addressable",
    "queued",
    "resumed",
    "send_result",
]

SEND_MESSAGE: Final = "SendMessage"


def delivered_text(message: str) -> str:
    """What the addressed agent reads (2.1.332's frame, for a running or a resumed agent)."""
    return (
        f"The coordinator sent a message while you were working:\n{message}\n\n"
        "Address this before completing your current task."
    )


def _json(value: Mapping[str, Any]) -> str:
    # JSON.stringify's form: compact, non-ASCII as is.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def send_result(data: Mapping[str, Any], *, output: Mapping[str, Any] | None = None) -> ToolResult:
    """A result as 2.1.332 gives one: the data as JSON text; ``output`` the fuller record
    hooks get as ``tool_response`` (the data, when not given)."""
    return ToolResult.ok(_json(data), output=dict(output if output is not None else data))


def not_addressable(to: str) -> ToolResult:
    """2.1.332's answer for a name no agent of this session has."""
    message = (
        f"No agent named '{to}' is currently addressable. Spawn a new one or use the agent ID."
    )
    return send_result({"success": False, "message": message})


def queued(to: str) -> ToolResult:
    """2.1.332's answer for a message to an agent still running."""
    message = (
        f"Message queued for delivery to {to} at its next tool round. If it finishes first, it"
        " is resumed with the message and notifies again, so wait for that notification before"
        " resending."
    )
    return send_result({"success": True, "message": message})


def resumed(agent_id: str) -> ToolResult:
    """2.1.332's answer for a finished agent resumed with the message; ``pin.ref`` is its
    reference for the agent: the first six hex digits of the sha256 of ``subagent:<id>``."""
    import hashlib  # a resumed agent's ref: a SendMessage call's, not every run's

    ref = hashlib.sha256(f"subagent:{agent_id}".encode()).hexdigest()[:6]
    pin = {"id": agent_id, "name": agent_id, "ref": ref}
    data = {
        "success": True,
        "message": f"Resuming agent {agent_id[:7]}",
        "resumedAgentId": agent_id,
    }
    output = {**data, "revivedAgentId": agent_id, "pin": pin}
    return send_result({**data, "pin": pin}, output=output)
