"""The coverage table's rows for what custom commands, skills and session commands bring.

UserPromptExpansion and PreSkillShellCommand (``runtime._command_events``), DirectoryAdded,
PreModelSwitch and PostModelSwitch (``runtime._session_commands``); ``_support`` places them.
"""

from __future__ import annotations

from dsh.hooks.claude.events._support_row import HALTS, NOTICE, EventSupport

__all__ = [
    "DIRECTORY_ADDED",
    "POST_MODEL_SWITCH",
    "PRE_MODEL_SWITCH",
    "PRE_SKILL_SHELL_COMMAND",
    "USER_PROMPT_EXPANSION",
]

_MODEL_NAMES = (
    "`from_model`/`to_model` are the models' ids: Claude Code's aliases resolve to its catalog"
    " ids as 2.1.332 sends them (`sonnet` → `claude-sonnet-5-5`); `requested_model` is what"
    " was asked for"
)
_PRICES = (
    "`context_tokens` is the usage the API reported for the last response (input, cache and"
    " output tokens; estimated only when none was reported); `estimated_cache_write_usd`"
    " prices it at the new model's cache-write price (a dated table, `dsh.models._prices`; a"
    " model without a public price at 2.1.332's default model's rate)"
)

USER_PROMPT_EXPANSION = EventSupport(
    seam="agent/prompt-submit",
    status="partial",
    applied=(
        "fires after UserPromptSubmit for `/name args` naming a custom command or skill"
        " (`.claude/commands`, `.claude/skills`; user, project and plugin scope)",
        '`decision: "block"` and exit 2 drop the prompt with Claude Code\'s wording',
        "`additionalContext` and plain stdout on exit 0 injected as context",
        NOTICE,
        HALTS,
    ),
    limits=("`expansion_type: mcp_prompt`: dsh offers no MCP prompts as commands yet",),
)

PRE_SKILL_SHELL_COMMAND = EventSupport(
    seam="agent/prompt-submit",
    status="supported",
    applied=(
        "fires for each shell command of a command expanded from a prompt"
        " (`invoked_by: user`) or of a skill the `Skill` tool loads (`invoked_by: claude`)",
        "`permissionDecision: deny` and exit 2 leave `[not run: blocked by hook: R]` in"
        " the text instead of the output; `updatedInput` is never applied, as in 2.1.332",
    ),
)

DIRECTORY_ADDED = EventSupport(
    seam="agent/directory-added",
    status="partial",
    applied=(
        "fires when a directory joins the session (`agent.add_directory`), with `directory`"
        " absolute and `source`: `register_repo_root` for a stream-json control request,"
        " `slash_command` for `/add-dir DIR` in the interactive terminal and for a"
        " PermissionRequest answer's `addDirectories` (2.1.332 has no source for that one)",
        "`slash_command`: each `systemMessage` reaches Claude as `DirectoryAdded hook: M`"
        " with the next request, and exit-2 failures are counted there, as 2.1.332 queues"
        " them; `register_repo_root`: exit 2 stderr and `systemMessage` reach the user only;"
        " the directory is added anyway",
        "not fired for `--add-dir` or `additionalDirectories` (working directories from the"
        " start, as recorded), nor for a directory already added; `/add-dir` in a `dsh run`"
        " prompt answers `/add-dir isn't available in this environment.`, as `claude -p` does",
    ),
    limits=("the hook is awaited before the session goes on (2.1.332 runs it in the background)",),
)

PRE_MODEL_SWITCH = EventSupport(
    seam="agent/model-switch",
    status="supported",
    applied=(
        "fires before `agent.switch_model` (`/model NAME`: `source: command`; a stream-json"
        " `set_model`: `source: sdk`), between turns",
        "`permissionDecision: deny` (and `ask`, headless), `decision: block` and exit 2 keep"
        " the model, with Claude Code's `Model switch … blocked by a PreModelSwitch hook`",
        "a hook that times out (default 30 s) keeps the model too (the one event where a"
        " timeout blocks): `PreModelSwitch hook PreModelSwitch:<model> did not respond before"
        " its timeout`; any other failure is shown to the user (`… failed: Failed with"
        " non-blocking status code: <stderr>`) and the switch goes on",
        _MODEL_NAMES,
        _PRICES,
    ),
)

POST_MODEL_SWITCH = EventSupport(
    seam="agent/model-switched",
    status="partial",
    applied=(
        "fires after a switch; `additionalContext` (and plain stdout) reach the next request"
        " as context; exit 2 and `systemMessage` reach the user, the switch stands",
        _MODEL_NAMES,
        _PRICES,
    ),
    limits=("`source` `auto`, `resume`, `picker`: dsh switches models only when asked",),
)
