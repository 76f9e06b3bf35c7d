"""``/add-dir [DIR]``: a working directory at the terminal, unavailable in a ``dsh run`` prompt.

Interactive (``dsh`` at a terminal) it is Claude Code's command
(``dsh.hooks.claude.add_working_directory``: DirectoryAdded with ``source:
"slash_command"``). A prompt of ``dsh run`` is Claude Code's ``-p`` mode,
where 2.1.332 answers ``/add-dir isn't available in this environment.`` and
runs no turn; so does dsh.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from dsh.cli._model_command import slash_argument

if TYPE_CHECKING:
    from dsh.agent import Agent
    from dsh.cli._terminal import RecordingProfile

__all__ = ["ADD_DIR_UNAVAILABLE", "add_dir_command", "add_dir_interactive"]

ADD_DIR_UNAVAILABLE: Final = "/add-dir isn't available in this environment."
"""2.1.332's answer to ``/add-dir`` in ``claude -p`` (the conformance README)."""


def add_dir_command(prompt: str) -> str | None:
    """The directory a ``/add-dir [DIR]`` prompt names (``""`` for none), else ``None``."""
    return slash_argument(prompt, "/add-dir")


async def add_dir_interactive(
    agent: Agent, profiles: Sequence[RecordingProfile], directory: str
) -> str:
    """Add ``directory`` to the session's working directories; the line to show."""
    # Interactive only: a ``dsh run`` whose hooks are Codex's alone never loads this bridge.
    from dsh.hooks.claude import ClaudeCodeMount, add_working_directory

    state = None
    for profile in profiles:
        mount = profile.mount
        if isinstance(mount, ClaudeCodeMount) and mount.permissions is not None:
            state = mount.permissions.state
    return await add_working_directory(agent, state, directory)
