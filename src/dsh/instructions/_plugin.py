"""``claude_instructions_plugin``: Claude Code's instructions files (``CLAUDE.md``) in context.

At a root session's start (``agent/session-start``, source ``startup`` or
``clear``) the plugin finds the files Claude Code loads for the session's
directory (``find_instructions``) and queues their text as one context
message, so the model reads it before the first prompt; after a compaction
(source ``compact``) it loads them again, since the summary replaced the
history that held them. A resumed session already holds them in its
history. ``agent/instructions-loaded`` fires for each file: at the first
prompt that goes through (Claude Code fires ``InstructionsLoaded`` after
``UserPromptSubmit``, when it builds the first request), and at once after
a compaction.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path

from dsh.agent import (
    INSTRUCTIONS_LOADED,
    PROMPT_SUBMIT,
    SESSION_START,
    Agent,
    InstructionsFile,
    InstructionsLoadReason,
    PromptDecision,
    PromptSource,
    SessionStartSource,
)
from dsh.context import Context, Next
from dsh.instructions._claude_md import find_instructions, render_instructions
from dsh.session import Content

__all__ = ["ClaudeInstructionsPlugin", "claude_instructions_plugin"]

_SOURCE = "claude-instructions"


class ClaudeInstructionsPlugin:
    """The plugin ``claude_instructions_plugin`` returns: ``ctx.plugin(plugin)`` mounts it."""

    def __init__(self, *, config_dir: Path | None = None, managed_dir: Path | None = None) -> None:
        self.config_dir = config_dir
        self.managed_dir = managed_dir
        self._pending: weakref.WeakKeyDictionary[Agent, list[InstructionsFile]] = (
            weakref.WeakKeyDictionary()
        )

    def apply(self, ctx: Context) -> None:
        ctx.on(SESSION_START, self._session_start)
        ctx.on(PROMPT_SUBMIT, self._prompt_submit)

    def _config(self) -> Path:
        if self.config_dir is not None:
            return self.config_dir
        configured = os.environ.get("CLAUDE_CONFIG_DIR")
        return Path(configured).expanduser() if configured else Path.home() / ".claude"

    async def _session_start(self, agent: Agent, source: SessionStartSource) -> None:
        if agent.parent is not None or source == "resume":
            return
        reason: InstructionsLoadReason = "compact" if source == "compact" else "session_start"
        loaded = find_instructions(
            agent.workspace.cwd,
            config_dir=self._config(),
            managed_dir=self.managed_dir,
            load_reason=reason,
        )
        if not loaded:
            return
        agent.inject(render_instructions(loaded), source=_SOURCE)
        files = [item.file for item in loaded]
        if reason == "compact":
            for file in files:
                await agent.ctx.emit(INSTRUCTIONS_LOADED, agent, file)
        else:
            self._pending[agent] = files

    async def _prompt_submit(
        self, agent: Agent, content: Content, source: PromptSource, nxt: Next[PromptDecision]
    ) -> PromptDecision:
        decision = await nxt()
        files = self._pending.get(agent)
        if files and not decision.blocked:
            del self._pending[agent]
            for file in files:
                await agent.ctx.emit(INSTRUCTIONS_LOADED, agent, file)
        return decision


def claude_instructions_plugin(
    *, config_dir: Path | None = None, managed_dir: Path | None = None
) -> ClaudeInstructionsPlugin:
    """Load Claude Code's instructions files into each root session's context.

    ``config_dir`` is Claude Code's configuration directory (default
    ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``) and ``managed_dir`` the managed
    policy directory (default ``/etc/claude-code``).
    """
    return ClaudeInstructionsPlugin(config_dir=config_dir, managed_dir=managed_dir)
