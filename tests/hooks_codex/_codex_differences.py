"""The recorded Codex cases dsh does not replay as recorded, each with its reason (strict xfails).

Each reason ends with the issue that owns lifting it. A case that passes must
leave this table (the xfail is strict).
"""

from __future__ import annotations

from typing import Final

EXPECTED_DIFFERENCES: Final[dict[str, str]] = {
    "perm-onrequest-escalate": (
        "no PermissionRequest answer: headless Codex hands the escalation to its automatic"
        " reviewer (Guardian, a second model conversation whose four requests the recording"
        " shows, and whose invalid answer rejects the call); dsh has no such reviewer and declines"
        " the escalation at once (same hooks and payloads, two model requests) (issue 28)"
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
