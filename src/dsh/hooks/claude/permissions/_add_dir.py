"""``/add-dir DIR`` in the interactive terminal: a working directory for this session.

As Claude Code 2.1.332's command: the path (``~`` expanded, relative to the
session's current directory) must be an existing directory that is not
already inside a working directory; it then joins the session through
``agent.add_directory`` (``source: "slash_command"``: DirectoryAdded fires,
and the permission policy counts it) and the answer is Claude Code's line.
Every refusal is Claude Code's wording too. In a headless run ``/add-dir``
is not available (the CLI answers as ``claude -p`` does).
"""

from __future__ import annotations

import os.path
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dsh.agent import Agent
    from dsh.hooks.claude.permissions._plugin import PermissionState

__all__ = ["add_working_directory", "checked_directory"]


async def add_working_directory(agent: Agent, state: PermissionState | None, text: str) -> str:
    """Add the directory ``text`` names; the line to show (what was done, or why not).

    ``state`` is the Claude Code permission state when one is mounted: its working
    directories (the project, ``--add-dir``, ``additionalDirectories``, ...) count as
    already added; without one, the project and the session's added directories do.
    """
    project = agent.workspace.project_dir or agent.workspace.cwd
    known = state.paths() if state is not None else (project, *agent.directories)
    checked = checked_directory(text, cwd=agent.workspace.cwd, project=project, known=known)
    if isinstance(checked, str):
        return checked
    added = await agent.add_directory(checked, source="slash_command")
    return f"Added {added} as a working directory for this session"


def checked_directory(text: str, *, cwd: Path, project: Path, known: Sequence[Path]) -> Path | str:
    """The directory ``text`` names, resolved, or Claude Code's line saying why not."""
    given = text.strip()
    if not given:
        return "Give a directory path."
    if "\x00" in given:
        shown = given.replace("\x00", "\\0")
        return (
            f"Path {shown} contains a null character, so it can't be used as a working"
            " directory. Remove the null character from the path or from the settings entry"
            " that lists it."
        )
    try:
        path = Path(os.path.realpath(os.path.join(cwd, os.path.expanduser(given))))
        exists, is_dir = path.exists(), path.is_dir()
    except (OSError, ValueError):
        return (
            f"Path {given} couldn't be resolved, so it can't be used as a working directory."
            " Check the path or the settings entry that lists it."
        )
    if not exists:
        return f"Path {path} was not found."
    if not is_dir:
        return (
            f"{given} is not a directory. Did you mean to add the parent directory {path.parent}?"
        )
    for directory in known:
        if path != directory and not path.is_relative_to(directory):
            continue
        original = directory == project
        if path == directory:
            if original:
                return f"{given} is already the current working directory."
            return f"{given} is already added as a working directory."
        which = "the current working directory" if original else "the additional working directory"
        return f"{given} is already accessible within {which} {directory}."
    return path
