"""The runtime half of the bridge: Claude Code hooks running on dsh's seams.

``claude_hooks_plugin(catalog)`` registers one listener per seam for the
catalog's events (``HOOK_EVENT_HOST_SUPPORT`` names the seam). Each listener
selects the matching declarations, builds the payload Claude Code sends (field
for field as the conformance captures show), runs the hooks concurrently with
``run_hooks`` (logging ``hook/invocation`` and ``hook/result``), decodes each
answer and applies the merged result with the event's rules and Claude Code's
model-visible wording.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import uuid
import weakref
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

from dsh._frozen import frozen, slotted
from dsh.agent import (
    CWD_CHANGED,
    INSTRUCTIONS_LOADED,
    MESSAGE_DISPLAY,
    POST_COMPACT,
    POST_TOOL_BATCH,
    PRE_COMPACT,
    PROMPT_SUBMIT,
    SESSION_END,
    SESSION_START,
    SETUP,
    SUBAGENT_END,
    SUBAGENT_START,
    TURN_CONTINUATION,
    TURN_ERROR,
    Agent,
    CompactRequest,
    ContinuationDecision,
    ContinuationState,
    DisplayDecision,
    DisplayRequest,
    InstructionsFile,
    PostToolBatchDecision,
    PreCompactDecision,
    PromptDecision,
    PromptSource,
    SessionEndReason,
    SessionStartSource,
    SetupTrigger,
    TurnResult,
)
from dsh.approval import ApprovalDecision, ApprovalRequest
from dsh.context import Context, Next
from dsh.hook_protocol import (
    HookOutcome,
    HookRun,
    WrongEvent,
    hook_outcome,
    invocation_event,
    result_event,
    run_hooks,
    unique_hooks,
)
from dsh.hooks.claude._outputs import HookAnswer, decode_answer
from dsh.hooks.claude._support import HOOK_EVENT_HOST_SUPPORT
from dsh.hooks.claude._transcript import (
    TranscriptWriter,
    default_transcript_dir,
    project_slug,
    write_transcript,
)
from dsh.hooks.claude._types import Catalog, HookDeclaration
from dsh.session import AbortCause, Content, content_text, thaw_json
from dsh.tools import (
    APPROVAL_REQUEST,
    POST_EXECUTE,
    PRE_EXECUTE,
    REWRITE_INPUT,
    TASK_COMPLETED,
    TASK_CREATED,
    InputRewrite,
    PostToolDecision,
    PreToolDecision,
    ProposedCall,
    Task,
    TaskDecision,
    ToolCall,
    ToolExecutionResult,
    ToolResult,
    validate_arguments,
)

__all__ = ["ClaudeHooksPlugin", "PermissionMode", "claude_hooks_plugin"]

logger = logging.getLogger("dsh.hooks.claude")

PermissionMode: TypeAlias = Literal[
    "default", "acceptEdits", "plan", "auto", "bypassPermissions", "dontAsk"
]

ENTRYPOINT: Final = "sdk-cli"
EFFORT_LEVEL: Final = "high"

# Calls that never ran fire no post-tool event (the host marker the seed asked for).
_NO_POST_EVENT: Final = frozenset(
    {"UNKNOWN_TOOL", "INVALID_ARGS", "DENIED", "ABORTED_BEFORE_DISPATCH", "ABORTED"}
)

_SOURCE = "claude-hooks"

# Why PermissionRequest's rewrites are not applied (the coverage table's limits).
_SEALED_INPUT: Final = (
    "the call's input is sealed before approval; rewrite it in PreToolUse."
    " An allow for a different input counts as no decision"
)
_NO_RULES: Final = "dsh keeps no permission rules or modes"


def _root(agent: Agent) -> Agent:
    while agent.parent is not None:
        agent = agent.parent
    return agent


@slotted
class _AgentState:
    """Per-session bookkeeping: the current prompt id, tool start times, the compaction trigger."""

    prompt_id: str | None = None
    started: dict[str, float] = field(default_factory=dict)
    compact_trigger: str = "manual"
    # tool_use_id -> PreToolUse's outcome, from tools/rewrite-input to tools/pre-execute
    pre_tool: dict[str, _PreToolOutcome] = field(default_factory=dict)


_PENDING_MAX = 64


@frozen
class _PreToolOutcome:
    """PreToolUse's merged answer for one call (deny > ask > allow; contexts in order)."""

    denials: tuple[str, ...]
    asks: tuple[str, ...]
    contexts: tuple[str, ...]


def _pre_tool_outcome(name: str, merged: _Merged) -> _PreToolOutcome:
    contexts = [f"PreToolUse:{name} hook additional context: {c}" for c in merged.contexts()]
    denials: list[str] = []
    asks: list[str] = []
    for decl, answer in merged.answers:
        if answer.blocking_error is not None:
            denials.append(
                f"PreToolUse:{name} hook error: [{decl.declared_command}]: "
                f"{answer.blocking_error.strip() or 'No stderr output'}"
            )
        elif answer.permission_decision == "deny" or answer.decision == "block":
            reason = answer.permission_reason or answer.reason
            denials.append(reason or f"Hook PreToolUse:{name} denied this tool")
        elif answer.permission_decision == "ask":
            asks.append(answer.permission_reason or f"Hook PreToolUse:{name} asks for approval")
    return _PreToolOutcome(tuple(denials), tuple(asks), tuple(contexts))


@slotted
class _Merged:
    """Every decided answer of one event firing, in declaration order."""

    answers: list[tuple[HookDeclaration, HookAnswer]]

    def contexts(self) -> list[str]:
        return [a.additional_context for _, a in self.answers if a.additional_context]

    def blocks(self) -> list[tuple[HookDeclaration, HookAnswer]]:
        return [(d, a) for d, a in self.answers if a.blocks]

    def halt(self) -> HookAnswer | None:
        return next((a for _, a in self.answers if a.halt), None)


class ClaudeHooksPlugin:
    """The plugin ``claude_hooks_plugin`` returns: ``ctx.plugin(plugin)`` mounts it."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        permission_mode: PermissionMode = "bypassPermissions",
        transcript_dir: Path | None = None,
        effort: str | None = EFFORT_LEVEL,
    ) -> None:
        self.catalog = catalog
        self.permission_mode: PermissionMode = permission_mode
        self.transcript_dir = transcript_dir
        self.effort = effort
        self._states: weakref.WeakKeyDictionary[Agent, _AgentState] = weakref.WeakKeyDictionary()
        self._transcripts: dict[Path, TranscriptWriter] = {}
        self._legacy_warned: set[Hashable] = set()

    # -- mounting ---------------------------------------------------------------

    def declared(self, event: str) -> bool:
        return bool(self.catalog.for_event(event))

    def seams(self) -> dict[str, str]:
        """Event → seam of every event this plugin registers a listener for."""
        return {
            event: HOOK_EVENT_HOST_SUPPORT[event].seam
            for event in self.catalog.hooks
            if self.declared(event) and HOOK_EVENT_HOST_SUPPORT[event].status != "not-supported"
        }

    def apply(self, ctx: Context) -> None:
        d = self.declared
        if d("Setup"):
            ctx.on(SETUP, self._setup)
        if d("SessionStart"):
            ctx.on(SESSION_START, self._session_start)
        if d("InstructionsLoaded"):
            ctx.on(INSTRUCTIONS_LOADED, self._instructions_loaded)
        # Always: it mints the `prompt_id` every later event of the turn carries.
        ctx.on(PROMPT_SUBMIT, self._prompt_submit)
        if d("MessageDisplay"):
            ctx.on(MESSAGE_DISPLAY, self._message_display)
        if d("CwdChanged"):
            ctx.on(CWD_CHANGED, self._cwd_changed)
        if d("PreToolUse"):
            ctx.on(REWRITE_INPUT, self._pre_tool_input)
        if d("PreToolUse") or d("PostToolUse") or d("PostToolUseFailure"):
            ctx.on(PRE_EXECUTE, self._pre_tool)
        if d("PermissionRequest"):
            ctx.on(APPROVAL_REQUEST, self._permission_request)
        if d("PostToolUse") or d("PostToolUseFailure"):
            ctx.on(POST_EXECUTE, self._post_tool)
        if d("PostToolBatch"):
            ctx.on(POST_TOOL_BATCH, self._post_tool_batch)
        if d("TaskCreated"):
            ctx.on(TASK_CREATED, self._task_created)
        if d("TaskCompleted"):
            ctx.on(TASK_COMPLETED, self._task_completed)
        if d("Stop"):
            ctx.on(TURN_CONTINUATION, self._stop)
        if d("StopFailure") or d("MessageDisplay"):
            ctx.on(TURN_ERROR, self._turn_error)
        if d("SubagentStart"):
            ctx.on(SUBAGENT_START, self._subagent_start)
        if d("SubagentStop"):
            ctx.on(SUBAGENT_END, self._subagent_stop)
        if d("PreCompact") or d("PostCompact"):
            ctx.on(PRE_COMPACT, self._pre_compact)
        if d("PostCompact"):
            ctx.on(POST_COMPACT, self._post_compact)
        if d("SessionEnd"):
            ctx.on(SESSION_END, self._session_end)

    # -- shared machinery ---------------------------------------------------------

    def _state(self, agent: Agent) -> _AgentState:
        # Per root agent, not per session id: a resumed session is a new process in
        # Claude Code, with no prompt id until its first prompt.
        return self._states.setdefault(_root(agent), _AgentState())

    def transcript_path(self, agent: Agent) -> Path:
        """Where ``agent``'s (root session's) transcript is written."""
        root = _root(agent)
        base = self.transcript_dir if self.transcript_dir is not None else default_transcript_dir()
        project = root.workspace.project_dir or root.workspace.cwd
        return base / project_slug(project) / f"{root.session_id}.jsonl"

    def _base(
        self,
        agent: Agent,
        event: str,
        *,
        prompt_id: bool = True,
        permission: bool = True,
        agent_fields: bool = True,
        effort: bool = True,
    ) -> dict[str, Any]:
        """The common fields, in Claude Code's order."""
        root = _root(agent)
        payload: dict[str, Any] = {
            "session_id": root.session_id,
            "transcript_path": str(self.transcript_path(agent)),
            "cwd": str(agent.workspace.cwd),
        }
        pid = self._state(agent).prompt_id
        if prompt_id and pid is not None:
            payload["prompt_id"] = pid
        if permission:
            payload["permission_mode"] = self.permission_mode
        if agent_fields and agent.parent is not None:
            payload["agent_id"] = agent.agent_id
            payload["agent_type"] = agent.agent_type
        if effort and self.effort is not None:
            payload["effort"] = {"level": self.effort}
        payload["hook_event_name"] = event
        return payload

    async def _fire(
        self,
        agent: Agent,
        event: str,
        hooks: Sequence[HookDeclaration],
        payload: Mapping[str, Any],
        *,
        log_to: Agent | None = None,
    ) -> _Merged:
        """Run ``hooks`` with ``payload``; log them; return the decided answers in order."""
        if not hooks:
            return _Merged([])
        root = _root(agent)
        path = self.transcript_path(agent)
        writer = self._transcripts.get(path)
        if writer is None:
            writer = self._transcripts[path] = TranscriptWriter(
                path, session_id=root.session_id, permission_mode=self.permission_mode
            )
        writer.sync(root.events, cwd=root.workspace.cwd)
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        env = {
            "CLAUDECODE": "1",
            "CLAUDE_CODE_SESSION_ID": root.session_id,
            "CLAUDE_CODE_ENTRYPOINT": ENTRYPOINT,
            "CLAUDE_CODE_CHILD_SESSION": "1",
        }
        effort = payload.get("effort")
        if isinstance(effort, dict) and isinstance(effort.get("level"), str):
            env["CLAUDE_EFFORT"] = effort["level"]
        cmds = [h.to_command(cwd=agent.workspace.cwd, env=env) for h in hooks]
        selected = unique_hooks(cmds)
        target = log_to if log_to is not None else agent
        # Hooks fired together are logged together: one write and one fsync for the lot.
        invocations = [invocation_event(cmds[i], data) for i in selected]
        target.append_events(invocations)

        def decode(r: HookRun) -> HookAnswer | WrongEvent | None:
            return decode_answer(r, event)

        # The running turn's signal: `agent.cancel(..., when="now")` ends the hooks'
        # process groups and their runs come back `cancelled` (no decision).
        signal = agent.signal
        if signal is None and log_to is not None:
            signal = log_to.signal
        started = time.perf_counter()
        try:
            runs = await run_hooks([cmds[i] for i in selected], data, dedup=False, signal=signal)
        except asyncio.CancelledError:
            # Cancelled under us (the executor killed the groups): close the audit trail.
            elapsed = time.perf_counter() - started
            cancelled = [HookRun.without_output(cmds[i], elapsed, cancelled=True) for i in selected]
            target.append_events(
                [
                    result_event(hook_outcome(run, decode), invocation=inv)
                    for run, inv in zip(cancelled, invocations, strict=True)
                ]
            )
            raise

        outcomes: list[HookOutcome[HookAnswer]] = [hook_outcome(run, decode) for run in runs]
        target.append_events(
            [
                result_event(
                    outcome,
                    invocation=inv,
                    decision_json=outcome.decision.to_json()
                    if outcome.decision is not None
                    else None,
                )
                for outcome, inv in zip(outcomes, invocations, strict=True)
            ]
        )
        merged = _Merged([])
        for i, run, outcome in zip(selected, runs, outcomes, strict=True):
            answer = outcome.decision
            if answer is None:
                if outcome.no_decision not in (None, "abstained"):
                    logger.info("%s", outcome.reason)
                if outcome.failed_closed:
                    answer = HookAnswer(
                        exit_code=run.exit_code if run.exit_code is not None else -1,
                        blocking_error=outcome.reason or "hook failed",
                    )
                else:
                    continue
            merged.answers.append((hooks[i], answer))
        return merged

    def _common_effects(self, agent: Agent, event: str, merged: _Merged) -> None:
        """``systemMessage`` as notices; ``continue: false`` halts after the step."""
        for _, answer in merged.answers:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{_SOURCE}:{event}")
        halt = merged.halt()
        if halt is not None:
            reason = halt.stop_reason or f"{event} hook stopped the session"
            agent.cancel(AbortCause(kind="hook", reason=reason), when="after_step")

    def _user_errors(self, agent: Agent, event: str, merged: _Merged) -> None:
        """Exit 2 where it cannot block: stderr shown to the user as a hook-error notice."""
        for decl, answer in merged.answers:
            if answer.blocking_error is not None:
                text = answer.blocking_error.strip() or "(no stderr)"
                agent.notice(
                    f"{event} hook error ({decl.declared_command}): {text}",
                    source=f"{_SOURCE}:{event}",
                    level="warning",
                )

    def _inject_contexts(
        self, agent: Agent, event: str, merged: _Merged, *, plain_as: str | None
    ) -> None:
        """Each hook's ``additionalContext`` as context; else, named ``plain_as``, its stdout."""
        for _, answer in merged.answers:
            if answer.additional_context:
                agent.inject(
                    f"{event} hook additional context: {answer.additional_context}",
                    source=f"{_SOURCE}:{event}",
                )
            elif answer.plain and plain_as is not None:
                agent.inject(
                    f"{plain_as} hook success: {answer.plain}", source=f"{_SOURCE}:{event}"
                )

    # -- Setup -----------------------------------------------------------------------

    async def _setup(self, agent: Agent, trigger: SetupTrigger) -> None:
        hooks = self.catalog.matching("Setup", trigger)
        if not hooks:
            return
        payload = self._base(agent, "Setup", prompt_id=False, permission=False, effort=False)
        payload["trigger"] = trigger
        merged = await self._fire(agent, "Setup", hooks, payload)
        # Plain stdout goes to Claude Code's debug log only; the hook/result event keeps it.
        self._inject_contexts(agent, "Setup", merged, plain_as=None)
        self._user_errors(agent, "Setup", merged)
        self._common_effects(agent, "Setup", merged)

    # -- InstructionsLoaded -------------------------------------------------------------

    async def _instructions_loaded(self, agent: Agent, file: InstructionsFile) -> None:
        hooks = self.catalog.matching("InstructionsLoaded", file.load_reason)
        if not hooks:
            return
        payload = self._base(
            agent, "InstructionsLoaded", prompt_id=False, permission=False, effort=False
        )
        payload["file_path"] = str(file.path)
        payload["memory_type"] = file.scope
        payload["load_reason"] = file.load_reason
        if file.globs:
            payload["globs"] = list(file.globs)
        if file.trigger_file_path is not None:
            payload["trigger_file_path"] = str(file.trigger_file_path)
        if file.parent_path is not None:
            payload["parent_file_path"] = str(file.parent_path)
        # Exit code and output are discarded, as Claude Code discards them; the log keeps them.
        await self._fire(agent, "InstructionsLoaded", hooks, payload)

    # -- SessionStart ----------------------------------------------------------------

    async def _session_start(self, agent: Agent, source: SessionStartSource) -> None:
        if agent.parent is not None:
            return  # a child fires SubagentStart instead
        value: str = source
        if source == "startup" and agent.forked_from is not None:
            value = "fork"
        hooks = self.catalog.matching("SessionStart", value)
        if not hooks:
            return
        payload = self._base(
            agent, "SessionStart", prompt_id=value == "compact", permission=False, effort=False
        )
        payload["source"] = value
        if value == "compact":
            payload["model"] = agent.model.name
        merged = await self._fire(agent, "SessionStart", hooks, payload)
        self._inject_contexts(agent, "SessionStart", merged, plain_as=f"SessionStart:{value}")
        self._user_errors(agent, "SessionStart", merged)
        self._common_effects(agent, "SessionStart", merged)

    # -- UserPromptSubmit -----------------------------------------------------------

    async def _prompt_submit(
        self, agent: Agent, content: Content, source: PromptSource, nxt: Next[PromptDecision]
    ) -> PromptDecision:
        if source != "user" or agent.parent is not None:
            return await nxt()
        state = self._state(agent)
        state.prompt_id = str(uuid.uuid4())
        hooks = self.catalog.matching("UserPromptSubmit", None)
        if not hooks:
            return await nxt()
        prompt = content_text(content)
        payload = self._base(agent, "UserPromptSubmit", effort=False, agent_fields=False)
        payload["prompt"] = prompt
        merged = await self._fire(agent, "UserPromptSubmit", hooks, payload)
        self._common_effects(agent, "UserPromptSubmit", merged)
        blocks = merged.blocks()
        if blocks:
            reasons = "\n".join(a.block_reason for _, a in blocks)
            message = f"UserPromptSubmit operation blocked by hook:\n{reasons}"
            if not any(a.suppress_original_prompt for _, a in merged.answers):
                message += f"\n\nOriginal prompt: {prompt}"
            return PromptDecision.block(message)
        lines: list[str] = []
        for _, answer in merged.answers:
            if answer.additional_context:
                lines.append(
                    f"UserPromptSubmit hook additional context: {answer.additional_context}"
                )
            elif answer.plain:
                lines.append(f"UserPromptSubmit hook success: {answer.plain}")
        decision = await nxt()
        if decision.blocked or not lines:
            return decision
        text = "\n".join(lines)
        if decision.additional_context:
            text = f"{decision.additional_context}\n{text}"
        return PromptDecision.allow(
            decision.content, text, source=decision.source or f"{_SOURCE}:UserPromptSubmit"
        )

    # -- PreToolUse -------------------------------------------------------------------

    # PreToolUse hooks run once per call, on tools/rewrite-input (before the call's
    # identity, so `updatedInput` can change what runs); the merged outcome is kept
    # for that call and applied when the same call reaches tools/pre-execute.

    async def _pre_tool_input(self, proposed: ProposedCall) -> InputRewrite | None:
        agent = proposed.agent
        use_id = proposed.tool_use_id
        if not isinstance(agent, Agent) or use_id is None:
            return None  # no way to find the call again: pre-execute runs the hooks
        hooks = self.catalog.matching("PreToolUse", proposed.name)
        if not hooks:
            return None
        merged = await self._fire_pre_tool(agent, proposed.name, proposed.arguments, use_id, hooks)
        outcome = _pre_tool_outcome(proposed.name, merged)
        pending = self._state(agent).pre_tool
        pending[use_id] = outcome
        while len(pending) > _PENDING_MAX:  # calls refused by a later rewriter
            del pending[next(iter(pending))]
        return self._updated_input(agent, proposed, merged, outcome)

    async def _fire_pre_tool(
        self,
        agent: Agent,
        name: str,
        arguments: Mapping[str, Any],
        tool_use_id: str | None,
        hooks: Sequence[HookDeclaration],
    ) -> _Merged:
        payload = self._base(agent, "PreToolUse")
        payload["tool_name"] = name
        payload["tool_input"] = thaw_json(arguments)
        payload["tool_use_id"] = tool_use_id
        merged = await self._fire(agent, "PreToolUse", hooks, payload)
        # Shown and honoured now, even if a later rewriter refuses the call.
        self._common_effects(agent, "PreToolUse", merged)
        return merged

    def _updated_input(
        self, agent: Agent, proposed: ProposedCall, merged: _Merged, outcome: _PreToolOutcome
    ) -> InputRewrite | None:
        """The last valid ``updatedInput`` in declaration order, unless the call is denied."""
        if outcome.denials:
            return None  # ignored with deny: the call does not run
        chosen: tuple[HookDeclaration, dict[str, Any]] | None = None
        for decl, answer in merged.answers:
            if answer.updated_input is None or answer.permission_decision == "defer":
                continue
            errors = validate_arguments(proposed.tool, answer.updated_input)
            if errors is not None:
                detail = "; ".join(f"{e['path']}: {e['message']}" for e in errors)
                agent.notice(
                    f"PreToolUse hook error ({decl.declared_command}): updatedInput for"
                    f" {proposed.name} does not match the tool's input schema and was not"
                    f" applied: {detail}",
                    source=f"{_SOURCE}:PreToolUse",
                    level="warning",
                )
                continue
            chosen = (decl, answer.updated_input)
        if chosen is None:
            return None
        decl, arguments = chosen
        return InputRewrite.replace(
            arguments, reason=f"PreToolUse updatedInput from {decl.declared_command}"
        )

    async def _pre_tool(self, call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        agent = call.agent
        if not isinstance(agent, Agent):
            return await nxt()
        state = self._state(agent)
        state.started[str(call.token)] = time.monotonic()
        outcome = state.pre_tool.pop(call.tool_use_id, None) if call.tool_use_id else None
        if outcome is None:
            # The call skipped tools/rewrite-input (or the bridge's listener there).
            hooks = self.catalog.matching("PreToolUse", call.name)
            if not hooks:
                return await nxt()
            merged = await self._fire_pre_tool(
                agent, call.name, call.arguments, call.tool_use_id, hooks
            )
            if any(a.updated_input is not None for _, a in merged.answers):
                logger.info(
                    "PreToolUse updatedInput for %s is not applied: the call was sealed"
                    " without passing tools/rewrite-input",
                    call.name,
                )
            outcome = _pre_tool_outcome(call.name, merged)
        contexts = outcome.contexts
        if outcome.denials:
            reason = "\n".join(outcome.denials)
            info = {"hook_event": "PreToolUse"}
            return PreToolDecision.deny(reason, info, additional_context=contexts)
        decision = await nxt()
        if decision.kind == "deny":
            return PreToolDecision.deny(
                decision.reason or "denied",
                decision.info,
                additional_context=(*contexts, *decision.additional_context),
            )
        asks = outcome.asks
        if asks or decision.kind == "ask":
            reason = "\n".join(asks) if asks else (decision.reason or "approval needed")
            return PreToolDecision.ask(
                reason, additional_context=(*contexts, *decision.additional_context)
            )
        if contexts:
            return PreToolDecision.allow(
                additional_context=(*contexts, *decision.additional_context)
            )
        return decision

    # -- PermissionRequest ----------------------------------------------------------------

    async def _permission_request(
        self, call: ToolCall, req: ApprovalRequest, nxt: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        agent = call.agent
        # Bypass mode shows no permission prompt, so Claude Code fires no PermissionRequest
        # there (the recorded `pretool-ask-json` case: an `ask` is denied without one).
        if not isinstance(agent, Agent) or self.permission_mode == "bypassPermissions":
            return await nxt()
        hooks = self.catalog.matching("PermissionRequest", call.name)
        if not hooks:
            return await nxt()
        payload = self._base(agent, "PermissionRequest")
        payload["tool_name"] = call.name
        payload["tool_input"] = thaw_json(call.arguments)
        merged = await self._fire(agent, "PermissionRequest", hooks, payload)
        self._common_effects(agent, "PermissionRequest", merged)
        denials: list[str] = []
        interrupt = False
        allowed = False
        for decl, answer in merged.answers:
            if answer.blocking_error is not None:
                if answer.exit_code == 2:
                    continue  # exit 2 is not honoured here: the flow is unchanged
                # A failure of an `onFailure: "block"` hook blocks the permission request.
                denials.append(
                    f"PermissionRequest:{call.name} hook error: [{decl.declared_command}]: "
                    f"{answer.blocking_error.strip() or 'No stderr output'}"
                )
                continue
            verdict = answer.permission_request
            if verdict is None:
                continue
            if verdict.updated_permissions is not None:
                self._not_applied(agent, call, decl, "updatedPermissions", _NO_RULES)
            if verdict.behavior == "deny":
                denials.append(
                    verdict.message or f"Hook PermissionRequest:{call.name} denied this tool"
                )
                interrupt = interrupt or verdict.interrupt
                continue
            if verdict.updated_input is not None and verdict.updated_input != payload["tool_input"]:
                # The hook approved a different call than the one that would run.
                self._not_applied(agent, call, decl, "updatedInput", _SEALED_INPUT)
                continue
            allowed = True
        if denials:
            return ApprovalDecision.deny("\n".join(denials), interrupt=interrupt)
        decision = await nxt()
        if not allowed or decision.kind == "deny":
            return decision
        return ApprovalDecision.allow(
            always=decision.always, reason=decision.reason or "allowed by a PermissionRequest hook"
        )

    def _not_applied(
        self, agent: Agent, call: ToolCall, decl: HookDeclaration, field: str, why: str
    ) -> None:
        agent.notice(
            f"PermissionRequest:{call.name} hook ({decl.declared_command}): `{field}` is not"
            f" applied ({why})",
            source=f"{_SOURCE}:PermissionRequest",
            level="warning",
        )

    # -- PostToolUse / PostToolUseFailure -------------------------------------------------

    def _suite(self, decl: HookDeclaration) -> Hashable:
        return ("plugin", decl.plugin) if decl.plugin is not None else ("file", decl.source.label)

    def _post_hooks(self, name: str, failed: bool) -> list[tuple[str, HookDeclaration]]:
        """The hooks a call's outcome runs, each with the event it runs as."""
        if not failed:
            return [("PostToolUse", h) for h in self.catalog.matching("PostToolUse", name)]
        failure = self.catalog.matching("PostToolUseFailure", name)
        declaring = {self._suite(h) for h in failure}
        chosen: list[tuple[str, HookDeclaration]] = [("PostToolUseFailure", h) for h in failure]
        for h in self.catalog.matching("PostToolUse", name):
            suite = self._suite(h)
            if suite in declaring:
                continue
            if suite not in self._legacy_warned:
                self._legacy_warned.add(suite)
                logger.warning(
                    "%s declares no PostToolUseFailure hook for %s; it gets PostToolUse for failed"
                    " calls as before the split (declare PostToolUseFailure to follow Claude Code)",
                    h.source.label if h.plugin is None else f"plugin {h.plugin}",
                    name,
                )
            chosen.append(("PostToolUse", h))
        return chosen

    async def _post_tool(
        self, call: ToolCall, result: ToolResult, nxt: Next[PostToolDecision]
    ) -> PostToolDecision:
        agent = call.agent
        if not isinstance(agent, Agent) or result.code in _NO_POST_EVENT:
            return await nxt()
        started = self._state(agent).started.pop(str(call.token), None)
        duration_ms = int((time.monotonic() - started) * 1000) if started is not None else 0
        chosen = self._post_hooks(call.name, result.is_error)
        contexts: list[str] = []
        replacement: Any = None
        for event in ("PostToolUseFailure", "PostToolUse"):
            hooks = [h for e, h in chosen if e == event]
            if not hooks:
                continue
            payload = self._base(agent, event)
            payload["tool_name"] = call.name
            payload["tool_input"] = thaw_json(call.arguments)
            if event == "PostToolUse":
                payload["tool_response"] = _tool_response(result)
                payload["tool_use_id"] = call.tool_use_id
            else:
                payload["tool_use_id"] = call.tool_use_id
                payload["error"] = result.text
                payload["is_interrupt"] = False
            payload["duration_ms"] = duration_ms
            merged = await self._fire(agent, event, hooks, payload)
            self._common_effects(agent, event, merged)
            for decl, answer in merged.answers:
                if answer.blocks:
                    contexts.append(
                        f"{event}:{call.name} hook blocking error from command: "
                        f'"{decl.declared_command}": {answer.block_reason}'
                    )
            contexts.extend(
                f"{event}:{call.name} hook additional context: {c}" for c in merged.contexts()
            )
            if event == "PostToolUse" and not result.is_error:
                replacement = self._updated_output(agent, call, merged)
            elif event == "PostToolUse":
                # A suite from before the failure split gets PostToolUse for a failed call.
                for decl, answer in merged.answers:
                    if answer.updated_tool_output is not None:
                        agent.notice(
                            f"PostToolUse hook error ({decl.declared_command}): updatedToolOutput"
                            f" for {call.name} was not applied: the call failed ({result.code})",
                            source=f"{_SOURCE}:PostToolUse",
                            level="warning",
                        )
        decision = await nxt()
        if not contexts and replacement is None:
            return decision
        return PostToolDecision(
            decision.kind,
            decision.feedback,
            (*contexts, *decision.additional_context),
            decision.content,
            replacement if replacement is not None else decision.output,
        )

    def _updated_output(self, agent: Agent, call: ToolCall, merged: _Merged) -> Any:
        """The last ``updatedToolOutput`` in declaration order that fits the tool's output."""
        definition = call.tool  # the definition the call was sealed with
        chosen: Any = None
        for decl, answer in merged.answers:
            if answer.updated_tool_output is None or definition is None:
                continue
            try:
                definition.present_output(answer.updated_tool_output)
            except Exception as exc:  # a mismatch, or a presenter that cannot render it
                agent.notice(
                    f"PostToolUse hook error ({decl.declared_command}): updatedToolOutput for"
                    f" {call.name} was not applied: {exc}",
                    source=f"{_SOURCE}:PostToolUse",
                    level="warning",
                )
                continue
            chosen = answer.updated_tool_output
        return chosen

    # -- TaskCreated / TaskCompleted -----------------------------------------------------

    async def _task_created(self, agent: Any, task: Task, nxt: Next[TaskDecision]) -> TaskDecision:
        return await self._task_event("TaskCreated", agent, task, nxt)

    async def _task_completed(
        self, agent: Any, task: Task, nxt: Next[TaskDecision]
    ) -> TaskDecision:
        return await self._task_event("TaskCompleted", agent, task, nxt)

    async def _task_event(
        self, event: str, agent: Any, task: Task, nxt: Next[TaskDecision]
    ) -> TaskDecision:
        """Exit 2 or ``decision: "block"`` refuses the change; the call fails with the reasons."""
        hooks = self.catalog.matching(event, None)
        if not isinstance(agent, Agent) or not hooks:
            return await nxt()
        payload = self._base(agent, event, permission=False, effort=False)
        payload["task_id"] = task.id
        payload["task_subject"] = task.subject
        payload["task_description"] = task.description
        merged = await self._fire(agent, event, hooks, payload)
        for _, answer in merged.answers:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{_SOURCE}:{event}")
        # `continue: false` is ignored here, as Claude Code ignores it outside agent teams.
        blocks = merged.blocks()
        if blocks:
            return TaskDecision.block(
                "\n".join(
                    f"{event} hook error: [{decl.declared_command}]: {answer.block_reason}"
                    for decl, answer in blocks
                )
            )
        return await nxt()

    # -- PostToolBatch ------------------------------------------------------------------

    async def _post_tool_batch(
        self,
        agent: Agent,
        results: tuple[ToolExecutionResult, ...],
        nxt: Next[PostToolBatchDecision],
    ) -> PostToolBatchDecision:
        hooks = self.catalog.matching("PostToolBatch", None)
        if not hooks:
            return await nxt()
        payload = self._base(agent, "PostToolBatch")
        payload["tool_calls"] = [
            {
                "tool_name": r.call.name,
                "tool_input": thaw_json(r.call.arguments),
                "tool_use_id": r.call.tool_use_id,
                "tool_response": r.result.text,
            }
            for r in results
        ]
        merged = await self._fire(agent, "PostToolBatch", hooks, payload)
        for _, answer in merged.answers:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{_SOURCE}:PostToolBatch")
        halt = merged.halt()
        blocks = merged.blocks()
        if halt is not None or blocks:
            reasons = [a.block_reason for _, a in blocks]
            if halt is not None:
                reasons.insert(0, halt.stop_reason or "PostToolBatch hook stopped the turn")
            return PostToolBatchDecision.stop("\n".join(reasons))
        decision = await nxt()
        lines = [f"PostToolBatch hook additional context: {c}" for c in merged.contexts()]
        if decision.kind == "stop" or not lines:
            return decision
        text = "\n".join(lines)
        if decision.additional_context:
            text = f"{decision.additional_context}\n{text}"
        return PostToolBatchDecision.proceed(
            text, source=decision.source or f"{_SOURCE}:PostToolBatch"
        )

    # -- Stop / StopFailure ---------------------------------------------------------------

    async def _stop(
        self, agent: Agent, state: ContinuationState, nxt: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        if agent.parent is not None or state.decision.continues:
            return await nxt()  # a child fires SubagentStop; queued steering continues anyway
        hooks = self.catalog.matching("Stop", None)
        if not hooks:
            return await nxt()
        payload = self._base(agent, "Stop")
        payload["stop_hook_active"] = state.stop_hook_active
        payload["last_assistant_message"] = state.final_text
        payload["background_tasks"] = []
        payload["session_crons"] = []
        merged = await self._fire(agent, "Stop", hooks, payload)
        self._common_effects(agent, "Stop", merged)
        if merged.halt() is not None:
            return await nxt()
        blocks = merged.blocks()
        if blocks:
            reasons = "\n".join(a.block_reason for _, a in blocks)
            return ContinuationDecision.continue_(f"Stop hook feedback:\n{reasons}")
        contexts = merged.contexts()
        if contexts:
            return ContinuationDecision.continue_("Stop hook feedback:\n" + "\n".join(contexts))
        return await nxt()

    async def _turn_error(self, agent: Agent, error: Exception) -> None:
        if agent.parent is not None:
            return
        # Claude Code shows the failure as a synthetic assistant message (`API Error: …`),
        # which MessageDisplay sees before StopFailure fires. dsh reports the error on the
        # turn's end line, so a `displayContent` for it has nothing to replace (a limit).
        hooks = self.catalog.matching("MessageDisplay", None)
        if hooks:
            payload = self._display_payload(
                agent, agent.turn_id or "", str(uuid.uuid4()), _api_error_text(error)
            )
            await self._fire(agent, "MessageDisplay", hooks, payload)
        await self._stop_failure(agent, error)

    async def _stop_failure(self, agent: Agent, error: Exception) -> None:
        kind = _error_kind(error)
        hooks = self.catalog.matching("StopFailure", kind)
        if not hooks:
            return
        payload = self._base(agent, "StopFailure", permission=False, agent_fields=False)
        payload["error"] = kind
        payload["last_assistant_message"] = _api_error_text(error)
        await self._fire(agent, "StopFailure", hooks, payload)  # output ignored, as in Claude Code

    # -- subagents -------------------------------------------------------------------------

    async def _subagent_start(self, parent: Agent, child: Agent) -> None:
        hooks = self.catalog.matching("SubagentStart", child.agent_type)
        if not hooks:
            return
        payload = self._base(child, "SubagentStart", permission=False, effort=False)
        merged = await self._fire(child, "SubagentStart", hooks, payload, log_to=parent)
        for _, answer in merged.answers:
            if answer.additional_context:
                child.inject(
                    f"SubagentStart hook additional context: {answer.additional_context}",
                    source=f"{_SOURCE}:SubagentStart",
                )
            if answer.system_message:
                parent.notice(answer.system_message, source=f"{_SOURCE}:SubagentStart")
        self._user_errors(parent, "SubagentStart", merged)
        halt = merged.halt()
        if halt is not None:
            child.cancel(
                AbortCause(kind="hook", reason=halt.stop_reason or "SubagentStart hook"),
                when="now",
            )

    async def _subagent_stop(self, parent: Agent, child: Agent, result: TurnResult) -> None:
        hooks = self.catalog.matching("SubagentStop", child.agent_type)
        if not hooks:
            return
        payload = self._base(child, "SubagentStop")
        payload["stop_hook_active"] = False
        # Claude Code's layout: <session>/subagents/agent-<id>.jsonl beside the transcript.
        payload["agent_transcript_path"] = str(
            self.transcript_path(parent).with_suffix("")
            / "subagents"
            / f"agent-{child.agent_id}.jsonl"
        )
        payload["last_assistant_message"] = result.final_text
        payload["background_tasks"] = []
        payload["session_crons"] = []
        write_transcript(
            Path(payload["agent_transcript_path"]),
            child.events,
            session_id=_root(parent).session_id,
            cwd=child.workspace.cwd,
            permission_mode=self.permission_mode,
        )
        merged = await self._fire(child, "SubagentStop", hooks, payload, log_to=parent)
        for _, answer in merged.answers:
            if answer.system_message:
                parent.notice(answer.system_message, source=f"{_SOURCE}:SubagentStop")

    # -- compaction -------------------------------------------------------------------------

    async def _pre_compact(
        self, agent: Agent, request: CompactRequest, nxt: Next[PreCompactDecision]
    ) -> PreCompactDecision:
        state = self._state(agent)
        state.compact_trigger = request.trigger
        if request.trigger == "manual":
            state.prompt_id = str(uuid.uuid4())  # `/compact` is a prompt in Claude Code
        hooks = self.catalog.matching("PreCompact", request.trigger)
        if not hooks:
            return await nxt()
        payload = self._base(
            agent, "PreCompact", permission=False, agent_fields=False, effort=False
        )
        payload["trigger"] = request.trigger
        payload["custom_instructions"] = request.instructions
        merged = await self._fire(agent, "PreCompact", hooks, payload)
        for _, answer in merged.answers:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{_SOURCE}:PreCompact")
        blocks = merged.blocks()
        if blocks:
            return PreCompactDecision.veto("\n".join(a.block_reason for _, a in blocks))
        return await nxt()

    async def _post_compact(self, agent: Agent, summary: str) -> None:
        trigger = self._state(agent).compact_trigger
        hooks = self.catalog.matching("PostCompact", trigger)
        if not hooks:
            return
        payload = self._base(
            agent, "PostCompact", permission=False, agent_fields=False, effort=False
        )
        payload["trigger"] = trigger
        payload["compact_summary"] = summary
        merged = await self._fire(agent, "PostCompact", hooks, payload)
        self._user_errors(agent, "PostCompact", merged)

    # -- MessageDisplay ------------------------------------------------------------------------

    async def _message_display(
        self, agent: Agent, request: DisplayRequest, nxt: Next[DisplayDecision]
    ) -> DisplayDecision:
        hooks = self.catalog.matching("MessageDisplay", None)
        if agent.parent is not None or not hooks:
            return await nxt()
        payload = self._display_payload(
            agent, request.turn_id, request.message_id, request.text, request.index, request.final
        )
        merged = await self._fire(agent, "MessageDisplay", hooks, payload)
        # Failure, timeout and exit 2 show the original; `systemMessage` and `continue`
        # are discarded. Several replacements: the last in declaration order wins.
        shown = [
            a.display_content
            for _, a in merged.answers
            if a.blocking_error is None and a.display_content is not None
        ]
        if shown:
            return DisplayDecision.replace(shown[-1])
        return await nxt()

    def _display_payload(
        self,
        agent: Agent,
        turn_id: str,
        message_id: str,
        text: str,
        index: int = 0,
        final: bool = True,
    ) -> dict[str, Any]:
        payload = self._base(
            agent, "MessageDisplay", permission=False, agent_fields=False, effort=False
        )
        payload["turn_id"] = _as_uuid(turn_id)
        payload["message_id"] = _as_uuid(message_id)
        payload["index"] = index
        payload["final"] = final
        payload["delta"] = text
        return payload

    # -- CwdChanged ------------------------------------------------------------------------------

    async def _cwd_changed(self, agent: Agent, old: Path, new: Path) -> None:
        hooks = self.catalog.matching("CwdChanged", None)
        if not hooks:
            return
        payload = self._base(agent, "CwdChanged", permission=False, effort=False)
        payload["old_cwd"] = str(old)
        payload["new_cwd"] = str(new)
        merged = await self._fire(agent, "CwdChanged", hooks, payload)
        # Exit 2 stderr and `systemMessage` reach the user; `continue` is discarded.
        for _, answer in merged.answers:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{_SOURCE}:CwdChanged")
            if answer.watch_paths is not None:
                logger.info("CwdChanged watchPaths are not applied (dsh has no file watcher)")
        self._user_errors(agent, "CwdChanged", merged)

    # -- SessionEnd ---------------------------------------------------------------------------

    async def _session_end(self, agent: Agent, reason: SessionEndReason) -> None:
        if agent.parent is not None:
            return
        hooks = self.catalog.matching("SessionEnd", reason)
        if not hooks:
            return
        payload = self._base(
            agent, "SessionEnd", permission=False, agent_fields=False, effort=False
        )
        payload["reason"] = reason
        merged = await self._fire(agent, "SessionEnd", hooks, payload)
        self._user_errors(agent, "SessionEnd", merged)


def _as_uuid(value: str) -> str:
    """dsh's 32-hex ids in Claude Code's dashed UUID form (other ids unchanged)."""
    try:
        return str(uuid.UUID(hex=value)) if len(value) == 32 else value
    except ValueError:
        return value


def _tool_response(result: ToolResult) -> Any:
    if result.output is None:
        return result.text
    return thaw_json(result.output)


def _error_kind(error: Exception) -> str:
    """Claude Code's StopFailure ``error`` vocabulary, from the model error's status."""
    status = getattr(error, "status", None)
    if status == 429:
        return "rate_limit"
    if status in (401, 403):
        return "authentication_failed"
    if isinstance(status, int) and status >= 500:
        return "server_error"
    return "unknown"


_HTTP_PREFIX = re.compile(r"^HTTP \d+ from [^:]*: ")


def _api_error_text(error: Exception) -> str:
    """Claude Code's synthetic last assistant message for a failed turn: ``API Error: 400 M``."""
    status = getattr(error, "status", None)
    message = str(getattr(error, "message", None) or error)
    message = _HTTP_PREFIX.sub("", message)
    return f"API Error: {status} {message}" if status is not None else f"API Error: {message}"


def claude_hooks_plugin(
    catalog: Catalog,
    *,
    permission_mode: PermissionMode = "bypassPermissions",
    transcript_dir: Path | None = None,
) -> ClaudeHooksPlugin:
    """The plugin that runs ``catalog``'s hooks on dsh's seams: ``ctx.plugin(...)`` it.

    ``permission_mode`` is sent as Claude Code's ``permission_mode``;
    ``transcript_dir`` is where transcripts are written (default: dsh's data dir).
    """
    return ClaudeHooksPlugin(
        catalog, permission_mode=permission_mode, transcript_dir=transcript_dir
    )
