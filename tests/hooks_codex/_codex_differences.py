"""The recorded Codex cases dsh does not replay as recorded, each with its reason (strict xfails).

Each reason ends with the issue that owns lifting it. A case that passes must
leave this table (the xfail is strict).
"""

from __future__ import annotations

from typing import Final

EXPECTED_DIFFERENCES: Final[dict[str, str]] = {
    "perm-onrequest-escalate": (
        "Codex's exec_command with sandbox_permissions require_escalated: dsh has no exec_command"
        " tool and no sandbox, so the call is an unknown tool, not an escalation (issue 16)"
    ),
    "perm-request-allow": (
        "PermissionRequest fires on Codex's sandbox escalation of exec_command, which dsh has no"
        " equivalent for (no sandbox; the call is an unknown tool) (issue 16)"
    ),
    "perm-request-deny": (
        "PermissionRequest fires on Codex's sandbox escalation of exec_command, which dsh has no"
        " equivalent for (no sandbox; the call is an unknown tool) (issue 16)"
    ),
}

# Set by the recording (its npm launcher and rig), not by Codex: not expected from dsh.
RECORDING_ENV: Final = frozenset(
    {
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        "CODEX_MANAGED_BY_NPM",
        "CODEX_MANAGED_PACKAGE_ROOT",
    }
)
