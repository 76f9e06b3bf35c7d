"""The coverage table's rows for the tool events: a call's hooks, its permission, its batch.

PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, PostToolBatch and
PermissionDenied (``runtime._tool_events``, ``runtime._permission_events``); ``_support``
places them.
"""

from __future__ import annotations

from dsh.hooks.claude.events._support_row import HALTS, NOTICE, PERSISTED, EventSupport

__all__ = [
    "PERMISSION_DENIED",
    "PERMISSION_REQUEST",
    "POST_TOOL_BATCH",
    "POST_TOOL_USE",
    "POST_TOOL_USE_FAILURE",
    "PRE_TOOL_USE",
]

_FILE_PATHS = (
    "a file tool's path in `tool_input` (`file_path` of Read, Write, Edit, MultiEdit;"
    " NotebookEdit's `notebook_path`) absolute and normalized: `~` expanded, joined to the"
    " session's current directory, `..` resolved; the tool, its result and PostToolBatch keep"
    " the model's path"
)

_STEP_TEXTS = (
    "on the Anthropic wire the step's hook texts are one system message, joined by a blank"
    " line, as 2.1.332 folds consecutive system texts: each call's PreToolUse then"
    " PostToolUse texts, then PostToolBatch's (`context-joined` in"
    " tests/fixtures/claude_strict.json)"
)

_POST_SPLIT = (
    "Claude Code fires `PostToolUse` only after a successful call and `PostToolUseFailure` after a"
    " failed one. A suite that predates the split (it declares no `PostToolUseFailure` group"
    " matching the tool) keeps getting `PostToolUse` for that tool's failed calls, with one log"
    " line per suite naming the event to declare; a suite that declares both follows the real"
    " split, so no call runs a suite twice."
)

_IF_EVALUATED = (
    "`if` (one permission rule such as `Bash(rm:*)`, docs/permissions.md) is parsed at load"
    " time and evaluated per call: the handler runs only for calls its rule matches (a"
    " compound command when any part does; an unparseable command, or `$()`/backticks/`$VAR`"
    " against a pattern naming more than the command, runs it) (conformance `if-filter`)"
)

_NO_POST_EVENT = (
    "no post-tool event for a call that never ran: `UNKNOWN_TOOL`, `INVALID_ARGS`, `DENIED`,"
    " `ABORTED_BEFORE_DISPATCH`, `ABORTED` (a refused call never fires a failure hook)"
)

PRE_TOOL_USE = EventSupport(
    seam="tools/rewrite-input",
    status="partial",
    applied=(
        "hooks run once per call, on `tools/rewrite-input` (before the call's identity);"
        " the merged decision is applied when the call reaches `tools/pre-execute`",
        '`permissionDecision: "deny"` and exit 2 refuse the call; the model sees an error'
        " tool result `PreToolUse:<Tool> hook error: R` (no reason: `Blocked by hook`;"
        " exit 2: `[<command>]: S`), which is also PostToolBatch's `tool_response`",
        '`permissionDecision: "ask"` goes to the approval seam when a person is there'
        " (attended); headless it is refused with exactly the reason and no"
        " PermissionRequest, in every mode (`perm-ask-default`); a deny rule still wins",
        '`permissionDecision: "allow"` skips the permission mode\'s ask; deny and ask'
        " rules still apply, and guards (`pretool-allow-touch`)",
        "deprecated top-level `decision` (`approve`, `block`)",
        "`updatedInput` replaces the whole input before the call is sealed, so the log,"
        " the approval prompt, the tool and `PostToolUse`'s `tool_input` all see it; applied"
        " with `allow`, `ask` or no decision (the call then takes the normal path), ignored"
        " with `deny` and `defer`; the model's history and PostToolBatch's"
        " `tool_calls[].tool_input` keep its own call, as in Claude Code",
        "`updatedInput` that does not match the tool's input schema is not applied (the call"
        " runs with its input) and is shown to the user as a hook-error notice naming the"
        " hook",
        "`additionalContext` added after the step's tool results",
        _STEP_TEXTS,
        _FILE_PATHS,
        "several hooks: deny > defer > ask > allow; their contexts one text under one"
        " prefix, joined by newlines, in declaration order",
        '`permissionDecision: "defer"` (`defer-single`, `defer-two-calls`, `defer-then-deny`'
        " in tests/fixtures/claude_defer.json): the call does not run and is kept pending in"
        " the session log (`tool/deferred`); the step's other calls run; the turn ends"
        " `deferred` with no PostToolBatch and no Stop (stream-json: `stop_reason` and"
        " `terminal_reason` `tool_deferred`, `deferred_tool_use`); its reason, context and"
        " `updatedInput` are ignored. Settled (`dsh run --resume ID` with no prompt; at the"
        " terminal, asked `Run it? [y/N]`; over ACP, a permission request), it runs with the"
        " same `tool_use_id` after PreToolUse fires again (which may deny or defer it once"
        " more), then UserPromptSubmit fires for `Continue from where you left off.` and the"
        " turn goes on; rejected (`--reject-deferred REASON`, `n`, an ACP reject), the model"
        " gets an error result naming who refused it",
        NOTICE,
        "`continue: false` halts after the step's calls finish (`agent.cancel` with a hook cause)",
        "a hook that gives no usable answer (its script cannot start: missing, not"
        " executable, a bad interpreter; a non-zero exit without JSON; a timeout) lets the"
        ' call run and warns the user once, as 2.1.332 does: `A hook of the "<plugin>"'
        " plugin gave no usable answer, so it didn't check this action.` (a settings"
        " file's: `A hook gave no usable answer, ...`)",
        "ToolSearch calls fire it like any tool, `tool_input` with the default"
        " `max_results: 5` filled in (`task-tools-search`)",
        _IF_EVALUATED,
    ),
    limits=(
        '`permissionDecision: "defer"` in a subagent\'s call: not honoured (the call goes on,'
        " with a warning): a subagent's turn cannot wait past its parent's",
    ),
    difference=(
        "Several hooks' `updatedInput`: the last valid one in declaration order wins, where"
        " Claude Code takes the last hook to finish (non-deterministic); a hook that"
        " answers without `updatedInput` never erases another's. `defer` in an interactive"
        " session: Claude Code ignores it with a warning; dsh keeps the call pending and"
        " asks the person at the terminal (or the ACP client) to run or refuse it."
    ),
)

PERMISSION_REQUEST = EventSupport(
    seam="approval/request",
    status="partial",
    applied=(
        "fires when a pre-execute answer is `ask` (the permission mode or an `ask` rule,"
        " docs/permissions.md; an attended PreToolUse `ask`; a native policy), before the"
        " approval service and whether or not anyone could answer; not in"
        " `bypassPermissions` mode, where Claude Code shows no permission prompt; headless"
        " and unanswered, the call is denied with Claude Code's text (`touch in '…' needs"
        " approval. …`, `perm-default-touch`)",
        "`permission_suggestions` as 2.1.332 sends them: `addDirectories` + `setMode"
        " acceptEdits` for a shell command writing a file, `setMode acceptEdits` for an"
        " edit tool, an `addRules` prefix rule for other commands",
        "`decision.updatedPermissions` is applied to the session: `addRules`,"
        " `replaceRules`, `removeRules`, `setMode` (later hooks are sent the new mode;"
        " `bypassPermissions` only if the session started in it), `addDirectories`,"
        " `removeDirectories`; a `localSettings`, `projectSettings` or `userSettings`"
        " `destination` is also merged into that settings file (atomically, never through"
        " a symbolic link; a malformed file is left as it is, with a warning), `session`"
        " stays in memory; each directory added fires DirectoryAdded (`source:"
        " slash_command`)",
        "not fired again for a call the session already allowed always",
        "payload `tool_name`, `tool_input` (no `tool_use_id`), `permission_mode`",
        '`decision.behavior: "allow"` runs the call without asking the approval channel;'
        " guards still apply",
        '`decision.behavior: "deny"` refuses the call; the model sees an error tool result'
        " whose content is `message`",
        "`decision.interrupt` with deny ends the turn after the step's calls finish",
        "several hooks: deny wins over allow; of several denials the first to finish gives"
        " the model its `message` (and its `interrupt`), as 2.1.332 takes it"
        " (`permission-two-denies` in tests/fixtures/claude_fail_wordings.json)",
        "exit 2 is not honoured (the flow is unchanged), as in Claude Code; a failing"
        ' `onFailure: "block"` hook denies, its message `[<command>]: failed; blocking because'
        ' onFailure is "block"` and its stderr on the next line',
        NOTICE,
        HALTS,
        _IF_EVALUATED,
    ),
    limits=(
        "`decision.updatedInput`: not applied, the call's identity (and input) is sealed"
        " before approval (rewrite input in PreToolUse); an allow whose `updatedInput`"
        " differs from the call's input counts as no decision, with a warning notice",
    ),
)

POST_TOOL_USE = EventSupport(
    seam="tools/post-execute",
    status="partial",
    applied=(
        "fires after a call whose tool body ran and succeeded; `tool_response` is the"
        " tool's structured output",
        "a Bash call that changed files of its git working tree gets 2.1.332's `bashEditDiff`"
        " in `tool_response` (up to 5 files' hunks, `moreFiles`, `changedFiles`), in the"
        " `auto` and `bypassPermissions` modes or as `CLAUDE_CODE_BASH_EDIT_DIFF` says, then"
        " `bashEditDiffEnabled` (`false` from any file, `true` only from managed settings)"
        " (tests/fixtures/claude_bash_diff.json)",
        '`decision: "block"` and exit 2: the reason is added after the tool result as'
        ' `PostToolUse:<Tool> hook blocking error from command: "<command>": R` (exit 2:'
        " `[<command>]: S` for R)",
        "`updatedToolOutput` replaces the output: it must match the tool's output model"
        " (each built-in tool has one), else it is not applied and a hook-error notice names"
        " the hook; the model sees the replacement rendered as the tool renders its own"
        " output, the log records it, and a block reason follows it; a tool without an"
        " output model takes any JSON and shows it as text (a string as is), as Claude Code"
        " shows an MCP tool's",
        _FILE_PATHS,
        "several hooks' `updatedToolOutput`: the last valid one in declaration order wins;"
        " a failed call's output is never replaced (a suite that gets PostToolUse for it,"
        " having no PostToolUseFailure, is told so in a notice)",
        "`additionalContext` added after the step's tool results; a call's block reasons and"
        " contexts are one message, each under its prefix, joined by a blank line",
        _STEP_TEXTS,
        PERSISTED,
        NOTICE,
        HALTS,
        _NO_POST_EVENT,
        _IF_EVALUATED,
    ),
    limits=(
        "`updatedMCPToolOutput`: 2.1.332 honours `updatedToolOutput` for MCP tools (their"
        " content array, `mcp-post-updated-output`); dsh does the same and reads no other name",
        "`classifierContext`: dsh's auto-mode classifier is the unavailable one 2.1.332"
        " reports in this set-up, which reads no context",
    ),
    difference=_POST_SPLIT,
)

POST_TOOL_USE_FAILURE = EventSupport(
    seam="tools/post-execute",
    status="supported",
    applied=(
        "fires after a call whose tool body ran and failed, with `error`",
        _FILE_PATHS,
        '`additionalContext`, `decision: "block"` reason and exit 2 stderr reach the model',
        NOTICE,
        HALTS,
        _NO_POST_EVENT,
        _IF_EVALUATED,
    ),
    limits=("`is_interrupt` is never sent: cancelling a running tool fires no event",),
    difference=_POST_SPLIT,
)

POST_TOOL_BATCH = EventSupport(
    seam="agent/post-tool-batch",
    status="supported",
    applied=(
        "fires once after a step's tool results, before the next model call; denied calls"
        " included, with the reason as `tool_response`",
        "`tool_response` is the result's text, or its blocks when the tool gave blocks (the"
        " Agent tool's result, `subagent`; a ToolSearch result's `tool_reference` blocks,"
        " `task-tools-search`); `tool_input` is the model's own",
        '`decision: "block"`, exit 2 and `continue: false` stop the loop before the next'
        " model call, with the reason",
        "`additionalContext` injected once before the next model call",
        _STEP_TEXTS,
        NOTICE,
    ),
)

PERMISSION_DENIED = EventSupport(
    seam="tools/pre-execute",
    status="partial",
    applied=(
        "fires after the auto-mode classifier refuses a call (between PreToolUse and the"
        " permission policy), with `tool_name`, `tool_input`, `tool_use_id` and the"
        " classifier's `reason`; not for deny rules, modes or hooks, as in Claude Code",
        '`dsh run --permission-mode auto` (or `defaultMode: "auto"`) runs as 2.1.332 does'
        " when its safety check does not run: each call the mode would ask about is refused"
        " with `Auto mode is unavailable: …` and PermissionDenied's `reason` is `Classifier"
        " unavailable` (conformance `perm-denied-auto`, `perm-denied-retry`,"
        " `exit2-permission-denied`)",
        "`retry: true` (any hook) adds a user text telling the model it may try once more;"
        " the denial stands",
        "exit code and stderr ignored",
        _IF_EVALUATED,
    ),
    limits=(
        "dsh has no auto-mode safety classifier of its own, so `auto` never approves a call"
        " it would ask about; an embedding program that has one passes an `AutoClassifier`"
        " to `permission_state` or `ClaudeCodeProfile`",
    ),
)
