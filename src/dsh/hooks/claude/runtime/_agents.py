"""Custom subagents on the session: the agent types offered, and the list the model is given.

``AgentListing._mount_agents`` provides ``dsh.agent.AGENT_TYPES`` (the custom agents of
``.claude/agents``, the user's and the plugins', beside ``general-purpose``), so that the
``Agent`` tool starts them by ``subagent_type`` with their tools, model and prompt; and
gives the model 2.1.332's list of agent types (``Available agent types for the Agent
tool:`` …) as context with the session's first prompt. The agents' own hooks are selected
by the runtime (``Runtime.scoped``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dsh.agent import (
    AGENT_TYPES,
    PROMPT_SUBMIT,
    WORKTREE_MAKER,
    WORKTREE_SETTINGS,
    Agent,
    PromptAllow,
    PromptDecision,
    PromptSource,
)
from dsh.context import Context, Next
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE
from dsh.hooks.claude.runtime._worktree_hook import tried_of, worktree_of
from dsh.messages import Content
from dsh.session import ContextMessageEvent

if TYPE_CHECKING:
    from dsh.hooks.claude.payloads import WorktreeCreateHookInput

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
        if self.declared("WorktreeCreate"):  # the hook makes subagents' worktrees, not git
            ctx.provide(WORKTREE_MAKER, self._worktree_by_hook)
        if self.catalog.worktree is not None:  # git follows them, as for --worktree
            ctx.provide(WORKTREE_SETTINGS, self.catalog.worktree)

    async def _worktree_by_hook(self, parent: Agent, name: str) -> Path:
        """WorktreeCreate fired for an ``isolation: worktree`` subagent (``worktree-subagent``:
        after the Agent call's PreToolUse, before SubagentStart, ``name`` ``agent-<id>``): the
        folder the first hook that exited 0 printed last, read as 2.1.332 reads it
        (``worktree_of``: a failure's words are the ``Agent`` call's error result)."""
        payload: WorktreeCreateHookInput = self._base(
            parent, "WorktreeCreate", permission=False, agent_fields=False, effort=False
        )
        payload["name"] = name
        hooks = list(self.catalog.for_event("WorktreeCreate"))
        merged = await self._fire(parent, "WorktreeCreate", hooks, payload)
        tried = sorted(tried_of(merged), key=lambda t: hooks.index(t.hook))
        return worktree_of(tried, parent.workspace.cwd)

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
