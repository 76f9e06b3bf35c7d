"""What Claude Code's ``/init`` asks the model: to write the project's ``CLAUDE.md``.

Shared by the interactive terminal's ``/init`` and the ACP session's.
"""

from __future__ import annotations

from typing import Final

__all__ = ["INIT_PROMPT"]

INIT_PROMPT: Final = (
    "Please analyze this codebase and create a CLAUDE.md file, which will be given to future "
    "instances of Claude Code to operate in this repository.\n\n"
    "What to add:\n"
    "1. Commands that will be commonly used, such as how to build, lint, and run tests, "
    "including how to run a single test.\n"
    "2. High-level code architecture and structure, so that future instances can be "
    "productive more quickly: the big picture that needs reading several files to see.\n\n"
    "If there's already a CLAUDE.md, suggest improvements to it. Do not repeat yourself, "
    "do not list every file, and do not make up information that is not in the repository."
)
"""What ``/init`` asks the model (the opening of Claude Code's own /init request)."""
