"""Where a Claude Code handler came from (``where``) and the diagnostics that leave one out.

Shared by the runtime's ``hook/skipped`` and ``dsh hooks why``.
"""

from __future__ import annotations

from typing import Final

from dsh.hook_protocol import SelectionCode
from dsh.hooks.claude.settings._types import HookDeclaration

__all__ = ["DIAGNOSED", "where"]

DIAGNOSED: Final[dict[str, SelectionCode]] = {
    "unknown-event": "unsupported",
    "unsupported-event": "unsupported",
    "unsupported-type": "unsupported",
    "bad-timeout": "timeout",
    "if-never-runs": "if",
    "bad-if": "if",
    "bad-matcher": "matcher",
    "suite-skipped": "invalid",
    "missing-type": "invalid",
    "unknown-type": "invalid",
    "type-not-allowed": "invalid",
    "missing-command": "invalid",
    "bad-shape": "invalid",
}
"""The diagnostics that leave a handler out, and the reason each gives."""


def where(decl: HookDeclaration) -> str:
    plugin = f" (plugin {decl.plugin})" if decl.plugin else ""
    return f"{decl.source.label}{plugin}: {decl.event}[{decl.group_index}][{decl.hook_index}]"
