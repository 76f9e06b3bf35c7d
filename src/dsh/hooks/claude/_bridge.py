"""The runtime half of the bridge: Claude Code hooks running on dsh's seams.

``claude_hooks_plugin(catalog)`` registers one listener per seam for the
catalog's events (``HOOK_EVENT_HOST_SUPPORT`` names the seam). Each listener
selects the matching declarations, builds the payload Claude Code sends, runs
the hooks with ``dsh.hook_protocol.fire_hooks`` (which logs ``hook/invocation``
and ``hook/result``), decodes each answer and applies the merged result with
the event's rules and Claude Code's model-visible wording. The listeners live
by concern: ``_lifecycle`` (session, prompt, turn end, subagents, compaction,
display, cwd) and ``_tool_events`` (tool calls, permissions, tasks, batches),
over the shared ``_machinery``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dsh.agent import (
    COMPACTION_REPLY,
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
)
from dsh.context import Context
from dsh.hooks.claude._commands import CommandSet
from dsh.hooks.claude._commands_events import CommandEvents
from dsh.hooks.claude._commands_session import SessionCommandEvents
from dsh.hooks.claude._lifecycle import LifecycleEvents
from dsh.hooks.claude._machinery import EFFORT_LEVEL
from dsh.hooks.claude._permissions_modes import PermissionMode
from dsh.hooks.claude._permissions_plugin import PermissionState
from dsh.hooks.claude._support import HOOK_EVENT_HOST_SUPPORT
from dsh.hooks.claude._tool_events import ToolEvents
from dsh.hooks.claude._types import Catalog
from dsh.tools import (
    APPROVAL_REQUEST,
    POST_EXECUTE,
    PRE_EXECUTE,
    REWRITE_INPUT,
    TASK_COMPLETED,
    TASK_CREATED,
    InputRewrite,
    ProposedCall,
)

__all__ = ["ClaudeHooksPlugin", "PermissionMode", "claude_hooks_plugin"]


class ClaudeHooksPlugin(LifecycleEvents, ToolEvents, CommandEvents, SessionCommandEvents):
    """The plugin ``claude_hooks_plugin`` returns: ``ctx.plugin(plugin)`` mounts it."""

    def __init__(
        self, catalog: Catalog, *, commands: CommandSet | None = None, **settings: Any
    ) -> None:
        super().__init__(catalog, **settings)
        self.commands = commands if commands is not None else CommandSet()

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
        if self.commands.commands:  # after UserPromptSubmit: 2.1.332 expands after it fires
            self._mount_commands(ctx)
        self._mount_session_commands(ctx)  # PreModelSwitch, PostModelSwitch, DirectoryAdded
        if d("MessageDisplay"):
            ctx.on(MESSAGE_DISPLAY, self._message_display)
        if d("CwdChanged"):
            ctx.on(CWD_CHANGED, self._cwd_changed)
        if d("PreToolUse"):
            ctx.on(REWRITE_INPUT, self._pre_tool_input)
        if d("PreToolUse") or d("PostToolUse") or d("PostToolUseFailure"):
            ctx.on(PRE_EXECUTE, self._pre_tool)
        if d("PermissionDenied"):
            ctx.on(PRE_EXECUTE, self._permission_denied)  # inner to PreToolUse's
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
        if d("Stop") or d("SubagentStop"):
            ctx.on(TURN_CONTINUATION, self._stop)
        if d("StopFailure") or d("MessageDisplay"):
            ctx.on(TURN_ERROR, self._turn_error)
        if d("SubagentStart"):
            ctx.on(SUBAGENT_START, self._subagent_start)
        if d("SubagentStop"):
            ctx.on(SUBAGENT_END, self._subagent_stop)
            ctx.on(COMPACTION_REPLY, self._compaction_reply)
        if d("PreCompact") or d("PostCompact"):
            ctx.on(PRE_COMPACT, self._pre_compact)
        if d("PostCompact"):
            ctx.on(POST_COMPACT, self._post_compact)
        # Also to cancel (and log as cancelled) the `async: true` hooks still running.
        if d("SessionEnd") or any(h.run_async for hs in self.catalog.hooks.values() for h in hs):
            ctx.on(SESSION_END, self._session_end)

    async def _pre_tool_input(self, proposed: ProposedCall) -> InputRewrite | None:
        # Defined here: a call's `tool/call` event names its rewriters (`rewritten_by`)
        # by this listener's qualified name, ClaudeHooksPlugin's.
        return await self._pre_tool_rewrite(proposed)


def claude_hooks_plugin(
    catalog: Catalog,
    *,
    permission_mode: PermissionMode = "bypassPermissions",
    transcript_dir: Path | None = None,
    effort: str | None = EFFORT_LEVEL,
    attended: bool = False,
    permissions: PermissionState | None = None,
    commands: CommandSet | None = None,
) -> ClaudeHooksPlugin:
    """The plugin that runs ``catalog``'s hooks on dsh's seams: ``ctx.plugin(...)`` it.

    ``permission_mode`` is sent as Claude Code's ``permission_mode``;
    ``transcript_dir`` is where transcripts are written (default: dsh's data dir);
    ``effort`` is the payloads' ``effort.level`` and ``CLAUDE_EFFORT`` (``None``: neither);
    ``attended`` whether a person is at the terminal (``CLAUDE_CODE_SESSION_ATTENDED``);
    ``permissions`` the permission policy's state, shared with ``ClaudePermissionsPlugin``
    (its mode is then what hooks are sent, and PermissionRequest applies to it);
    ``commands`` the custom commands and skills (``load_commands``) prompts may expand.
    """
    return ClaudeHooksPlugin(
        catalog,
        permission_mode=permission_mode,
        transcript_dir=transcript_dir,
        effort=effort,
        attended=attended,
        permissions=permissions,
        commands=commands,
    )
