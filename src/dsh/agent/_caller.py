"""``calling_agent``: the ``Agent`` behind a tool call's caller, for a seam that needs one.

A tool seam sees its caller as a ``dsh.tools.ToolCaller``; a bridge that
needs the whole agent (its session, its notices) asks here instead of
checking the type itself.
"""

from __future__ import annotations

from dsh.agent._agent import Agent
from dsh.tools import ToolCaller

__all__ = ["calling_agent"]


def calling_agent(caller: ToolCaller | None) -> Agent | None:
    """``caller`` when it is a dsh ``Agent``; ``None`` for a bare registry caller or none."""
    return caller if isinstance(caller, Agent) else None
