"""The ``Permissions (this session):`` section of ``/hooks``: mode, rules, directories.

``/hooks`` shows the running session's (``session_lines``: the mode in force and
who set it, every working directory and rule with where it came from, the updates a
PermissionRequest answer made included); the rules are listed as ``dsh hooks check``
lists the settings' (``dsh.hooks.claude.settings._report.rule_lines``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.hooks.claude.settings._report import rule_lines

if TYPE_CHECKING:
    from dsh.hooks.claude.permissions._plugin import PermissionState

__all__ = ["session_lines"]


def session_lines(state: PermissionState) -> list[str]:
    """The running session's permissions: what ``/hooks`` shows."""
    lines = ["Permissions (this session):", f"  mode: {state.mode} ({state.mode_source})"]
    lines.append("  working directories:")
    lines += [f"    {d.path} ({_directory_source(d.source)})" for d in state.directories]
    return lines + rule_lines(state.rules)


def _directory_source(source: str) -> str:
    if source in ("project", "--add-dir", "session"):
        return source
    if source in ("slash_command", "register_repo_root"):
        return f"added: {source}"
    return f"additionalDirectories in {source}"
