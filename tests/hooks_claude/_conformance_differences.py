"""The conformance replay's expected differences: what 2.1.332 does that dsh does not (yet).

``EXPECTED_DIFFERENCES``: case → reason (a strict xfail). The other tables hold a difference
every case shares, checked as strictly: a hook-environment variable Claude Code sets that dsh
does not (dsh's environment must lack it), a payload field dsh does not send (dsh's payload
must lack it), a value dsh sends differently (it must differ). Each reason names what 2.1.332
does, what dsh does, and the issue that changes it.
"""

from __future__ import annotations

EXPECTED_DIFFERENCES: dict[str, str] = {}

_NO_CONCEPT = "dsh has no {what}: to be listed as a limit of the coverage table (issue 13)"

EXPECTED_ENV_DIFFERENCES: dict[str, str] = {
    "CLAUDE_PID": "2.1.332 sets the CLI's pid for every hook; dsh sets no CLAUDE_PID (issue 13)",
    "CLAUDE_CODE_SESSION_ATTENDED": (
        "2.1.332 sets it for every hook (`0` headless); dsh does not, where it could say whether"
        " a person is at the terminal (issue 13)"
    ),
    "CLAUDE_ENV_FILE": (
        "2.1.332 gives SessionStart, Setup and CwdChanged hooks"
        " `$CLAUDE_CONFIG_DIR/session-env/<session>/<event>-hook-<n>.sh`, whose exports reach"
        " later Bash commands; dsh sets none (issue 13)"
    ),
    "CLAUDE_CODE_CHILD_NOTES_DIR": (
        "2.1.332 sets `/tmp/claude-<uid>/<slug>/<session>/started` for every hook; "
        + _NO_CONCEPT.format(what="child-notes directory")
    ),
    "CLAUDE_CODE_MESSAGING_SOCKET": (
        "2.1.332 sets `/tmp/cc-socks/<pid>.sock` for every hook but SessionEnd; "
        + _NO_CONCEPT.format(what="messaging socket")
    ),
    "CLAUDE_CODE_MESSAGING_TOKEN": (
        "2.1.332 sets the messaging socket's token for every hook but SessionEnd; "
        + _NO_CONCEPT.format(what="messaging socket")
    ),
}

EXPECTED_FIELD_DIFFERENCES: dict[tuple[str, str], str] = {}

EXPECTED_VALUE_DIFFERENCES: dict[str, str] = {
    "effort": (
        "2.1.332 sends `effort.level` `medium` (its default model's); dsh sends the bridge's"
        " constant `high` (EFFORT_LEVEL), not dsh's effort setting (issue 13)"
    ),
}
