"""dsh.hooks: the protocol bridges (``dsh.hooks.claude``, ``dsh.hooks.codex``) and the choice
of which of them a session mounts (``mount_bridges``), shared by ``dsh run`` and ``dsh acp``."""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.hooks._select import (
    BRIDGE_CHOICES,
    BridgeMounts,
    HooksChoice,
    HookSelection,
    bridges_for,
    mount_bridges,
)

if TYPE_CHECKING:
    from dsh.hooks._worktree import hooks_worktree, hooks_worktree_removed

__all__ = [
    "BRIDGE_CHOICES",
    "BridgeMounts",
    "HookSelection",
    "HooksChoice",
    "bridges_for",
    "hooks_worktree",
    "hooks_worktree_removed",
    "mount_bridges",
]

publish(globals())

# Only `dsh run --worktree` needs it.
__getattr__ = lazy(globals(), {"dsh.hooks._worktree": ("hooks_worktree", "hooks_worktree_removed")})
