"""``CODEX_EVENT_SUPPORT``: the one table of which Codex events dsh runs, on which seam, and how.

Every Codex 0.171 event has a row; the runtime registers one listener per
supported row (tested equal to it) and ``docs/hooks-codex.md`` is rendered
from it (``python -m dsh.hooks.codex coverage``). What Codex honours and dsh
does not is a ``limit`` with the reason; a deliberate difference says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.hooks.codex.events._specs import CODEX_HOOK_EVENTS

__all__ = ["CODEX_EVENT_SUPPORT", "CONFIG_LIMITS", "CodexEventSupport", "CodexSupportStatus"]

CodexSupportStatus: TypeAlias = Literal["supported", "partial", "not-supported"]


@final
@frozen(kw_only=True)
class CodexEventSupport:
    """How dsh runs one Codex event: its seam, what applies, what does not and why."""

    seam: str
    status: CodexSupportStatus
    applied: tuple[str, ...] = ()
    limits: tuple[str, ...] = ()
    difference: str | None = None

    def __post_init__(self) -> None:
        if self.status == "partial" and not self.limits:
            raise ValueError("a partial event must list what it does not apply")
        if self.status != "not-supported" and not self.seam:
            raise ValueError("a supported event names its seam")


_NOTICE = "`systemMessage` shown to the user as a warning notice"
_STRICT = (
    "strict output: an unknown key, a wrong `hookEventName` or a rule Codex enforces voids the"
    " answer (fail-open), and dsh shows the user why"
)
_CONTEXT = "`additionalContext` (and plain stdout) as its own developer-role context message"

_IGNORED_OUTPUT = (
    "output ignored, as Codex 0.171 ignores it (checked with the binary): it cannot block the"
    " request, add context (`additionalContext`, plain stdout) or stop the turn; a non-zero exit"
    " (2 included) is a failed run, shown as a warning notice, and the request goes on"
)

_TABLE: Final[dict[str, CodexEventSupport]] = {
    "PreModelRequest": CodexEventSupport(
        seam="agent/model-request",
        status="supported",
        applied=(
            "fires before every model call of every agent, matcher ignored: a step's request"
            ' (`kind: "sampling"`) and a compaction\'s summary request'
            ' (`"foreground_compaction"`, as Codex 0.171 sends for its own compaction); payload'
            " `kind`, a fresh `request_id`, `attempt_number`, `session_id`,"
            " `thread_id` (the agent's own session), `turn_id`, `cwd`, `transcript_path`,"
            " `model`, `hook_event_name`; no `permission_mode`",
            _IGNORED_OUTPUT,
        ),
    ),
    "PostModelRequest": CodexEventSupport(
        seam="agent/model-response",
        status="partial",
        applied=(
            "fires after every model call, matcher ignored; PreModelRequest's payload plus"
            " `status` (`completed`, or `failed` with `error` the error's text and `token_usage`"
            " and `response_id` null), `token_usage` (`input_tokens` counting cached prompt"
            " tokens, `cached_input_tokens`, `cache_write_input_tokens`, `output_tokens`,"
            " `total_tokens`) and `response_id` (the logged reply's event id; null for a"
            " compaction's, which dsh logs as its summary)",
            _IGNORED_OUTPUT,
        ),
        limits=(
            "an aborted request (the turn cancelled mid-call) fires none: Codex's payload for it"
            " was not observed",
            "`reasoning_output_tokens` is 0 (dsh's models report no reasoning tokens apart);"
            " `error` is dsh's error text (`ModelError: …`), not Codex's wording; dsh's model"
            " client retries inside one request, so `attempt_number` is 1 but for a compaction"
            " asked again for its summary",
        ),
    ),
    "SessionStart": CodexEventSupport(
        seam="agent/session-start",
        status="supported",
        applied=(
            "sources `startup`, `resume`, `clear`, `compact` (queued after a compaction and fired"
            " after PostCompact, as Codex does) and `fork`; matcher on `source`",
            _CONTEXT,
            "`continue: false`: the turn does not run",
            _NOTICE,
            "exit 2 is a failure (no block), as in Codex",
        ),
    ),
    "UserPromptSubmit": CodexEventSupport(
        seam="agent/prompt-submit",
        status="supported",
        applied=(
            '`decision: "block"` with a non-empty `reason`, or exit 2 with stderr: the prompt is'
            " dropped and the turn does not run",
            "`continue: false` stops the turn (`stopReason`)",
            _CONTEXT + ", recorded even when the prompt is blocked",
            _NOTICE,
            _STRICT,
        ),
    ),
    "PreToolUse": CodexEventSupport(
        seam="tools/rewrite-input",
        status="supported",
        applied=(
            "fires once per call on `tools/rewrite-input`; the decision is applied on"
            " `tools/pre-execute`",
            '`permissionDecision: "deny"` with a reason, legacy `decision: "block"`, or exit 2'
            " with stderr: the tool does not run; the model reads `Command blocked by PreToolUse"
            " hook: R. Command: <cmd>` (Bash) or `Tool call blocked by PreToolUse hook: R. Tool:"
            " <name>`",
            '`permissionDecision: "allow"` with `updatedInput` rewrites the call (for Bash'
            ' `{"command": …}` only); a block discards any rewrite',
            "`ask`, `allow` without `updatedInput`, `continue: false`, `stopReason`,"
            ' `suppressOutput`, `decision: "approve"`: rejected as Codex rejects them (the call'
            " proceeds) and shown to the user",
            "matcher on the tool name and Codex's aliases (`apply_patch` = `Write`/`Edit`,"
            " `spawn_agent` = `Agent`)",
            _CONTEXT,
        ),
        difference=(
            "several rewrites: the last in configured order wins (Codex: the hook that finished"
            " last)"
        ),
    ),
    "PermissionRequest": CodexEventSupport(
        seam="tools/approval-request",
        status="partial",
        applied=(
            'fires on an `exec_command` call with `sandbox_permissions: "require_escalated"`'
            " under approval `on-request` (permission mode `default`), as Codex does:"
            ' `tool_name: "Bash"`, `tool_input` `{command, description}` (the justification), no'
            " `tool_use_id`; also wherever another dsh policy asks for approval",
            "`decision.behavior` `allow` runs the call; `deny` refuses it with `message` (default"
            " `PermissionRequest hook denied approval`), which the model reads as Codex shows it:"
            ' `exec_command failed: CreateProcess { message: "Rejected(\\"M\\")" }`; exit 2'
            " denies; any deny wins",
            "`updatedInput`, `updatedPermissions`, `interrupt` inside `decision` void the answer",
        ),
        limits=(
            "no answer: headless Codex asks its automatic reviewer (Guardian, a second model"
            " conversation); dsh has none, so the escalation goes to whoever the host asks (a"
            " person at the terminal, an ACP client) and, with no one to ask, is declined",
        ),
    ),
    "PostToolUse": CodexEventSupport(
        seam="tools/post-execute",
        status="supported",
        applied=(
            "fires after every call that ran, failed ones too (Codex has no failure event); a"
            " shell call's `tool_response` is its output as a plain string",
            '`decision: "block"` with a reason, or exit 2 with stderr: the tool output the model'
            " reads is replaced by the reason",
            "`continue: false`: the output is replaced by `stopReason` (else `PostToolUse hook"
            " stopped execution`); the turn goes on",
            _CONTEXT,
            "on the Responses API (Codex's) the context goes before the step's tool outputs, where"
            " Codex puts it; chat completions need results right after their call, so there it"
            " follows them",
            _NOTICE,
        ),
    ),
    "PreCompact": CodexEventSupport(
        seam="agent/pre-compact",
        status="supported",
        applied=(
            "manual and automatic compaction; matcher on `trigger`",
            "automatic as in Codex 0.171: before the next request once a reply's reported usage"
            " (input, cache and output tokens) reached `model_auto_compact_token_limit` (the"
            " highest `config.toml` layer that sets it; `dsh run --auto-compact-tokens` wins);"
            " the first summary answer is taken, and the request after it carries the summary"
            " in Codex's framing (`Another language model started to solve this problem…`)",
            "the summary is asked for as Codex 0.171 asks: the history under the session's own"
            " instructions, no tools offered, then Codex's prompt (`You are performing a CONTEXT"
            " CHECKPOINT COMPACTION. …`) word for word as a user message",
            "`continue: false` abandons the compaction and aborts the turn",
        ),
    ),
    "PostCompact": CodexEventSupport(
        seam="agent/post-compact",
        status="supported",
        applied=("matcher on `trigger`", "`continue: false` aborts the turn"),
    ),
    "Stop": CodexEventSupport(
        seam="agent/turn-continuation",
        status="supported",
        applied=(
            '`decision: "block"` with a reason, or exit 2 with stderr: the turn continues with a'
            ' user message `<hook_prompt hook_run_id="stop:<n>:<file>">R</hook_prompt>`; the'
            " next Stop has `stop_hook_active: true`",
            "`continue: false` ends the turn (it wins over a block)",
            "plain stdout is a failure, as in Codex",
        ),
    ),
    "SubagentStart": CodexEventSupport(
        seam="subagent/start",
        status="supported",
        applied=("matcher on `agent_type`", _CONTEXT + " for the child"),
    ),
    "SubagentStop": CodexEventSupport(
        seam="subagent/end",
        status="partial",
        applied=("matcher on `agent_type`", _NOTICE),
        limits=(
            "a block cannot continue the child: dsh's subagent has finished its turn when"
            " `subagent/end` fires (a notice says so)",
        ),
    ),
    "SessionEnd": CodexEventSupport(
        seam="agent/session-end",
        status="supported",
        applied=(
            "`reason` is always `other`, as in Codex; output ignored",
            "1 s default timeout, at most 3 s (clamped with a diagnostic)",
        ),
    ),
    "Interrupt": CodexEventSupport(
        seam="agent/prompt-submit",
        status="supported",
        applied=(
            "fires when the running root turn is aborted (`agent.cancel`, Ctrl-C); advisory",
            "only `systemMessage`; 1 s default timeout, at most 3 s",
        ),
    ),
}

CODEX_EVENT_SUPPORT: Final[Mapping[str, CodexEventSupport]] = MappingProxyType(
    {event: _TABLE[event] for event in CODEX_HOOK_EVENTS}
)
"""Every Codex event, in Codex's order, with how dsh runs it."""

CONFIG_LIMITS: Final = (
    "the shell tool: a Codex session offers `exec_command` (Codex's name, fields and output"
    " frame: `Chunk ID`, `Wall time`, `Process exited with code N`, `Original token count`,"
    " `Output:`) beside dsh's own tools; an unescalated call runs as `Bash` does, in the"
    " sandbox when one is on (the config layers' `sandbox_mode` and"
    " `[sandbox_workspace_write]`, or dsh's own: docs/sandbox.md) and under dsh's permission"
    " policy, and `require_escalated` asks to run outside it: under approval `never`"
    " (`bypassPermissions`) it is refused with Codex's text (`approval policy is Never; reject"
    " command — …`), under `on-request` (`default`) it"
    " goes through PermissionRequest and the approval seam. The policy is the config layers',"
    " settled as `codex exec` settles it (checked with the 0.171 binary): `on-request` only"
    ' with `approvals_reviewer = "auto_review"`, else `never`. Each call runs to its'
    " end (at most 10 minutes) on pipes: no PTY (`tty`), no session left running for"
    " `write_stdin` (`yield_time_ms`), no remembered `prefix_rule`; `max_output_tokens` cuts the"
    " output at about 4 characters a token. With both bridges mounted (`--hooks both`), Claude"
    " Code's permission rules judge an `exec_command` call as `Bash` with `{command}` (it"
    " declares the tools floor's `shell_command` trait); Claude Code's hooks still see it as"
    " `exec_command` with `{cmd}`",
    "no SendMessage: Codex 0.171 offers none (its agents are `multi_agent_v1`'s `spawn_agent`,"
    " `send_input`, …: tests/fixtures/codex_tools.json, recorded by"
    " benchmarks/record_codex_tools.py), so a Codex session does not either (the profile's"
    " `absent_tools`, which `dsh.host` leaves unregistered unless another mounted bridge offers"
    " it: `--hooks both` keeps it); its Agent results offer no continuation"
    " (`canContinueAgent: false`)",
    'plugin hooks: an enabled plugin (`[plugins."<name>@<marketplace>"] enabled = true`) is'
    " read from `$CODEX_HOME/plugins/cache/<marketplace>/<name>/<version>/` (its manifest's"
    " `hooks`, else `hooks/hooks.json`; a `hooks` path that leaves the plugin, has a NUL or a"
    " name over 255 bytes is ignored with a warning, one with `..` is diagnosed); its"
    " `PLUGIN_DATA` is"
    " `$CODEX_HOME/plugins/data/<name>-<marketplace>`, where the 0.171 binary points it, not"
    " created (Codex does not create it either), and its trust hash is of the command as"
    " declared, before `${PLUGIN_ROOT}` is filled in; a plugin whose marketplace name has a `.`"
    " is not loaded (the 0.171 binary skips it without a word; dsh says so)",
    "dsh's file tools (`Write`, `Edit`, `MultiEdit`) reach hooks under their own names with"
    " their own inputs, not as `apply_patch` with a patch text (a matcher `apply_patch` still"
    " selects them)",
    "an `mcp_tool` handler whose call fails (no such server, not connected, `isError`) is a"
    " failed hook; what 0.171 does then is not recorded",
    "requirements.toml `managed_dir` is not read",
    "a Bash call's `tool_response` lacks the output's final newline: dsh's Bash tool trims it",
    "`transcript_path` is dsh's own session log (JSONL of dsh events), not a Codex rollout",
)
