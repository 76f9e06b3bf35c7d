"""The Codex bridge's tool events: PreToolUse, PermissionRequest, PostToolUse.

PreToolUse runs once per call on ``tools/rewrite-input`` (so an ``allow`` with
``updatedInput`` rewrites what runs) and its outcome is applied when the call
reaches ``tools/pre-execute``: a denial becomes the tool output Codex gives
the model, ``Command blocked by PreToolUse hook: R. Command: <cmd>`` for a
shell call (``Tool call blocked by PreToolUse hook: R. Tool: <name>`` for
others). PermissionRequest answers ``approval/request`` with
``decision.behavior``. PostToolUse fires after every call that ran, failed
ones too (Codex has no failure event); a block replaces the output with the
reason. A shell call, dsh's ``Bash`` or Codex's ``exec_command``, is
``tool_name: "Bash"`` with ``{command}`` (PermissionRequest adds
exec_command's ``justification`` as ``description``) and a
plain-string ``tool_response``. An MCP tool is ``mcp__<server>__<tool>`` (dsh's own name
for it) and its ``tool_response`` the ``CallToolResult`` as JSON.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from dsh.agent import Agent, calling_agent
from dsh.approval import ApprovalDecision, ApprovalRequest
from dsh.base import thaw_json
from dsh.context import Next
from dsh.hooks.codex.runtime._handlers import Handlers
from dsh.hooks.codex.runtime._machinery import SOURCE, CodexMerged, PreToolOutcome
from dsh.tools import (
    InputRewrite,
    PostToolAccept,
    PostToolBlock,
    PostToolDecision,
    PreToolAllow,
    PreToolAsk,
    PreToolDecision,
    PreToolDeny,
    ProposedCall,
    ToolCall,
    ToolResult,
    validate_arguments,
)

if TYPE_CHECKING:  # annotations only: a payload is built as a dict
    from dsh.hooks.codex.payloads import (
        PermissionRequestHookInput,
        PostToolUseHookInput,
        PreToolUseHookInput,
    )


__all__ = ["ToolEvents", "codex_tool_input", "hook_tool_name"]

SHELL_TOOL: Final = "Bash"
# dsh's tool name -> the field holding the command line: both are Codex's `Bash` to a hook.
_SHELL_COMMAND: Final = {SHELL_TOOL: "command", "exec_command": "cmd"}

# Calls that never ran fire no PostToolUse (blocked, refused, malformed, never dispatched).
_NO_POST_EVENT: Final = frozenset(
    {"UNKNOWN_TOOL", "INVALID_ARGS", "DENIED", "ABORTED_BEFORE_DISPATCH"}
)


def hook_tool_name(name: str) -> str:
    """The name a hook sees and a matcher selects: ``Bash`` for either shell tool."""
    return SHELL_TOOL if name in _SHELL_COMMAND else name


def _command(name: str, arguments: Mapping[str, Any]) -> str:
    value = arguments.get(_SHELL_COMMAND.get(name, "command"), "")
    return value if isinstance(value, str) else ""


def codex_tool_input(name: str, arguments: Mapping[str, Any], *, description: bool = False) -> Any:
    """``tool_input`` as Codex sends it: a shell call's ``{command}`` only (``description``:
    with exec_command's justification, as PermissionRequest has it), else the arguments."""
    args = thaw_json(arguments)
    if name not in _SHELL_COMMAND or not isinstance(args, dict):
        return args
    shown: dict[str, Any] = {"command": _command(name, args)}
    why = args.get("justification")
    if description and isinstance(why, str) and why:
        shown["description"] = why
    return shown


def _blocked_text(name: str, arguments: Mapping[str, Any], reason: str) -> str:
    if name in _SHELL_COMMAND:
        return f"Command blocked by PreToolUse hook: {reason}. Command: {_command(name, arguments)}"
    return f"Tool call blocked by PreToolUse hook: {reason}. Tool: {name}"


def _tool_response(result: ToolResult, mcp: bool = False) -> Any:
    """What Codex sends as ``tool_response``: a shell call's output as a plain string; an MCP
    tool's the ``CallToolResult`` as JSON (``content``, ``isError``)."""
    output = thaw_json(result.output) if result.output is not None else None
    if mcp and isinstance(output, list):
        return {"content": output, "isError": result.is_error}
    for key in ("stdout", "output"):  # Bash's, exec_command's
        if isinstance(output, dict) and isinstance(output.get(key), str):
            return output[key]
    return output if output is not None else result.text


class ToolEvents(Handlers):
    """The tool listeners (``CodexHooksPlugin.apply`` mounts them)."""

    # -- PreToolUse -------------------------------------------------------------------

    async def _fire_pre_tool(
        self, agent: Agent, name: str, arguments: Mapping[str, Any], use_id: str | None
    ) -> tuple[CodexMerged, PreToolOutcome] | None:
        hooks = self._matching(agent, "PreToolUse", hook_tool_name(name))
        if not hooks:
            return None
        payload: PreToolUseHookInput = self._base(agent, "PreToolUse")
        payload["tool_name"] = hook_tool_name(name)
        payload["tool_input"] = codex_tool_input(name, arguments)
        payload["tool_use_id"] = use_id
        merged = await self._fire(agent, "PreToolUse", hooks, payload)
        # Any block wins; the reason is the first in configured order.
        denial = next(((h, a) for h, a in merged if a.block or a.permission == "deny"), None)
        text = None
        if denial is not None and denial[1].reason:
            reason = self._bounded(agent, denial[0], denial[1].reason)
            text = _blocked_text(name, arguments, reason)
        return merged, PreToolOutcome(text, self._contexts(agent, "PreToolUse", merged))

    async def _pre_tool_rewrite(self, proposed: ProposedCall) -> InputRewrite | None:
        agent = calling_agent(proposed.agent)
        if agent is None:
            return None
        fired = await self._fire_pre_tool(
            agent, proposed.name, proposed.arguments, proposed.tool_use_id
        )
        if fired is None:
            # Fired once: pre-execute does not fire it again (nor log its `hook/skipped`).
            proposed.state[self._pre_tool_outcome] = PreToolOutcome(None, ())
            return None
        merged, outcome = fired
        proposed.state[self._pre_tool_outcome] = outcome
        if outcome.denial is not None:
            return None  # a block discards any rewrite
        return self._updated_input(agent, proposed, merged)

    def _updated_input(
        self, agent: Agent, proposed: ProposedCall, merged: CodexMerged
    ) -> InputRewrite | None:
        """The last ``updatedInput`` in configured order (Codex: the last to finish)."""
        chosen: dict[str, Any] | None = None
        for hook, answer in merged:
            update = answer.updated_input
            if answer.permission != "allow" or not isinstance(update, dict):
                continue
            field = _SHELL_COMMAND.get(proposed.name)
            if field is not None:
                if set(update) != {"command"} or not isinstance(update["command"], str):
                    self._not_applied(agent, hook.command, 'for Bash it must be {"command": "…"}')
                    continue
                candidate = {**thaw_json(proposed.arguments), field: update["command"]}
            else:
                candidate = update
            errors = validate_arguments(proposed.tool, candidate)
            if errors is not None:
                detail = "; ".join(f"{e['path']}: {e['message']}" for e in errors)
                self._not_applied(agent, hook.command, f"it does not fit the tool: {detail}")
                continue
            chosen = candidate
        if chosen is None:
            return None
        return InputRewrite.replace(chosen, reason="PreToolUse updatedInput (Codex hook)")

    def _not_applied(self, agent: Agent, command: str, why: str) -> None:
        agent.notice(
            f"PreToolUse hook ({command}): updatedInput not applied: {why}",
            source=f"{SOURCE}:PreToolUse",
            level="warning",
        )

    async def _pre_tool(self, call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        agent = calling_agent(call.agent)
        if agent is None or call.tool is None:
            return await nxt()
        outcome = call.state.get(self._pre_tool_outcome)
        if outcome is None:
            fired = await self._fire_pre_tool(agent, call.name, call.arguments, call.tool_use_id)
            if fired is None:
                return await nxt()
            outcome = fired[1]
        if outcome.denial is not None:
            info = {"hook_event": "PreToolUse", "bridge": "codex"}
            return PreToolDecision.deny(outcome.denial, info, additional_context=outcome.contexts)
        decision = await nxt()
        if not outcome.contexts or not isinstance(
            decision, (PreToolAllow, PreToolDeny, PreToolAsk)
        ):
            return decision
        merged = (*outcome.contexts, *decision.additional_context)
        return dataclasses.replace(decision, additional_context=merged)

    # -- PermissionRequest ----------------------------------------------------------------

    async def _permission_request(
        self, call: ToolCall, req: ApprovalRequest, nxt: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        agent = calling_agent(call.agent)
        name = hook_tool_name(call.name)
        hooks = self._matching(agent, "PermissionRequest", name) if agent else []
        if agent is None or not hooks:
            return await nxt()
        payload: PermissionRequestHookInput = self._base(agent, "PermissionRequest")
        payload["tool_name"] = name
        payload["tool_input"] = codex_tool_input(call.name, call.arguments, description=True)
        merged = await self._fire(agent, "PermissionRequest", hooks, payload)
        # Any deny wins (exit 2's stderr is a deny); else allow if any hook allowed.
        deny = merged.first(lambda a: a.behavior == "deny" or a.exit2)
        if deny is not None:
            message = deny.reason if deny.exit2 else deny.message
            return ApprovalDecision.deny(message or "PermissionRequest hook denied approval")
        if merged.first(lambda a: a.behavior == "allow") is not None:
            return ApprovalDecision.allow(reason="allowed by a PermissionRequest hook (Codex)")
        return await nxt()

    # -- PostToolUse ---------------------------------------------------------------------

    async def _post_tool(
        self, call: ToolCall, result: ToolResult, nxt: Next[PostToolDecision]
    ) -> PostToolDecision:
        agent = calling_agent(call.agent)
        if agent is None or result.code in _NO_POST_EVENT:
            return await nxt()
        hooks = self._matching(agent, "PostToolUse", hook_tool_name(call.name))
        if not hooks:
            return await nxt()
        payload: PostToolUseHookInput = self._base(agent, "PostToolUse")
        payload["tool_name"] = hook_tool_name(call.name)
        payload["tool_input"] = codex_tool_input(call.name, call.arguments)
        tool = call.tool
        payload["tool_response"] = _tool_response(
            result, tool is not None and bool(tool.mcp_server)
        )
        payload["tool_use_id"] = call.tool_use_id
        merged = await self._fire(agent, "PostToolUse", hooks, payload)
        replacement = None
        block = next(((h, a) for h, a in merged if a.block), None)
        halt = next(((h, a) for h, a in merged if a.halt), None)
        if block is not None:
            replacement = self._bounded(agent, block[0], block[1].reason or "")
        elif halt is not None:
            # Codex replaces the output and lets the turn go on.
            text = halt[1].stop_reason or "PostToolUse hook stopped execution"
            replacement = self._bounded(agent, halt[0], text)
        contexts = self._contexts(agent, "PostToolUse", merged)
        decision = await nxt()
        if replacement is None and not contexts:
            return decision
        if not isinstance(decision, (PostToolAccept, PostToolBlock)):
            return decision
        return dataclasses.replace(
            decision,
            additional_context=(*contexts, *decision.additional_context),
            content=replacement if replacement is not None else decision.content,
        )
