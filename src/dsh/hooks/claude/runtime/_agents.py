"""Custom subagents on the session: the agent types offered, and the list the model is given.

``AgentListing._mount_agents`` provides ``dsh.agent.AGENT_TYPES`` (the custom agents of
``.claude/agents``, the user's and the plugins', beside ``general-purpose``), so that the
``Agent`` tool starts them by ``subagent_type`` with their tools, model and prompt; and
gives the model 2.1.332's list of agent types (``Available agent types for the Agent
tool:`` …) as context with the session's first prompt. The agents' own hooks are selected
by the runtime (``Runtime.scoped``).
"""

from __future__ import annotations

from dsh.agent import AGENT_TYPES, PROMPT_SUBMIT, Agent, PromptAllow, PromptDecision, PromptSource
from dsh.context import Context, Next
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE
from dsh.messages import Content
from dsh.session import ContextMessageEvent

__all__ = ["AGENT_LISTING_SOURCE", "AgentListing"]

AGENT_LISTING_SOURCE = f"{SOURCE}:agents"


class AgentListing(Handlers):
    """The custom agents' part of the bridge."""

    def _mount_agents(self, ctx: Context) -> None:
        agents = self.runtime.agents
        # Always: an unknown type is refused as 2.1.332 refuses it, custom agents or not.
        ctx.provide(AGENT_TYPES, agents.types())
        if agents.agents:
            ctx.on(PROMPT_SUBMIT, self._list_agents)

    async def _list_agents(
        self, agent: Agent, content: Content, source: PromptSource, nxt: Next[PromptDecision]
    ) -> PromptDecision:
        decision = await nxt()
        if source != "user" or agent.parent is not None or not isinstance(decision, PromptAllow):
            return decision
        listing = self.runtime.agents.types().listing()
        if any(isinstance(e, ContextMessageEvent) and listing in e.text for e in agent.events):
            return decision  # a resumed session has it
        extra = "\n".join(t for t in (decision.additional_context, listing) if t)
        source_name = decision.source or AGENT_LISTING_SOURCE
        return PromptDecision.allow(decision.content, extra, source=source_name)
