"""``dsh run --worktree``'s worktree made as a bridge makes it (Claude Code's WorktreeCreate
hooks, or git as its ``worktree`` settings say).

``hooks_worktree`` asks the first profile ``selection`` mounts that can make one (the Claude
Code profile: its WorktreeCreate hooks, fired before the session as 2.1.332 fires them, else
git with its settings); ``None`` when none can, and plain git makes it.
``hooks_worktree_removed`` fires the same profile's WorktreeRemove hooks for a worktree its
WorktreeCreate hooks made, when the exit question of an interactive session removes it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from dsh.base._worktree import WorktreeRemoval
from dsh.hooks._select import HookSelection, mount_bridges

__all__ = ["hooks_worktree", "hooks_worktree_removed"]


def hooks_worktree(
    project: Path, name: str, selection: HookSelection, *, session_id: str, trust: bool
) -> Path | None:
    """The folder the session ``session_id`` runs in, made by the bridge of ``project``
    (``trust``: ``--trust-project``, the project trusted first); ``WorktreeError`` when it
    cannot be; ``None`` when no profile makes worktrees. A project hook not trusted is left
    out."""
    chosen = dataclasses.replace(selection, refuse_untrusted=False)
    for profile in mount_bridges(project, chosen).profiles:
        make = getattr(profile, "session_worktree", None)
        if make is None:
            continue
        if trust:
            profile.trust(project)
        made: Path = make(project, name, session_id=session_id)
        return made
    return None


def hooks_worktree_removed(
    project: Path, path: Path, selection: HookSelection, *, session_id: str
) -> WorktreeRemoval:
    """What the WorktreeRemove hooks of the first profile that has them did with ``path``
    (``not-configured`` when no profile fires them: git removes it)."""
    chosen = dataclasses.replace(selection, refuse_untrusted=False)
    for profile in mount_bridges(project, chosen).profiles:
        remove = getattr(profile, "worktree_removed", None)
        if remove is not None:
            removal: WorktreeRemoval = remove(project, path, session_id=session_id)
            return removal
    return WorktreeRemoval("not-configured")
