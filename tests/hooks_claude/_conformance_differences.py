"""The conformance replay's expected differences: what 2.1.332 does that dsh does not (yet).

``EXPECTED_DIFFERENCES``: case → reason (a strict xfail). The other tables hold a difference
every case shares, checked as strictly: a hook-environment variable Claude Code sets that dsh
does not (dsh's environment must lack it), a payload value dsh sends differently and a trait
of the stdin layout dsh does not share (each must still differ). Each reason names what 2.1.332
does, what dsh does, and the issue that changes it.
"""

from __future__ import annotations

# The named reasons; a case's entry is one of them, with the case's own particulars.
STREAM_JSON = (
    "needs `--input-format stream-json` with control requests, which `dsh run` has no"
    " equivalent for"
)
SLASH = "needs slash commands (`.claude/commands`, `/model`) or skills, which dsh has none of"
AUTO_MODE = (
    "needs Claude Code's auto mode: 2.1.332 denies the call (`Auto mode is unavailable: …`) and"
    " fires PermissionDenied; dsh has no auto-mode classifier, so it refuses `auto`"
    " (PermissionModeError) and the case cannot run"
)
EXPECTED_DIFFERENCES: dict[str, str] = {
    # Command-line features dsh lacks (the case cannot even be driven).
    "dir-added-sdk": f"{STREAM_JSON} (`register_repo_root` → DirectoryAdded) (issue 13)",
    "exit2-dir-added": f"{STREAM_JSON} (`register_repo_root` → DirectoryAdded) (issue 13)",
    "model-switch-sdk": f"{STREAM_JSON} (`set_model` → Pre/PostModelSwitch) (issue 13)",
    "model-switch-deny": f"{STREAM_JSON} (`set_model` → PreModelSwitch deny) (issue 13)",
    "exit2-model-switch": f"{STREAM_JSON} (`set_model` → PreModelSwitch exit 2) (issue 13)",
    "exit2-post-model-switch": f"{STREAM_JSON} (`set_model` → PostModelSwitch) (issue 13)",
    "slash-command": f"{SLASH}: `/sample-cmd` and UserPromptExpansion (issue 13)",
    "exit2-expansion": f"{SLASH}: `/sample-cmd` and UserPromptExpansion exit 2 (issue 13)",
    "model-switch-slash": f"{SLASH}: `/model sonnet` and PreModelSwitch (issue 13)",
    "model-switch-slash-deny": f"{SLASH}: `/model sonnet` and PreModelSwitch deny (issue 13)",
    "skill-shell-command": (
        f"{SLASH}: a command's `!`-command and PreSkillShellCommand, an event missing from"
        " HOOK_EVENT_HOST_SUPPORT (issue 13)"
    ),
    "skill-shell-deny": (
        f"{SLASH}: PreSkillShellCommand deny, an event missing from HOOK_EVENT_HOST_SUPPORT"
        " (issue 13)"
    ),
    "exit2-skill-shell": (
        f"{SLASH}: PreSkillShellCommand exit 2, an event missing from HOOK_EVENT_HOST_SUPPORT"
        " (issue 13)"
    ),
    "skill-shell-skill": (
        f"{SLASH}: the Skill tool and PreSkillShellCommand, an event missing from"
        " HOOK_EVENT_HOST_SUPPORT (issue 13)"
    ),
    "task-tools-search": (
        "ToolSearch: 2.1.332 offers the task tools deferred and the model loads them with"
        " `select:TaskCreate,TaskUpdate` (result: `tool_reference` blocks); dsh has no ToolSearch"
        " tool, so the script's rule never matches (new feature) (issue 13)"
    ),
    # Auto mode (the permission issue).
    "perm-denied-auto": f"{AUTO_MODE} (issue 14)",
    "perm-denied-retry": f"{AUTO_MODE}; PermissionDenied `retry: true` adds a user text (issue 14)",
    "exit2-permission-denied": f"{AUTO_MODE}; PermissionDenied exit 2 (issue 14)",
    # Wordings (bridge).
    # New behaviour (bridge, subagents, tools).
    "subagent": (
        "background subagents: 2.1.332's Agent call returns at once (`async_launched`), the"
        " parent's turn ends, and a `<task-notification>` turn follows when the subagent stops;"
        " dsh runs the subagent in the foreground (issue 13)"
    ),
    "exit2-subagent": (
        "SubagentStop exit 2: 2.1.332 gives the subagent another request with the"
        " `<system-reminder>` Stop feedback `[<command>]: S` and a second SubagentStop"
        " (`stop_hook_active: true`); dsh ends the subagent (issue 13)"
    ),
}

_NO_CONCEPT = "dsh has no {what}: to be listed as a limit of the coverage table (issue 13)"

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

EXPECTED_VALUE_DIFFERENCES: dict[str, str] = {}
