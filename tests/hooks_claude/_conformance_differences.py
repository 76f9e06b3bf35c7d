"""The conformance replay's expected differences: what 2.1.332 does that dsh does not (yet).

``EXPECTED_DIFFERENCES``: case → reason (a strict xfail). The other tables hold a difference
every case shares, checked as strictly: a hook-environment variable Claude Code sets that dsh
does not (dsh's environment must lack it), a payload value dsh sends differently and a trait
of the stdin layout dsh does not share (each must still differ). Each reason names what 2.1.332
does, what dsh does, and the issue that changes it.
"""

from __future__ import annotations

# The named reasons; a case's entry is one of them, with the case's own particulars.
AUTO_MODE = (
    "needs Claude Code's auto mode: 2.1.332 denies the call (`Auto mode is unavailable: …`) and"
    " fires PermissionDenied; dsh has no auto-mode classifier, so it refuses `auto`"
    " (PermissionModeError) and the case cannot run"
)
EXPECTED_DIFFERENCES: dict[str, str] = {
    # Auto mode (the permission issue).
    "perm-denied-auto": f"{AUTO_MODE} (issue 14)",
    "perm-denied-retry": f"{AUTO_MODE}; PermissionDenied `retry: true` adds a user text (issue 14)",
    "exit2-permission-denied": f"{AUTO_MODE}; PermissionDenied exit 2 (issue 14)",
}

_NO_CONCEPT = (
    "dsh has no {what}, so it sets none (a limit the coverage page states in its hook"
    " environment paragraph) (issue 13)"
)

EXPECTED_ENV_DIFFERENCES: dict[str, str] = {
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

EXPECTED_STYLE_DIFFERENCES: dict[str, str] = {}

_MODEL_NAMES = (
    "2.1.332 sends its catalog's model ids (`claude-opus-5-5`, `claude-sonnet-5-5` for"
    " `sonnet`); dsh sends its own model's name (`--model`; the replay's scripted models are"
    " `scripted:…`), `requested_model` being the same in both (a limit of the coverage table)"
    " (issue 13)"
)
EXPECTED_VALUE_DIFFERENCES: dict[str, str] = {
    "from_model": _MODEL_NAMES,
    "to_model": _MODEL_NAMES,
}

# Parts of a background subagent's texts (the launch result, the `<task-notification>`) that
# differ from the recording in every run; the replay compares each text with them in a form
# both share (`_conformance_text`), so everything else in the text is compared exactly.
EXPECTED_TEXT_DIFFERENCES: dict[str, str] = {
    "output_file": (
        "2.1.332 writes a background subagent's output to"
        " `/tmp/claude-<uid>/<project slug>/<session>/tasks/<agent>.output`; dsh writes it in"
        " its own session directory, `<session dir>/<session>/tasks/<agent>.output` (private,"
        " bounded, never in a shared /tmp), so only the part from `/<session>/` on is the same"
        " (issue 13)"
    ),
    "SendMessage": (
        "2.1.332's launch result offers `Use SendMessage with to: '<agent>', summary: …` when"
        " the caller holds its SendMessage tool; dsh has no tool that messages a running agent,"
        " so by 2.1.332's own rule for a caller without one its result leaves that sentence"
        " out (and its `tool_response.canContinueAgent` is false) (issue 13)"
    ),
}
