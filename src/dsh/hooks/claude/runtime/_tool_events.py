"""The bridge's tool events: PreToolUse, PostToolUse(Failure), tasks, batches.

Each listener sits on a tool seam of dsh (``tools/rewrite-input``,
``tools/pre-execute``, ``tools/approval-request``, ``tools/post-execute``,
the task channels, ``agent/post-tool-batch``), builds Claude Code's payload for
the call, fires the matching hooks (``Runtime._fire``) and turns the
answers into dsh's decision with Claude Code's precedence and wording.
PermissionRequest is ``_permission_events``'s; the ``if``-aware choice of a tool
event's hooks is the runtime's (``Runtime._tool_hooks``).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

from dsh.agent import Agent, calling_agent
from dsh.base import thaw_json
from dsh.context import Next
from dsh.hooks.claude.answers._answer import HookAnswer
from dsh.hooks.claude.runtime._answers import (
    BETWEEN,
    Merged,
    PreToolOutcome,
    additional_contexts,
    blocking,
    event_context,
    shown_reason,
)
from dsh.hooks.claude.runtime._bash_diff import Snapshot, TreeSnapshots, bash_diff_on
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE, Runtime
from dsh.hooks.claude.runtime._tool_input import (
    SEND_MESSAGE_ADDED,
    mcp_server_of,
    observable_input,
    pre_tool_input,
)
from dsh.hooks.claude.settings._types import HookDeclaration
from dsh.tools import (
    CallStateKey,
    InputRewrite,
    PostToolAccept,
    PostToolBlock,
    PostToolDecision,
    PreToolAllow,
    PreToolAsk,
    PreToolDecision,
    PreToolDeny,
    ProposedCall,
    Task,
    TaskDecision,
    ToolCall,
    ToolCaller,
    ToolResult,
    validate_arguments,
)

if TYPE_CHECKING:  # annotations only: a payload is built as a dict
    from dsh.hooks.claude.payloads import (
        PostToolUseFailureHookInput,
        PostToolUseHookInput,
        PreToolUseHookInput,
        TaskCompletedHookInput,
        TaskCreatedHookInput,
    )


__all__ = ["ToolEvents"]

logger = logging.getLogger("dsh.hooks.claude")

# Calls that never ran fire no post-tool event (the host marker the seed asked for).
_NO_POST_EVENT: Final = frozenset(
    {"UNKNOWN_TOOL", "INVALID_ARGS", "DENIED", "ABORTED_BEFORE_DISPATCH", "ABORTED"}
)

# PreToolUse's precedence: any denial wins, then any deferral, then any ask; else the call
# is allowed (2.1.332: deny > defer > ask > allow).
_PRE_TOOL_PRECEDENCE: Final[tuple[Literal["deny", "defer", "ask"], ...]] = ("deny", "defer", "ask")


def _pre_tool_kind(answer: HookAnswer) -> Literal["deny", "defer", "ask"] | None:
    if answer.blocking_error is not None:
        return "deny"
    if answer.permission_decision == "deny" or answer.decision == "block":
        return "deny"
    if answer.permission_decision == "defer":
        return "defer"
    if answer.permission_decision == "ask":
        return "ask"
    return None


def _pre_tool_outcome(name: str, merged: Merged) -> PreToolOutcome:
    text = event_context("PreToolUse", merged, plain_as=None, name=name)
    contexts = (text,) if text else ()
    strongest = merged.strongest(_pre_tool_kind, _PRE_TOOL_PRECEDENCE)
    if strongest is None:
        allowed = any(
            a.permission_decision == "allow" or a.decision == "approve" for _, a in merged.answers
        )
        return PreToolOutcome((), (), contexts, allowed)
    if strongest.kind == "defer":
        # Its reason and every context are ignored, as 2.1.332 ignores them for defer.
        commands = ", ".join(d.declared_command for d, _ in strongest.answers)
        return PreToolOutcome((), (), (), deferred_by=commands)
    if strongest.kind == "ask":
        asks = tuple(
            a.permission_reason or f"Hook PreToolUse:{name} asks for approval"
            for _, a in strongest.answers
        )
        return PreToolOutcome((), asks, contexts)
    return PreToolOutcome(tuple(_denial(name, d, a) for d, a in strongest.answers), (), contexts)


def _denial(name: str, decl: HookDeclaration, answer: HookAnswer) -> str:
    if answer.blocking_error is not None:
        return f"PreToolUse:{name} hook error: {shown_reason(decl, answer)}"
    # 2.1.332's wording (2.1.197: the bare reason, or `Hook PreToolUse:<Tool> denied this tool`).
    reason = answer.permission_reason or answer.reason or "Blocked by hook"
    return f"PreToolUse:{name} hook error: {reason}"


_SNAPSHOT: Final[CallStateKey[Snapshot]] = CallStateKey("claude-hooks.bash-snapshot")


class ToolEvents(Handlers):
    """The listeners of the tool events (``ClaudeHooksPlugin.apply`` mounts them)."""

    def __init__(self, runtime: Runtime) -> None:
        super().__init__(runtime)
        self._snapshots = TreeSnapshots()

    # -- PreToolUse -------------------------------------------------------------------

    # PreToolUse hooks run once per call, on tools/rewrite-input (before the call's
    # identity, so `updatedInput` can change what runs); the merged outcome is kept
    # in the call's slot and applied when the call reaches tools/pre-execute.

    async def _pre_tool_rewrite(self, proposed: ProposedCall) -> InputRewrite | None:
        agent = calling_agent(proposed.agent)
        if agent is None:
            return None
        hooks = self._tool_hooks("PreToolUse", proposed.name, proposed.arguments, agent)
        if not hooks:
            return None
        merged = await self._fire_pre_tool(
            agent, proposed.name, proposed.arguments, proposed.tool_use_id, hooks
        )
        outcome = _pre_tool_outcome(proposed.name, merged)
        proposed.state[self._pre_tool_outcome] = outcome
        return self._updated_input(agent, proposed, merged, outcome)

    async def _fire_pre_tool(
        self,
        agent: Agent,
        name: str,
        arguments: Mapping[str, Any],
        tool_use_id: str | None,
        hooks: Sequence[HookDeclaration],
    ) -> Merged:
        payload: PreToolUseHookInput = self._base(agent, "PreToolUse")
        payload["tool_name"] = name
        payload["tool_input"] = pre_tool_input(name, arguments, agent.workspace.cwd)
        payload["tool_use_id"] = tool_use_id
        server = mcp_server_of(agent.registry.get(name))
        if server is not None:
            payload["mcp_server"] = server
        merged = await self._fire(agent, "PreToolUse", hooks, payload)
        # Shown and honoured now, even if a later rewriter refuses the call.
        self._common_effects(agent, "PreToolUse", merged)
        return merged

    def _updated_input(
        self, agent: Agent, proposed: ProposedCall, merged: Merged, outcome: PreToolOutcome
    ) -> InputRewrite | None:
        """The last valid ``updatedInput`` in declaration order, unless the call is denied."""
        if outcome.denials:
            return None  # ignored with deny: the call does not run
        chosen: tuple[HookDeclaration, dict[str, Any]] | None = None
        for decl, answer in merged.answers:
            if answer.updated_input is None or answer.permission_decision == "defer":
                continue
            updated = answer.updated_input
            if proposed.name == "SendMessage":  # the keys PreToolUse showed, dropped as 2.1.332's
                updated = {k: v for k, v in updated.items() if k not in SEND_MESSAGE_ADDED}
            errors = validate_arguments(proposed.tool, updated)
            if errors is not None:
                detail = "; ".join(f"{e['path']}: {e['message']}" for e in errors)
                agent.notice(
                    f"PreToolUse hook error ({decl.declared_command}): updatedInput for"
                    f" {proposed.name} does not match the tool's input schema and was not"
                    f" applied: {detail}",
                    source=f"{SOURCE}:PreToolUse",
                    level="warning",
                )
                continue
            chosen = (decl, updated)
        if chosen is None:
            return None
        decl, arguments = chosen
        return InputRewrite.replace(
            arguments, reason=f"PreToolUse updatedInput from {decl.declared_command}"
        )

    async def _pre_tool(self, call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        decision = await self._pre_tool_decision(call, nxt)
        agent = calling_agent(call.agent)
        if isinstance(decision, PreToolAllow) and agent is not None and self._diffs(call, agent):
            # Taken last before the command runs: its `bashEditDiff` (`_bash_diff`).
            snapshot = await self._snapshots.take(agent.workspace.cwd)
            if snapshot is not None:
                call.state[_SNAPSHOT] = snapshot
        return decision

    def _diffs(self, call: ToolCall, agent: Agent) -> bool:
        """Whether this call's PostToolUse gets ``bashEditDiff``: a Bash call, with
        PostToolUse hooks declared (what needs it, as 2.1.332 decides), in a mode that has it."""
        if call.name != "Bash" or not self.declared("PostToolUse"):
            return False
        mode = self.permissions.mode_for(agent) if self.permissions else self.permission_mode
        return bash_diff_on(mode, os.environ, self.catalog.bash_edit_diff)

    async def _pre_tool_decision(
        self, call: ToolCall, nxt: Next[PreToolDecision]
    ) -> PreToolDecision:
        agent = calling_agent(call.agent)
        if agent is None or call.tool is None:
            # An unknown tool fires no PreToolUse: it never had a definition to run.
            return await nxt()
        call.state[self._started] = time.monotonic()
        outcome = call.state.get(self._pre_tool_outcome)
        if outcome is None:
            # The call skipped tools/rewrite-input (or the bridge's listener there).
            hooks = self._tool_hooks("PreToolUse", call.name, call.arguments, agent)
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
        if outcome.deferred_by is not None:
            if agent.parent is None:
                by = f"{SOURCE}:PreToolUse"
                return PreToolDecision.defer(f"deferred by {outcome.deferred_by}", by=by)
            # A subagent's call cannot wait past its parent's: no decision, said once.
            agent.notice(
                f"PreToolUse hook deferred {call.name} in a subagent; deferral applies to the"
                " session's own calls only, so the call goes on",
                source=f"{SOURCE}:PreToolUse",
                level="warning",
            )
        if outcome.denials:
            reason = "\n".join(outcome.denials)
            info = {"hook_event": "PreToolUse"}
            return PreToolDecision.deny(reason, info, additional_context=contexts)
        if outcome.allowed and self.permissions is not None:
            self.permissions.hook_allowed(call)  # skips the mode's ask; rules still apply
        decision = await nxt()
        if not isinstance(decision, (PreToolAllow, PreToolDeny, PreToolAsk)):
            return decision
        merged_contexts = (*contexts, *decision.additional_context)
        if isinstance(decision, PreToolDeny):
            return PreToolDecision.deny(
                decision.reason, decision.info, additional_context=merged_contexts
            )
        if outcome.asks:
            reason = "\n".join(outcome.asks)
            if not self.attended:
                # Headless, 2.1.332 refuses a hook's ask with its reason and fires no
                # PermissionRequest, in every mode (`pretool-ask-json`, `perm-ask-default`).
                info = {"hook_event": "PreToolUse", "ask": "no one to ask in this run"}
                return PreToolDecision.deny(reason, info, additional_context=merged_contexts)
            return PreToolDecision.ask(reason, additional_context=merged_contexts)
        if isinstance(decision, PreToolAsk):
            return PreToolDecision.ask(decision.reason, additional_context=merged_contexts)
        if contexts:
            return PreToolDecision.allow(additional_context=merged_contexts)
        return decision

    # -- PostToolUse / PostToolUseFailure -------------------------------------------------

    def _suite(self, decl: HookDeclaration) -> Hashable:
        return ("plugin", decl.plugin) if decl.plugin is not None else ("file", decl.source.label)

    def _post_hooks(
        self, call: ToolCall, agent: Agent, failed: bool
    ) -> list[tuple[str, HookDeclaration]]:
        """The hooks a call's outcome runs, each with the event it runs as."""
        name, args = call.name, call.arguments
        if not failed:
            return [("PostToolUse", h) for h in self._tool_hooks("PostToolUse", name, args, agent)]
        failure = self._tool_hooks("PostToolUseFailure", name, args, agent)
        declaring = {self._suite(h) for h in failure}
        chosen: list[tuple[str, HookDeclaration]] = [("PostToolUseFailure", h) for h in failure]
        for h in self._tool_hooks("PostToolUse", name, args, agent):
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
        agent = calling_agent(call.agent)
        if agent is None or result.code in _NO_POST_EVENT:
            return await nxt()
        started = call.state.get(self._started)
        duration_ms = int((time.monotonic() - started) * 1000) if started is not None else 0
        chosen = self._post_hooks(call, agent, result.is_error)
        contexts: list[str] = []
        replacement: Any = None
        for event in ("PostToolUseFailure", "PostToolUse"):
            hooks = [h for e, h in chosen if e == event]
            if not hooks:
                continue
            payload = self._post_payload(agent, event, call, result, duration_ms)
            snapshot = call.state.get(_SNAPSHOT)
            response = payload.get("tool_response")
            if snapshot is not None and isinstance(response, dict):
                edit = await self._snapshots.diff(snapshot)
                if edit is not None:
                    response["bashEditDiff"] = edit
            merged = await self._fire(agent, event, hooks, payload)
            self._common_effects(agent, event, merged)
            for decl, answer in merged.answers:
                if answer.blocks:
                    contexts.append(
                        f"{event}:{call.name} hook blocking error from command: "
                        f'"{decl.declared_command}": {shown_reason(decl, answer)}'
                    )
            contexts.extend(
                f"{event}:{call.name} hook additional context: {c}"
                for c in additional_contexts(merged)
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
                            source=f"{SOURCE}:PostToolUse",
                            level="warning",
                        )
        decision = await nxt()
        if not contexts and replacement is None:
            return decision
        if not isinstance(decision, (PostToolAccept, PostToolBlock)):
            return decision
        joined = (BETWEEN.join(contexts),) if contexts else ()  # one message, as 2.1.332's
        return dataclasses.replace(
            decision,
            additional_context=(*joined, *decision.additional_context),
            output=replacement if replacement is not None else decision.output,
        )

    def _post_payload(
        self, agent: Agent, event: str, call: ToolCall, result: ToolResult, duration_ms: int
    ) -> PostToolUseHookInput | PostToolUseFailureHookInput:
        tool_input = observable_input(call.name, call.arguments, agent.workspace.cwd)
        if event == "PostToolUse":
            done: PostToolUseHookInput = self._base(agent, event)
            done["tool_name"] = call.name
            done["tool_input"] = tool_input
            done["tool_response"] = _tool_response(result)
            done["tool_use_id"] = call.tool_use_id
            done["duration_ms"] = duration_ms
            server = mcp_server_of(call.tool)
            if server is not None:
                done["mcp_server"] = server
            return done
        failed: PostToolUseFailureHookInput = self._base(agent, event)
        failed["tool_name"] = call.name
        failed["tool_input"] = tool_input
        failed["tool_use_id"] = call.tool_use_id
        # An MCP tool's failure: the server's text, without what dsh told the model besides.
        info = result.info
        server_error = info.get("server_error") if isinstance(info, Mapping) else None
        failed["error"] = server_error if isinstance(server_error, str) else result.text
        failed["is_interrupt"] = False
        failed["duration_ms"] = duration_ms
        server = mcp_server_of(call.tool)
        if server is not None:
            failed["mcp_server"] = server
        return failed

    def _updated_output(self, agent: Agent, call: ToolCall, merged: Merged) -> Any:
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
                    source=f"{SOURCE}:PostToolUse",
                    level="warning",
                )
                continue
            chosen = answer.updated_tool_output
        return chosen

    # -- TaskCreated / TaskCompleted -----------------------------------------------------

    async def _task_created(
        self, caller: ToolCaller | None, task: Task, nxt: Next[TaskDecision]
    ) -> TaskDecision:
        return await self._task_event("TaskCreated", caller, task, nxt)

    async def _task_completed(
        self, caller: ToolCaller | None, task: Task, nxt: Next[TaskDecision]
    ) -> TaskDecision:
        return await self._task_event("TaskCompleted", caller, task, nxt)

    async def _task_event(
        self, event: str, caller: ToolCaller | None, task: Task, nxt: Next[TaskDecision]
    ) -> TaskDecision:
        """Exit 2 or ``decision: "block"`` refuses the change; the model reads the reasons."""
        hooks = self.catalog.matching(event, None)
        agent = calling_agent(caller)
        if agent is None or not hooks:
            return await nxt()
        payload: TaskCreatedHookInput | TaskCompletedHookInput = self._base(
            agent, event, permission=False, effort=False
        )
        payload["task_id"] = task.id
        payload["task_subject"] = task.subject
        payload["task_description"] = task.description
        merged = await self._fire(agent, event, hooks, payload)
        for _, answer in merged.answers:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:{event}")
        # `continue: false` is ignored here, as Claude Code ignores it outside agent teams.
        blocks = blocking(merged)
        if blocks:
            # 2.1.332's wording for both (recorded: `exit2-task-completed`, and `task-tools`
            # in tests/fixtures/claude_strict.json).
            lead = f"{event} hook feedback:\n"
            return TaskDecision.block(
                "\n".join(
                    f"{lead}[{decl.declared_command}]: {answer.block_reason}"
                    for decl, answer in blocks
                )
            )
        return await nxt()


def _tool_response(result: ToolResult) -> Any:
    if result.output is None:
        return result.text
    return thaw_json(result.output)
