"""Instructions files: Claude Code's ``CLAUDE.md`` family and Codex's ``AGENTS.md``, in context.

``find_instructions(cwd, config_dir=...)`` finds the files Claude Code loads
for a directory (managed, user, project and local ``CLAUDE.md`` files, rules,
``@imports``), in its order; ``render_instructions`` is the context text the
model reads for them; ``claude_instructions_plugin()`` queues that text at
each root session's start and fires ``agent/instructions-loaded`` per file;
an ``InstructionsGate`` (project trust) decides which of the project's own
files may load (the Claude Code bridge's admits them all once the project is trusted;
``_gate.fingerprint`` is what a trust record still keeps of one).
``codex_instructions_plugin(codex_home=...)`` does the same for Codex's
``AGENTS.md`` files (``find_agents_files``, ``render_agents``; an ``AgentsGate``
may refuse a repository file: the Codex bridge passes none).
Kept apart from the hook bridge (``dsh.hooks.claude``) so a run without hooks
does not load the bridge. The ``AGENTS.md`` names load when first asked for: only a run
with the Codex bridge reads those files.
"""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.instructions._claude_md import LoadedInstructions, find_instructions, render_instructions
from dsh.instructions._gate import InstructionsGate
from dsh.instructions._plugin import ClaudeInstructionsPlugin, claude_instructions_plugin

__all__ = [
    "AgentsFile",
    "AgentsGate",
    "ClaudeInstructionsPlugin",
    "CodexInstructionsPlugin",
    "InstructionsGate",
    "LoadedInstructions",
    "claude_instructions_plugin",
    "codex_instructions_plugin",
    "find_agents_files",
    "find_instructions",
    "render_agents",
    "render_instructions",
]

publish(globals())

# Codex's AGENTS.md: a run without the Codex bridge never imports it.
if TYPE_CHECKING:
    from dsh.instructions._agents_md import (
        AgentsFile,
        AgentsGate,
        CodexInstructionsPlugin,
        codex_instructions_plugin,
        find_agents_files,
        render_agents,
    )

__getattr__ = lazy(
    globals(),
    {
        "dsh.instructions._agents_md": (
            "AgentsFile",
            "AgentsGate",
            "CodexInstructionsPlugin",
            "codex_instructions_plugin",
            "find_agents_files",
            "render_agents",
        ),
    },
)
