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
from typing import TYPE_CHECKING, Any, Final

from dsh.agent import (
    AGENT_TYPES,
    PROMPT_SUBMIT,
    WORKTREE_MAKER,
    Agent,
    PromptAllow,
    PromptDecision,
    PromptSource,
)
from dsh.context import Context, Next
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE
from dsh.messages import Content
from dsh.session import ContextMessageEvent

if TYPE_CHECKING:
    from dsh.hooks.claude.answers._answer import HookAnswer
    from dsh.hooks.claude.payloads import WorktreeCreateHookInput

__all__ = ["AGENT_LISTING_SOURCE", "AgentListing"]

AGENT_LISTING_SOURCE = f"{SOURCE}:agents"

WORKTREE_HOOK_FAILED: Final = (
    "WorktreeCreate hook failed: hook succeeded but returned no worktree path (command: echo"
    " the path to stdout; http/callback: return hookSpecificOutput.worktreePath)"
)
"""2.1.332's words for a WorktreeCreate hook that gave no usable path, whatever failed (exit 1,
exit 2, no output, a folder that is not there: ``flag-hook-*`` and ``subagent-hook-exit2`` in
tests/fixtures/claude_worktree.json); the ``Agent`` call's error result."""


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

    async def _worktree_by_hook(self, parent: Agent, name: str) -> Path:
        """WorktreeCreate fired for an ``isolation: worktree`` subagent (``worktree-subagent``:
        after the Agent call's PreToolUse, before SubagentStart, ``name`` ``agent-<id>``): the
        folder the first hook printed (``hookSpecificOutput.worktreePath`` in JSON)."""
        from dsh.base._worktree import WorktreeError

        payload: WorktreeCreateHookInput = self._base(
            parent, "WorktreeCreate", permission=False, agent_fields=False, effort=False
        )
        payload["name"] = name
        hooks = self.catalog.for_event("WorktreeCreate")
        merged = await self._fire(parent, "WorktreeCreate", hooks, payload)
        for _, answer in merged.answers:
            path = _answered_path(answer, parent.workspace.cwd)
            if path is not None:
                return path
        raise WorktreeError(WORKTREE_HOOK_FAILED)

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


def _answered_path(answer: HookAnswer, cwd: Path) -> Path | None:
    """The existing folder a WorktreeCreate answer names (exit 0 only), else ``None``."""
    if answer.exit_code != 0:
        return None
    named: Any = None
    if answer.json is not None:
        specific = answer.json.get("hookSpecificOutput")
        named = specific.get("worktreePath") if isinstance(specific, dict) else None
    elif answer.plain:
        named = next((line.strip() for line in answer.plain.splitlines() if line.strip()), None)
    if not isinstance(named, str) or not named or "\0" in named:
        return None
    path = (cwd / Path(named).expanduser()).resolve()
    return path if path.is_dir() else None
