"""``HOOK_EVENT_HOST_SUPPORT``: the one table of which Claude Code events dsh runs, and how.

Every event of the reference has a row. The catalog admits declarations only for
events whose status is not ``not-supported``; the bridge's runtime registers one
point per supported row (and is tested equal to it); ``docs/hooks-claude.md`` is
rendered from it. A field the reference honours that this host does not apply is
listed under ``limits`` with the reason, never applied approximately. The session's,
prompt's and turn's rows are here; the tool events' are in ``_support_tools``, those of
custom commands and session commands in ``_support_commands``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from dsh.hooks.claude.events._specs import CLAUDE_HOOK_EVENTS
from dsh.hooks.claude.events._support_commands import (
    DIRECTORY_ADDED,
    POST_MODEL_SWITCH,
    PRE_MODEL_SWITCH,
    PRE_SKILL_SHELL_COMMAND,
    USER_PROMPT_EXPANSION,
)
from dsh.hooks.claude.events._support_row import (
    HALTS,
    NOTICE,
    PERSISTED,
    EventSupport,
    SupportStatus,
    not_supported,
)
from dsh.hooks.claude.events._support_tools import (
    PERMISSION_DENIED,
    PERMISSION_REQUEST,
    POST_TOOL_BATCH,
    POST_TOOL_USE,
    POST_TOOL_USE_FAILURE,
    PRE_TOOL_USE,
)

__all__ = [
    "ADMITTED_EVENTS",
    "HOOK_EVENT_HOST_SUPPORT",
    "EventSupport",
    "SupportStatus",
]

_ENV_FILE = (
    "`CLAUDE_ENV_FILE` (`claude-session-env/<session>/<event>-hook-<n>.sh` beside the"
    " transcripts in dsh's data dir, not Claude Code's config dir): what the hook writes there"
    " is sourced before every later Bash command of the session, never in another hook"
)
_TABLE: Final[dict[str, EventSupport]] = {
    "SessionStart": EventSupport(
        seam="agent/session-start",
        status="partial",
        applied=(
            "sources `startup`, `resume`, `compact` (after a compaction) and `fork`",
            "`resume` carries `seconds_since_last_response` (since the resumed log's last"
            " assistant message), `context_tokens`, `prompt_cache_likely_expired` (over 5"
            " minutes) and `estimated_cache_write_usd`; none before the log has a response",
            "`additionalContext` (several hooks: under one prefix, joined by newlines) and plain"
            " stdout on exit 0 injected as context after the first prompt, in one message with"
            " UserPromptSubmit's, as 2.1.332 sends them (`compact`: at once)",
            PERSISTED,
            "exit 2 stderr shown to the user as a hook-error notice",
            _ENV_FILE,
            NOTICE,
            HALTS,
            "`watchPaths`: the files FileChanged watches",
        ),
        limits=(
            "`initialUserMessage`, `sessionTitle`, `reloadSkills`: dsh has no session titles"
            " or headless first-message seam, and reads skills once when the session starts",
            "`context_tokens` is the usage the API reported for the last response; only a log"
            " whose last response has none (a server that reports no usage) gives an estimate"
            " (about 4 characters a token of the system prompt and the projected history)",
        ),
    ),
    "Setup": EventSupport(
        seam="agent/setup",
        status="supported",
        applied=(
            "fires only when asked, before `SessionStart`: `dsh run --init` and `--init-only`"
            " (trigger `init`; `--init-only` then starts and ends the session without a prompt)"
            " and `dsh run --maintenance` (trigger `maintenance`); never on a normal start",
            "`additionalContext` injected as context, arriving with the session-start context;"
            " plain stdout is not (Claude Code writes it to its debug log only; the session log"
            " keeps it)",
            "exit 2 cannot block: stderr shown to the user as a hook-error notice",
            _ENV_FILE,
            NOTICE,
            HALTS,
        ),
    ),
    "InstructionsLoaded": EventSupport(
        seam="agent/instructions-loaded",
        status="partial",
        applied=(
            "fires for each instructions file that `dsh.instructions.claude_instructions_plugin`"
            " loads into the context (`dsh run` mounts it; `--no-claude-md` leaves it out):"
            " Claude Code's managed, user, project and local `CLAUDE.md` files and rules, with"
            " `memory_type` and `load_reason` `session_start`, at the session's start, before"
            " the first UserPromptSubmit as Claude Code fires it; an `@import` with `include` and"
            " `parent_file_path`; after a compaction, `compact`",
            "matcher on `load_reason`",
            "exit code and output discarded, as in Claude Code (the session log keeps them);"
            " dsh waits for the hooks, where Claude Code runs them in the background",
        ),
        limits=(
            "`nested_traversal` and `path_glob_match`: dsh loads no `CLAUDE.md` below the"
            " working directory and no conditional rule (`paths`) when a tool reads a matching"
            " file",
        ),
    ),
    "UserPromptSubmit": EventSupport(
        seam="agent/prompt-submit",
        status="partial",
        applied=(
            '`decision: "block"` and exit 2 block the prompt (no model call); the reason is'
            " shown to the user, as Claude Code shows it",
            "`suppressOriginalPrompt` leaves the prompt out of the block message",
            "`additionalContext` and plain stdout on exit 0 injected as context, one message"
            " after the prompt, each hook's text under its own prefix, joined by a blank line",
            PERSISTED,
            "30-second default timeout",
            NOTICE,
            HALTS,
        ),
        limits=("`sessionTitle`: dsh has no session titles",),
    ),
    "UserPromptExpansion": USER_PROMPT_EXPANSION,
    "PreSkillShellCommand": PRE_SKILL_SHELL_COMMAND,
    "MessageDisplay": EventSupport(
        seam="agent/message-display",
        status="partial",
        applied=(
            "fires once per assistant message with text, with the whole text (`index` 0,"
            " `final` true: Claude Code's headless behaviour), after the message is logged and"
            " before its tool calls; never for a subagent's messages",
            "with the reply-rewrite extension on (`DSH_HOOK_EXTENSIONS=1`,"
            " `hookSpecificOutput.dsh.updatedReply`: docs/hooks-dev.md) it fires before the"
            " reply is logged instead (on `agent/model-reply`), so the rewritten reply is what"
            " the history and the model keep",
            "`displayContent` replaces what the user sees (logged as `assistant/display`);"
            " the model, the history and the transcript keep the original",
            "failure, timeout and exit 2 show the original text; `systemMessage` and"
            " `continue` discarded, as in Claude Code",
            "10-second default timeout",
            "several hooks answering `displayContent`: the last one in declaration order wins",
            "a turn that fails on a model API error fires it (on `agent/turn-error`, before"
            " `StopFailure`) with Claude Code's `API Error: …` text",
        ),
        limits=(
            "`displayContent` for a failed turn's `API Error: …` text is not applied: dsh"
            " reports the error on the turn's end line, not as an assistant message",
        ),
    ),
    "PreToolUse": PRE_TOOL_USE,
    "PermissionRequest": PERMISSION_REQUEST,
    "PostToolUse": POST_TOOL_USE,
    "PostToolUseFailure": POST_TOOL_USE_FAILURE,
    "PostToolBatch": POST_TOOL_BATCH,
    "PermissionDenied": PERMISSION_DENIED,
    "Notification": EventSupport(
        seam="agent/notification",
        status="partial",
        applied=(
            "`permission_prompt`: a tool call's permission question put to a person and left"
            " waiting 6 s (2.1.332's 6,000 ms; `DSH_PERMISSION_NOTIFY_SECONDS` changes the wait,"
            " `CLAUDE_CODE_DISABLE_PERMISSION_PROMPT_NOTIFY_HOOKS` turns it off), with 2.1.332's"
            " words: `Claude needs your permission` at the terminal, `Claude needs your"
            " permission to use <Tool>` over ACP (its SDK's); headless nothing fires, as 2.1.332"
            " fires none in `-p` (`notify-permission` in tests/fixtures/claude_events.json)",
            "the wait as 2.1.332 measures it: over ACP from the question shown (its SDK's"
            " `setTimeout`, cleared by an answer: `dsh.agent.notify_later`); at the terminal from"
            " the person's last key at the question, or the question if later, checked every 6 s"
            " from when it is shown, once (its dialogs' `Date.now() - Math.max("
            "lastInteractionTime, shownAt) >= 6000`: `dsh.agent.notify_when_idle`)",
            "`idle_prompt`: the interactive terminal waited for input after a turn for"
            " `messageIdleNotifThresholdMs` of `~/.claude.json` (2.1.332's, default 60,000 ms;"
            " `DSH_IDLE_NOTIFY_SECONDS` first): `Claude is waiting for your input`",
            "`elicitation_dialog` (`elicitation_url_dialog` for a `url` request): an MCP"
            " server's form at the terminal left waiting as a permission question is (the same"
            " timer; the disabling switch is the permission prompt's only): `Claude Code needs"
            " your input`; an ACP client's form too, timed as ACP's permission questions are (from"
            " the question sent, cleared by the answer)",
            "`elicitation_response` after an MCP server's elicitation that no Elicitation hook"
            " answered, headless too, after its ElicitationResult hooks: `Elicitation response"
            ' for server "<server>": <action>`, the final action (`decline` when a hook blocked);'
            " none when an Elicitation hook answered (`elicitation-*` in"
            " tests/fixtures/claude_notification.json)",
            "`elicitation_complete` when an MCP server (stdio, `http` or `sse`) sends"
            ' `notifications/elicitation/complete`: `MCP server "<server>" confirmed'
            " elicitation <id> complete` (read in 2.1.332's binary), on the agent that elicited"
            " last from it",
            "any other type a front end or plugin emits on `agent/notification`",
            "the matcher is `notification_type`; exit codes, decisions, `systemMessage` and"
            " `continue` do nothing, as in Claude Code",
        ),
        limits=(
            "the other types name what dsh does not have or show: `auth_success` and"
            " `auth_storage_failure` (a login), `agent_needs_input`, `agent_completed`,"
            " `worker_permission_prompt` (agent views and teams), `push_notification`,"
            " `computer_use_exit`",
            "`idle_prompt` is the terminal's only (2.1.332's REPL's)",
            "`terminalSequence`: dsh runs hooks without a terminal of theirs",
        ),
    ),
    "SubagentStart": EventSupport(
        seam="subagent/start",
        status="supported",
        applied=(
            "fires for a child agent (the child fires no `UserPromptSubmit`)",
            "`additionalContext` injected into the child's conversation",
            "exit 2 stderr shown as a notice",
            "`continue: false` cancels the child",
        ),
    ),
    "SubagentStop": EventSupport(
        seam="agent/turn-continuation",
        status="partial",
        applied=(
            "fires when a child agent's turn would end, on the child's own continuation seam"
            " (the child fires no `Stop`), with `agent_id`, `agent_type`,"
            " `last_assistant_message` and `stop_hook_active`",
            '`decision: "block"` and exit 2 keep the child running: its next request carries'
            " the reason in 2.1.332's `Stop hook feedback:` framing",
            "a child that ends otherwise (aborted, step limit, error) fires it on `subagent/end`",
            "a compaction fires it after each answer of its summarization call"
            " (`agent/compaction-reply`), as 2.1.332's compaction agent does: a new `agent_id`,"
            ' `agent_type: ""`, the answer as `last_assistant_message`',
        ),
        limits=(
            "a block or exit 2 on a compaction's SubagentStop has no effect: dsh summarizes in"
            " the agent itself, with no agent to keep running (the corpus shows none)",
        ),
    ),
    "TaskCreated": EventSupport(
        seam="tools/task-created",
        status="supported",
        applied=(
            "fires while `TaskCreate` runs, with the new task's id assigned and before the task"
            " is kept: `task_id`, `task_subject`, `task_description`",
            'exit 2 and `decision: "block"`: the task is not created (its id stays used) and the'
            " model sees the call's error result `TaskCreated hook feedback:\n[<command>]: R`;"
            " PostToolUseFailure fires",
            NOTICE,
            "`continue: false` ignored, as in Claude Code",
        ),
    ),
    "TaskCompleted": EventSupport(
        seam="tools/task-completed",
        status="partial",
        applied=(
            "fires while `TaskUpdate` would mark a task `completed` (from another status), with"
            " the task as it was",
            'exit 2 and `decision: "block"`: the task is not completed (no field of that update'
            " is applied) and the call's result, not an error, is `TaskCompleted hook feedback:"
            "\n[<command>]: R` (output `success: false` with it as `error`); PostToolUse fires",
            NOTICE,
        ),
        limits=(
            "a teammate ending its turn with tasks in progress, and `continue: false` stopping"
            " the teammate: dsh has no agent teams (`continue` is ignored)",
        ),
    ),
    "Stop": EventSupport(
        seam="agent/turn-continuation",
        status="supported",
        applied=(
            '`decision: "block"` and exit 2 continue the turn with the reason as'
            " `Stop hook feedback` (exit 2: `[<command>]: S`) in a `<system-reminder>` steering"
            " message framed as Claude Code frames it; a block also adds the context"
            ' `Stop hook blocking error from command: "<command>": R` after it',
            "`additionalContext` continues the turn as non-error feedback, framed the same",
            "`stop_hook_active` reports a forced continuation; at most 8 in a row: the 9th"
            " block ends the turn with 2.1.332's notice `A hook blocked the turn from ending 9"
            " consecutive times—overriding and ending turn. …`",
            "`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` (the environment or settings `env`) sets that"
            " number as 2.1.332 reads it (an integer; unreadable: 8); 0 or below is no cap but"
            " the step limit; dsh's own continuation cap follows it",
            "`last_assistant_message` sent; `background_tasks` lists the background subagents"
            " still running (an `Agent` call, in the background unless it says"
            " `run_in_background: false`)",
            NOTICE,
            HALTS,
        ),
        limits=(
            "`background_tasks` lists no background shell of the Bash tool"
            " (`run_in_background`), only subagents; `session_crons` is always an empty list:"
            " dsh has no session crons",
        ),
    ),
    "StopFailure": EventSupport(
        seam="agent/turn-error",
        status="supported",
        applied=(
            "fires instead of `Stop` when a turn ends on a model API error, with `error` and"
            " `last_assistant_message`; output ignored, as in Claude Code",
            "`error` from the HTTP status in Claude Code's vocabulary: `rate_limit` (429),"
            " `authentication_failed` (401, 403), `overloaded` (529), `server_error` (other"
            " 5xx), else `unknown`; `last_assistant_message` Claude Code's text (`API Error:"
            " 400 M`, `Failed to authenticate. API Error: 401 M`, `API Error: Request rejected"
            " (429) · M`)",
        ),
        limits=("`terminalSequence`: dsh runs hooks without a terminal of theirs",),
    ),
    "TeammateIdle": not_supported("dsh has no agent teams"),
    "ConfigChange": EventSupport(
        seam="tools/post-execute",
        status="partial",
        applied=(
            "fires when a settings file (`user_settings`, `project_settings`, `local_settings`,"
            " the managed file as `policy_settings`) or a skill file (`skills`) changed, with"
            " `source` (the matcher's value) and `file_path` (`config-change`; `config-skill` in"
            " tests/fixtures/claude_events.json); dsh compares the files after each tool call,"
            " before its PostToolUse (where 2.1.332's watcher fired in the recordings), and"
            " before each prompt",
            'exit 2 and `decision: "block"`: nothing shown anywhere, as in Claude Code',
            "a settings file's new `env` applies to every later hook and Bash command unless a"
            " hook blocked the change, as 2.1.332 applies it (`config-change`: the next Bash"
            " prints the new value); a name no file sets any more is unset; a project's own"
            " (`project_settings`, `local_settings`) only once the project is trusted",
        ),
        limits=(
            "a changed file's `hooks`, `permissions` and other keys, and a changed skill, are"
            " not applied to the running session: dsh reads them when a session starts (`dsh"
            " run --resume` picks them up); settings files are compared only in a session that"
            " declares a ConfigChange or FileChanged hook; a new `env` name is not filtered by"
            " the environment policy's `include_only`",
            "a change made while dsh waits for the person at the terminal fires at the next"
            " prompt, not at once: dsh compares files, it runs no watcher",
        ),
    ),
    "CwdChanged": EventSupport(
        seam="agent/cwd-changed",
        status="partial",
        applied=(
            "fires when a tool call (the Bash tool's `cd`) leaves the session in another"
            " directory, after that call's post-tool hooks and before `PostToolBatch`, with"
            " `old_cwd` and `new_cwd`; the hook runs in the new directory",
            "exit 2 stderr shown to the user as a hook-error notice",
            _ENV_FILE,
            f"{NOTICE}; `continue` discarded, as in Claude Code",
            "`watchPaths` replace the files FileChanged watches",
        ),
        limits=("`terminalSequence`: dsh runs hooks without a terminal of theirs",),
    ),
    "DirectoryAdded": DIRECTORY_ADDED,
    "FileChanged": EventSupport(
        seam="tools/post-execute",
        status="partial",
        applied=(
            "fires when a watched file changed (`event`: `change`, `add`, `unlink`) with"
            " `file_path` (`file-changed` in tests/fixtures/claude_events.json): the files"
            " FileChanged matchers name (literal file names in the project, split on `|`) and"
            " the `watchPaths` a SessionStart, CwdChanged or FileChanged hook returned (each"
            " answer replaces that list); groups are filtered by the file's name; compared after"
            " each tool call, before its PostToolUse, and before each prompt",
            _ENV_FILE,
            "exit 2 stderr shown to the user as a hook-error notice",
            f"{NOTICE}; `continue` discarded, as in Claude Code",
        ),
        limits=(
            "a change made while dsh waits for the person fires at the next prompt: dsh"
            " compares files at fixed points, it runs no watcher",
        ),
    ),
    "WorktreeCreate": EventSupport(
        seam="subagent/start",
        status="supported",
        applied=(
            "fires for an `isolation: worktree` subagent after the `Agent` call's PreToolUse and"
            " before SubagentStart, with `name` (`agent-<agent_id>`), the session's `cwd` and"
            " `prompt_id`, as 2.1.332 fires it (`worktree-subagent`); the hook replaces `git"
            " worktree add`: the child works in the folder the first hook that exited 0 printed"
            " last on stdout (`hookSpecificOutput.worktreePath` from an `http` hook; a command's"
            " JSON is read as a path, as 2.1.332 reads it), relative to `cwd`, its tools and"
            " hooks there, its `CLAUDE_PROJECT_DIR` the project; the result names it"
            " (`worktreePath:`); dsh never removes it",
            "fires for `dsh run --worktree [NAME]` first, before the session starts and before"
            " SessionStart, with the session's id, the project's `cwd` and transcript path and"
            " `name` (given or generated), no `prompt_id` (`worktree-flag`); the session then runs"
            " in the hook's folder (no git repository needed) and keeps it",
            "a hook that exits non-zero (1 or 2 alike): `WorktreeCreate hook failed: <command>:"
            " <stderr>` (each failed hook, joined by `; `); none printed a path: 2.1.332's `hook"
            " succeeded but returned no worktree path (…)`; a path that is no folder: `worktree"
            " directory … does not exist or is not a directory …`; a folder git resolves to"
            " another working tree (inside the repository): `Refusing to use … as an isolation"
            " worktree …`. The `Agent` call fails with those words, `--worktree` exits 1 with"
            " them (`flag-hook-*` and `subagent-hook-exit2` in"
            " tests/fixtures/claude_worktree.json)",
            "a project's own WorktreeCreate hook not trusted yet: `--worktree` refuses with"
            " 2.1.332's `hook is configured but did not run (workspace not trusted or matcher"
            " mismatch)` rather than fall back to git",
        ),
        limits=(
            "the `--worktree` firing happens before the session exists, so it is not in the"
            " session log (`dsh log --hooks`); its failure is the run's error",
        ),
    ),
    "WorktreeRemove": EventSupport(
        seam="cli/worktree-exit",
        status="partial",
        applied=(
            "fires from the exit question of an interactive `dsh --worktree` session whose"
            ' worktree a WorktreeCreate hook made, once "Remove worktree" is chosen, as'
            " 2.1.332's exit dialog fires it (read in its binary), with the session's id and"
            " transcript path, the project's `cwd` and `worktree_path`; every hook exiting 0"
            " removes it (`Worktree removed.`); one that fails keeps it with a warning (`dsh:"
            " WorktreeRemove hook exited N (first line); kept worktree at: P`, then `Couldn't"
            " remove worktree. Kept at P.`); with no WorktreeRemove hook, git removes it as"
            " 2.1.332 falls back to git<br>the question, as 2.1.332 asks it: a git worktree with"
            " nothing changed is removed with its branch unasked (`Worktree removed (no"
            ' changes)`); else "Exiting worktree session", what would be lost, `1. Keep'
            " worktree` (the default; Ctrl-C and Ctrl-D keep it) or `2. Remove worktree`",
        ),
        limits=(
            "never fires under `-p`, where the worktree is kept, as 2.1.332 keeps it there"
            " (`worktree-flag`, `flag-hook-not-git` in tests/fixtures/claude_worktree.json);"
            " nor for a git worktree (2.1.332 removes those with git, firing nothing) or an"
            " `isolation: worktree` subagent's (2.1.332 fires none there either)",
            "dsh's question is a numbered choice at the terminal, not 2.1.332's menu; it leaves"
            " out what only 2.1.332 tracks (tmux sessions, connectors' folders, other live"
            " sessions in the worktree); its firing is not in the session log, which has ended",
        ),
    ),
    "PreCompact": EventSupport(
        seam="agent/pre-compact",
        status="supported",
        applied=(
            "`trigger` (`manual`, `auto`) and `custom_instructions`",
            '`decision: "block"` and exit 2 veto the compaction',
            "the block reads as in 2.1.332: `Compaction blocked by PreCompact hook: R` (exit 2:"
            " `[<command>]: S` for R), a warning notice at the terminal and, for `/compact` in"
            " `-p` mode, the run's answer: stdout in `--output-format text`, the `result` (not"
            " an error) in `json` and `stream-json` (`precompact-exit2-*` in"
            " tests/fixtures/claude_fail_wordings.json)",
        ),
    ),
    "PostCompact": EventSupport(
        seam="agent/post-compact",
        status="supported",
        applied=(
            "`trigger` and `compact_summary`; followed by `SessionStart` with source `compact`",
            "`compact_summary` is the summarization answer as it is; one without `<summary>` is"
            " asked for once more first, as Claude Code retries it",
            "the summary is asked for with 2.1.332's requests: the last model request's system"
            " prompt, tools and messages (not the reply that answered it), then its compaction"
            " prompt word for word; asked once more, its `For this reply only: …` paragraph after"
            " it",
            "exit 2 stderr shown to the user",
        ),
    ),
    "PreModelSwitch": PRE_MODEL_SWITCH,
    "PostModelSwitch": POST_MODEL_SWITCH,
    "Elicitation": EventSupport(
        seam="mcp/elicitation",
        status="partial",
        applied=(
            "fires when an MCP server elicits during one of its tool calls, matched on"
            " `mcp_server_name`, with the server's `message`, `mode` and `requested_schema`",
            "`hookSpecificOutput.action` (`accept`, `decline`, `cancel`) and `content` are"
            ' what the server gets; exit 2 or `decision: "block"` declines',
            "no hook answering: declined, as in `-p`",
        ),
        limits=("no form is shown at a terminal or over ACP: what no hook answers is declined",),
    ),
    "ElicitationResult": EventSupport(
        seam="mcp/elicitation",
        status="partial",
        applied=(
            "fires when no `Elicitation` hook answered, with the answer the server would get"
            " (`action`, `content` when there is one, `mode`), matched on `mcp_server_name`;"
            " not when an `Elicitation` hook answered, as in Claude Code",
            "`hookSpecificOutput.action` and `content` replace the answer (the answer's"
            ' `content` kept when the hook gives none); exit 2, `decision: "block"` or'
            " `decline` declines",
        ),
        limits=(
            "no form is shown at a terminal or over ACP: the answer it reports is `decline`",
            "the `Notification` 2.1.332 sends after it (`elicitation_response`) is not sent",
        ),
    ),
    "SessionEnd": EventSupport(
        seam="agent/session-end",
        status="supported",
        applied=(
            "fires once from `agent.close(reason)` with Claude Code's reason vocabulary",
            "hooks share a 1.5-second budget, raised to the highest timeout declared in a"
            " settings file and clamped at 60 s (`CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS`"
            " overrides)",
            "an `async: true` hook runs with the others, within the same budget: dsh exits"
            " when the budget ends, and nothing a SessionEnd hook started outlives it",
            "output discarded, as in Claude Code; exit 2 stderr shown to the user",
        ),
    ),
}

if tuple(_TABLE) != CLAUDE_HOOK_EVENTS:  # pragma: no cover - a broken edit of this module
    raise RuntimeError("HOOK_EVENT_HOST_SUPPORT must list every Claude Code event, in order")

HOOK_EVENT_HOST_SUPPORT: Final[Mapping[str, EventSupport]] = MappingProxyType(_TABLE)
"""Event name → how this host runs it; one row per event of the reference."""

ADMITTED_EVENTS: Final[frozenset[str]] = frozenset(
    name for name, row in _TABLE.items() if row.status != "not-supported"
)
"""The events the catalog admits declarations for (derived from the table)."""
