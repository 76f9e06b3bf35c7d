"""``/agents``: the agent types the session's ``Agent`` tool offers, one line each."""

from __future__ import annotations

from dsh.agent import AGENT_TYPES, Agent, AgentTypes

__all__ = ["agents_report"]


def agents_report(agent: Agent) -> str:
    """Each agent type: its name, where it comes from, its tools, model and permission mode."""
    types = agent.ctx.get(AGENT_TYPES) or AgentTypes()
    lines = ["Agents (the Agent tool's subagent_type):"]
    for kind in types.all():
        where = kind.source if kind.path is None else f"{kind.source}: {kind.path}"
        parts = [f"{kind.name} ({where})", f"tools: {kind.tools_text()}"]
        parts.append(f"model: {kind.model or 'inherit'}")
        if kind.permission_mode is not None:
            parts.append(f"permission mode: {kind.permission_mode}")
        lines.append("  " + " · ".join(parts))
        lines.append(f"    {kind.description}")
    return "\n".join(lines)
