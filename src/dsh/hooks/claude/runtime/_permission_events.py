"""The bridge's PermissionRequest and PermissionDenied listeners.

PermissionRequest runs on ``approval/request`` when a pre-execute answer is
``ask``: it sends the permission policy's ``permission_suggestions``, turns
the hooks' answers into an ``ApprovalDecision`` (of several denials the first to
finish, as 2.1.332 takes it: ``permission-two-denies`` in
tests/fixtures/claude_fail_wordings.json) and applies an allow's
``updatedPermissions`` to the session's ``PermissionState`` (and to the settings
file an entry's ``destination`` names); a directory it adds joins the session
through ``agent.add_directory`` (DirectoryAdded, ``source: "slash_command"``:
2.1.332's vocabulary has no source for it, and this is the closest, a directory
added mid-session on a person's say). PermissionDenied
runs on ``tools/pre-execute``, between PreToolUse and the permission policy,
after the auto-mode classifier refused a call; ``retry: true`` tells the model
it may try once more.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dsh.agent import Agent, calling_agent
from dsh.approval import ApprovalAllow, ApprovalDecision, ApprovalDeny, ApprovalRequest
from dsh.base import thaw_json
from dsh.context import Next
from dsh.hooks.claude.runtime._answers import shown_reason
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE
from dsh.hooks.claude.runtime._tool_input import mcp_server_of, observable_input
from dsh.hooks.claude.settings._types import HookDeclaration
from dsh.tools import PreToolDecision, PreToolDeny, ToolCall
from dsh.tools._sandbox import NETWORK_ACCESS

if TYPE_CHECKING:  # annotations only: a payload is built as a dict
    from dsh.hooks.claude.payloads import (
        PermissionDeniedHookInput,
        PermissionRequestHookInput,
    )


__all__ = ["PermissionEvents"]

# Why PermissionRequest's rewrites are not applied (the coverage table's limits).
_SEALED_INPUT: Final = (
    "the call's input is sealed before approval; rewrite it in PreToolUse."
    " An allow for a different input counts as no decision"
)
_NO_RULES: Final = "no permission policy is mounted for this session"

RETRY_REMINDER: Final = (
    "<system-reminder>\nThe refusal above is not final for this call: the PermissionDenied"
    " hook set up for this session allows one more try, so you may retry the call once if it"
    " is still needed.\n</system-reminder>"
)
"""The user text a PermissionDenied ``retry: true`` adds (``perm-denied-retry``)."""


_DENIED_BY_HOOK: Final = "Permission denied by hook"
"""2.1.332's message for a PermissionRequest deny that gives none."""


class PermissionEvents(Handlers):
    """The PermissionRequest and PermissionDenied listeners."""

    # -- PermissionRequest ----------------------------------------------------------------

    async def _permission_request(
        self, call: ToolCall, req: ApprovalRequest, nxt: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        agent = calling_agent(call.agent)
        # Bypass mode shows no permission prompt, so Claude Code fires no PermissionRequest
        # there (the recorded `pretool-ask-json` case: an `ask` is denied without one).
        if agent is None or self.permission_mode == "bypassPermissions":
            return await nxt()
        if call.name == NETWORK_ACCESS:
            return await nxt()  # 2.1.332 asks about a sandbox's host with no hook
        hooks = self._tool_hooks("PermissionRequest", call.name, call.arguments, agent)
        if not hooks:
            return await nxt()
        payload: PermissionRequestHookInput = self._base(agent, "PermissionRequest")
        payload["tool_name"] = call.name
        payload["tool_input"] = thaw_json(call.arguments)
        asked = self.permissions.asked(call) if self.permissions is not None else None
        if asked is not None and asked.suggestions:
            payload["permission_suggestions"] = [dict(s) for s in asked.suggestions]
        server = mcp_server_of(call.tool)
        if server is not None:
            payload["mcp_server"] = server
        merged = await self._fire(agent, "PermissionRequest", hooks, payload)
        self._common_effects(agent, "PermissionRequest", merged)
        denial: tuple[str, bool] | None = None  # the first deny to finish, as 2.1.332 takes it
        allowed = False
        updates: list[tuple[HookDeclaration, Any]] = []
        for decl, answer in merged.in_finishing_order():
            if answer.blocking_error is not None:
                if answer.exit_code == 2:
                    continue  # exit 2 is not honoured here: the flow is unchanged
                # A failure of an `onFailure: "block"` hook denies the permission request with
                # the bare reason (2.1.332 gives it as the denial's message, no event prefix).
                denial = denial or (shown_reason(decl, answer), False)
                continue
            request = answer.permission_request
            if request is None:
                continue
            if request.behavior == "deny":
                denial = denial or (request.message or _DENIED_BY_HOOK, request.interrupt)
                continue
            if request.updated_input is not None and request.updated_input != payload["tool_input"]:
                # The hook approved a different call than the one that would run.
                self._not_applied(agent, call, decl, "updatedInput", _SEALED_INPUT)
                continue
            allowed = True
            if request.updated_permissions is not None:
                updates.append((decl, request.updated_permissions))
        if denial is not None:  # a denied call changes no permission (and no settings file)
            return ApprovalDecision.deny(denial[0], interrupt=denial[1])
        for decl, update in updates:
            await self._update_permissions(agent, call, decl, update)
        decision = await nxt()
        if not allowed or isinstance(decision, ApprovalDeny):
            return decision
        always = isinstance(decision, ApprovalAllow) and decision.always
        reason = decision.reason if isinstance(decision, ApprovalAllow) else None
        return ApprovalDecision.allow(
            always=always, reason=reason or "allowed by a PermissionRequest hook"
        )

    async def _permission_denied(
        self, call: ToolCall, nxt: Next[PreToolDecision]
    ) -> PreToolDecision:
        decision = await nxt()
        agent = calling_agent(call.agent)
        info = decision.info if isinstance(decision, PreToolDeny) else None
        permission = info.get("permission") if isinstance(info, Mapping) else None
        reason = permission.get("auto_denied") if isinstance(permission, Mapping) else None
        if agent is None or not isinstance(reason, str):
            return decision  # only an auto-mode classifier's refusal fires it, as in Claude Code
        hooks = self._tool_hooks("PermissionDenied", call.name, call.arguments, agent)
        if not hooks:
            return decision
        payload: PermissionDeniedHookInput = self._base(agent, "PermissionDenied")
        payload["tool_name"] = call.name
        payload["tool_input"] = observable_input(call.name, call.arguments, agent.workspace.cwd)
        payload["tool_use_id"] = call.tool_use_id
        payload["reason"] = reason
        merged = await self._fire(agent, "PermissionDenied", hooks, payload)
        # Exit codes and stderr are ignored here; only `retry` is read.
        if any(_retry(answer.json) for _, answer in merged.answers):
            agent.steer(RETRY_REMINDER)
        return decision

    async def _update_permissions(
        self, agent: Agent, call: ToolCall, decl: HookDeclaration, updates: Any
    ) -> None:
        """Apply an allow's ``updatedPermissions`` to the session, write each entry with a
        settings ``destination`` to that file, and fire DirectoryAdded for new directories."""
        state = self.permissions
        if state is None:
            self._not_applied(agent, call, decl, "updatedPermissions", _NO_RULES)
            return
        for entry in updates if isinstance(updates, list) else [updates]:
            try:
                if not isinstance(entry, dict):
                    raise ValueError("an entry is an object with a `type`")
                added = state.apply_update(entry)
            except ValueError as exc:
                self._not_applied(agent, call, decl, "updatedPermissions", str(exc))
                continue
            problem = state.persist(entry)
            if problem is not None:
                agent.notice(
                    f"PermissionRequest:{call.name} hook ({decl.declared_command}):"
                    f" `updatedPermissions` not saved to {entry.get('destination')} ({problem});"
                    " it applies for this session only",
                    source=f"{SOURCE}:PermissionRequest",
                    level="warning",
                )
            for directory in added:
                await agent.add_directory(Path(directory), source="slash_command")

    def _not_applied(
        self, agent: Agent, call: ToolCall, decl: HookDeclaration, field: str, why: str
    ) -> None:
        agent.notice(
            f"PermissionRequest:{call.name} hook ({decl.declared_command}): `{field}` is not"
            f" applied ({why})",
            source=f"{SOURCE}:PermissionRequest",
            level="warning",
        )


def _retry(output: Mapping[str, Any] | None) -> bool:
    specific = output.get("hookSpecificOutput") if output is not None else None
    return isinstance(specific, Mapping) and specific.get("retry") is True
