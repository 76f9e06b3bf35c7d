"""dsh.hooks: the protocol bridges (``dsh.hooks.claude``, ``dsh.hooks.codex``) and the choice
of which of them a session mounts (``mount_bridges``), shared by ``dsh run`` and ``dsh acp``."""

from dsh._public import publish
from dsh.hooks._select import (
    BRIDGE_CHOICES,
    BridgeMounts,
    HooksChoice,
    HookSelection,
    bridges_for,
    mount_bridges,
)

__all__ = [
    "BRIDGE_CHOICES",
    "BridgeMounts",
    "HookSelection",
    "HooksChoice",
    "bridges_for",
    "mount_bridges",
]

publish(globals())
