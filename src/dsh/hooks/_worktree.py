"""``dsh run --worktree``'s worktree made by a bridge's hooks (Claude Code's WorktreeCreate).

``hooks_worktree`` asks each profile ``selection`` mounts that can make one (the Claude Code
profile: its WorktreeCreate hooks, fired before the session as 2.1.332 fires them); ``None``
when none declares such a hook, and git makes it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from dsh.hooks._select import HookSelection, mount_bridges

__all__ = ["hooks_worktree"]


def hooks_worktree(
    project: Path, name: str, selection: HookSelection, *, session_id: str, trust: bool
) -> Path | None:
    """The folder the session ``session_id`` runs in, made by the hooks of ``project``
    (``trust``: ``--trust-project``, the project trusted first); ``WorktreeError`` when they
    fail; ``None`` when no hook makes it. A project hook not trusted is left out."""
    chosen = dataclasses.replace(selection, refuse_untrusted=False)
    for profile in mount_bridges(project, chosen).profiles:
        make = getattr(profile, "session_worktree", None)
        if make is None:
            continue
        if trust:
            profile.trust(project)
        made: Path | None = make(project, name, session_id=session_id)
        if made is not None:
            return made
    return None
