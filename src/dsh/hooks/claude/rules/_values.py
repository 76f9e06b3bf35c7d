"""The values of Claude Code's ``permissions`` settings: rule entries, working directories,
the effective permissions of a project, and the mode names.

Below the settings that read them (``dsh.hooks.claude.settings._permissions``), so the
catalog can hold a project's permissions and the policy can use them without either
importing the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal, TypeAlias, final, get_args

from dsh._frozen import frozen
from dsh.hooks.claude.rules._grammar import PermissionRule
from dsh.hooks.claude.rules._modes import PermissionMode

__all__ = [
    "BEHAVIORS",
    "PERMISSION_MODES",
    "Behavior",
    "PermissionSettings",
    "RuleEntry",
    "WorkingDirectory",
    "parse_mode",
]

Behavior: TypeAlias = Literal["allow", "deny", "ask"]
BEHAVIORS: Final[tuple[Behavior, ...]] = ("deny", "ask", "allow")
PERMISSION_MODES: Final[tuple[PermissionMode, ...]] = get_args(PermissionMode)


def parse_mode(value: object) -> PermissionMode | None:
    """A mode name as Claude Code takes it (``manual`` is ``default``), else ``None``."""
    if value == "manual":
        return "default"
    if isinstance(value, str) and value in PERMISSION_MODES:
        return value
    return None


@final
@frozen(kw_only=True)
class RuleEntry:
    """A rule of a ``permissions`` list: what it says, and where it was written."""

    rule: PermissionRule
    behavior: Behavior
    source: str
    scope: str

    def describe(self) -> str:
        return f"{self.behavior} {self.rule.declared} ({self.scope}: {self.source})"


@final
@frozen(kw_only=True)
class WorkingDirectory:
    """A directory the session may work in besides the project, and who added it
    (``scope``: the settings kind of the file that listed it, ``""`` for any other way)."""

    path: Path
    source: str
    scope: str = ""


@final
@frozen(kw_only=True)
class PermissionSettings:
    """The effective ``permissions`` of a project: rules, default mode, directories, policy."""

    rules: tuple[RuleEntry, ...] = ()
    default_mode: PermissionMode | None = None
    default_mode_source: str | None = None
    directories: tuple[WorkingDirectory, ...] = ()
    managed_rules_only: bool = False
    bypass_disabled_by: str | None = None

    def of(self, behavior: Behavior) -> tuple[RuleEntry, ...]:
        return tuple(e for e in self.rules if e.behavior == behavior)
