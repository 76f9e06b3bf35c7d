"""``claude_instructions_plugin``: Claude Code's instructions files (``CLAUDE.md``) in context.

At a root session's start (``agent/session-start``, source ``startup`` or
``clear``) the plugin finds the files Claude Code loads for the session's
directory (``find_instructions``) and queues their text as one context
message, so the model reads it before the first prompt; after a compaction
(source ``compact``) it loads them again, since the summary replaced the
history that held them. A resumed session already holds them in its
history. ``agent/instructions-loaded`` fires for each file as its text is
queued, before the first prompt's ``agent/prompt-submit`` (Claude Code 2.1.332
fires ``InstructionsLoaded`` before ``UserPromptSubmit``), and again after a
compaction. Given an ``InstructionsGate`` (project trust), the project's own
files load only as it admits them, and the ones it leaves out are named in a
notice.
"""

from __future__ import annotations

import os
from pathlib import Path

from dsh.agent import (
    INSTRUCTIONS_LOADED,
    SESSION_START,
    Agent,
    InstructionsLoadReason,
    SessionStartSource,
)
from dsh.context import Context
from dsh.instructions._claude_md import find_instructions, render_instructions
from dsh.instructions._gate import InstructionsGate

__all__ = ["ClaudeInstructionsPlugin", "claude_instructions_plugin", "instructions_config_dir"]

_SOURCE = "claude-instructions"


class ClaudeInstructionsPlugin:
    """The plugin ``claude_instructions_plugin`` returns: ``ctx.plugin(plugin)`` mounts it."""

    def __init__(
        self,
        *,
        config_dir: Path | None = None,
        managed_dir: Path | None = None,
        gate: InstructionsGate | None = None,
    ) -> None:
        self.config_dir = config_dir
        self.managed_dir = managed_dir
        self.gate = gate

    def apply(self, ctx: Context) -> None:
        ctx.on(SESSION_START, self._session_start)

    def _config(self) -> Path:
        return instructions_config_dir(self.config_dir)

    async def _session_start(self, agent: Agent, source: SessionStartSource) -> None:
        if agent.parent is not None or source == "resume":
            return
        reason: InstructionsLoadReason = "compact" if source == "compact" else "session_start"
        refused: list[str] = []
        loaded = find_instructions(
            agent.workspace.cwd,
            config_dir=self._config(),
            managed_dir=self.managed_dir,
            load_reason=reason,
            refused=refused,
        )
        if refused:
            agent.notice(
                "instructions files not loaded (a symlink out of the project): "
                + "; ".join(refused),
                source=_SOURCE,
                level="warning",
            )
        if self.gate is not None:
            loaded, notice = self.gate.admit(loaded)
            if notice is not None:
                agent.notice(notice, source=_SOURCE, level="warning")
        if not loaded:
            return
        agent.inject(render_instructions(loaded), source=_SOURCE)
        for item in loaded:
            await agent.ctx.emit(INSTRUCTIONS_LOADED, agent, item.file)


def instructions_config_dir(given: Path | None = None) -> Path:
    """Claude Code's configuration directory: ``given``, else ``$CLAUDE_CONFIG_DIR``, else
    ``~/.claude``."""
    if given is not None:
        return given
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".claude"


def claude_instructions_plugin(
    *,
    config_dir: Path | None = None,
    managed_dir: Path | None = None,
    gate: InstructionsGate | None = None,
) -> ClaudeInstructionsPlugin:
    """Load Claude Code's instructions files into each root session's context.

    ``config_dir`` is Claude Code's configuration directory (default
    ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``) and ``managed_dir`` the managed
    policy directory (default ``/etc/claude-code``). ``gate``: the project's own
    files load only as it admits them (project trust; ``None``: all load).
    """
    return ClaudeInstructionsPlugin(config_dir=config_dir, managed_dir=managed_dir, gate=gate)
