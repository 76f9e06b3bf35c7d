"""The runtime half of the bridge: Claude Code hooks running on dsh's seams.

``claude_hooks_plugin(catalog)`` registers one listener per seam for the
catalog's events (``HOOK_EVENT_HOST_SUPPORT`` names the seam). Each listener
selects the matching declarations, builds the payload Claude Code sends, runs
the hooks with ``dsh.hook_protocol.fire_hooks`` (which logs ``hook/invocation``
and ``hook/result``), decodes each answer and applies the merged result with
the event's rules and Claude Code's model-visible wording. The plugin is
composed, not inherited: one ``Runtime`` (``_machinery``: the catalog, the
settings, the per-session state and the firing) and one object per handler group,
each taking the runtime (``_handlers.Handlers``): ``_lifecycle`` (session, prompt,
compaction, cwd), ``_turn_end`` (Stop, StopFailure, display), ``_subagents`` (SubagentStop),
``_tool_events`` (tool calls, tasks), ``_batch_events`` (PostToolBatch), ``_permission_events``
(PermissionRequest, PermissionDenied), ``_command_events`` (custom commands and
skills) and ``_session_commands`` (model switch, directories). ``apply`` registers
their listeners.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    Agent,
    SessionStartSource,
)
from dsh.context import Context
from dsh.hook_protocol import HookSelection
from dsh.hooks.claude.events._specs import EFFORT_LEVEL
from dsh.hooks.claude.events._support import HOOK_EVENT_HOST_SUPPORT
from dsh.hooks.claude.permissions._plugin import PermissionState
from dsh.hooks.claude.rules._modes import PermissionMode
from dsh.hooks.claude.runtime._agents import AgentListing
from dsh.hooks.claude.runtime._batch_events import BatchEvents
from dsh.hooks.claude.runtime._command_events import CommandEvents
from dsh.hooks.claude.runtime._extensions import PRUNING_EVENTS, extensions_on
from dsh.hooks.claude.runtime._lifecycle import LifecycleEvents
from dsh.hooks.claude.runtime._machinery import Runtime
from dsh.hooks.claude.runtime._mcp_events import McpEvents
from dsh.hooks.claude.runtime._notifications import NotificationEvents
from dsh.hooks.claude.runtime._permission_events import PermissionEvents
from dsh.hooks.claude.runtime._session_commands import SessionCommandEvents
from dsh.hooks.claude.runtime._subagents import SubagentEvents
from dsh.hooks.claude.runtime._tool_events import ToolEvents
from dsh.hooks.claude.runtime._turn_end import TurnEndEvents
from dsh.hooks.claude.runtime._watch import Watches
from dsh.hooks.claude.settings._agents import AgentSet
from dsh.hooks.claude.settings._commands import CommandSet
from dsh.hooks.claude.settings._types import Catalog
from dsh.mcp import ELICITATION
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


class ClaudeHooksPlugin:
    """The plugin ``claude_hooks_plugin`` returns: ``ctx.plugin(plugin)`` mounts it."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        commands: CommandSet | None = None,
        agents: AgentSet | None = None,
        **settings: Any,
    ) -> None:
        self.runtime = Runtime(catalog, commands=commands, agents=agents, **settings)
        self.agent_listing = AgentListing(self.runtime)
        self.watches = Watches(self.runtime)
        self.notifications = NotificationEvents(self.runtime)
        self.subagents = SubagentEvents(self.runtime)
        self.lifecycle = LifecycleEvents(self.runtime, self.subagents)
        self.turn_end = TurnEndEvents(self.runtime, self.subagents)
        self.tools = ToolEvents(self.runtime)
        self.batch = BatchEvents(self.runtime)
        self.permission_events = PermissionEvents(self.runtime)
        self.mcp_events = McpEvents(self.runtime)
        self.command_events = CommandEvents(self.runtime)
        self.session_commands = SessionCommandEvents(self.runtime)

    @property
    def catalog(self) -> Catalog:
        return self.runtime.catalog

    @property
    def commands(self) -> CommandSet:
        return self.runtime.commands

    @property
    def permissions(self) -> PermissionState | None:
        return self.runtime.permissions

    @property
    def permission_mode(self) -> PermissionMode:
        """The mode hooks are sent: the permission policy's current one, when it is mounted."""
        return self.runtime.permission_mode

    def declared(self, event: str) -> bool:
        return self.runtime.declared(event)

    def transcript_path(self, agent: Agent) -> Path:
        """Where ``agent``'s (root session's) transcript is written."""
        return self.runtime.transcript_path(agent)

    def seams(self) -> dict[str, str]:
        """Event → seam of every event this plugin registers a listener for."""
        return {
            event: HOOK_EVENT_HOST_SUPPORT[event].seam
            for event in self.catalog.hooks
            if self.declared(event) and HOOK_EVENT_HOST_SUPPORT[event].status != "not-supported"
        }

    def apply(self, ctx: Context) -> None:
        # First: outermost on tools/post-execute and agent/prompt-submit, so a changed file's
        # event fires before PostToolUse and UserPromptSubmit.
        self.watches._mount_watches(ctx)
        d = self.declared
        life, subagents, tools = self.lifecycle, self.subagents, self.tools
        turn_end = self.turn_end
        perms = self.permission_events
        if d("Setup"):
            ctx.on(SETUP, life._setup)
        if d("SessionStart"):
            ctx.on(SESSION_START, life._session_start)
        if any(e != "*" and not d(e) for e in self.runtime.left_out):
            ctx.on(SESSION_START, self._never_fire)
        if d("InstructionsLoaded"):
            ctx.on(INSTRUCTIONS_LOADED, life._instructions_loaded)
        # Always: it mints the `prompt_id` every later event of the turn carries.
        ctx.on(PROMPT_SUBMIT, life._prompt_submit)
        if self.commands.commands:  # after UserPromptSubmit: 2.1.332 expands after it fires
            self.command_events._mount_commands(ctx)
        elif d("UserPromptExpansion"):  # an MCP prompt used as a slash command fires it too
            ctx.on(PROMPT_SUBMIT, self.command_events._expand_prompt)
        self.agent_listing._mount_agents(ctx)  # the custom agents, when there are any
        # PreModelSwitch, PostModelSwitch, DirectoryAdded
        self.session_commands._mount_session_commands(ctx)
        if extensions_on() and any(map(d, ("MessageDisplay", *PRUNING_EVENTS))):
            # dsh's opt-in reply rewrite and context prune (runtime._model_extensions).
            from dsh.hooks.claude.runtime._model_extensions import ModelExtensions

            ModelExtensions(turn_end).mount(ctx, display=d("MessageDisplay"))
        elif d("MessageDisplay"):
            ctx.on(MESSAGE_DISPLAY, turn_end._message_display)
        if d("Elicitation") or d("ElicitationResult") or d("Notification"):
            ctx.on(ELICITATION, self.mcp_events._elicitation)  # Notification: its response
        if d("CwdChanged"):
            ctx.on(CWD_CHANGED, life._cwd_changed)
        if d("PreToolUse"):
            ctx.on(REWRITE_INPUT, self._pre_tool_input)
        if d("PreToolUse") or d("PostToolUse") or d("PostToolUseFailure"):
            ctx.on(PRE_EXECUTE, tools._pre_tool)
        if d("PermissionDenied"):
            ctx.on(PRE_EXECUTE, perms._permission_denied)  # inner to PreToolUse's
        if d("PermissionRequest"):
            ctx.on(APPROVAL_REQUEST, perms._permission_request)
        self.notifications._mount_notifications(ctx)  # inner to PermissionRequest's
        if d("PostToolUse") or d("PostToolUseFailure"):
            ctx.on(POST_EXECUTE, tools._post_tool)
        if d("PostToolBatch"):
            ctx.on(POST_TOOL_BATCH, self.batch._post_tool_batch)
        if d("TaskCreated"):
            ctx.on(TASK_CREATED, tools._task_created)
        if d("TaskCompleted"):
            ctx.on(TASK_COMPLETED, tools._task_completed)
        if d("Stop") or d("SubagentStop"):
            ctx.on(TURN_CONTINUATION, turn_end._stop)
        if d("StopFailure") or d("MessageDisplay"):
            ctx.on(TURN_ERROR, turn_end._turn_error)
        if d("SubagentStart"):
            ctx.on(SUBAGENT_START, life._subagent_start)
        if d("SubagentStop"):
            ctx.on(SUBAGENT_END, life._subagent_stop)
            ctx.on(COMPACTION_REPLY, subagents._compaction_reply)
        if d("PreCompact") or d("PostCompact"):
            ctx.on(PRE_COMPACT, life._pre_compact)
        if d("PostCompact"):
            ctx.on(POST_COMPACT, life._post_compact)
        # Also to cancel (and log as cancelled) the `async: true` hooks still running.
        if d("SessionEnd") or any(h.run_async for hs in self.catalog.hooks.values() for h in hs):
            ctx.on(SESSION_END, life._session_end)

    async def _never_fire(self, agent: Agent, source: SessionStartSource) -> None:
        """The events whose every handler the run left out (not trusted, changed, turned off,
        left out by policy, not valid) never fire: each is a ``hook/skipped`` at the start,
        once per session: not again at a compaction's start (the first firing's record
        only, ``_firing_skipped``) nor at a resumed session's (its log has the same record
        already, ``logged_before``; a new record when the reasons changed). ``/clear``
        starts a new session, whose log gets its own."""
        if agent.parent is None:
            for event in self.runtime.left_out:
                if event != "*" and not self.declared(event):
                    self.runtime._firing_skipped(agent, event, (), {}, None, once=True)

    async def _pre_tool_input(self, proposed: ProposedCall) -> InputRewrite | None:
        # Defined here: a call's `tool/call` event names its rewriters (`rewritten_by`)
        # by this listener's qualified name, ClaudeHooksPlugin's.
        return await self.tools._pre_tool_rewrite(proposed)


def claude_hooks_plugin(
    catalog: Catalog,
    *,
    permission_mode: PermissionMode = "bypassPermissions",
    transcript_dir: Path | None = None,
    effort: str | None = EFFORT_LEVEL,
    attended: bool = False,
    permissions: PermissionState | None = None,
    commands: CommandSet | None = None,
    agents: AgentSet | None = None,
    left_out: Mapping[str, Sequence[HookSelection]] | None = None,
) -> ClaudeHooksPlugin:
    """The plugin that runs ``catalog``'s hooks on dsh's seams: ``ctx.plugin(...)`` it.

    ``permission_mode`` is sent as Claude Code's ``permission_mode``;
    ``transcript_dir`` is where transcripts are written (default: dsh's data dir);
    ``effort`` is the payloads' ``effort.level`` and ``CLAUDE_EFFORT`` (``None``: neither);
    ``attended`` whether a person is at the terminal (``CLAUDE_CODE_SESSION_ATTENDED``);
    ``permissions`` the permission policy's state, shared with ``ClaudePermissionsPlugin``
    (its mode is then what hooks are sent, and PermissionRequest applies to it);
    ``commands`` the custom commands and skills (``load_commands``) prompts may expand;
    ``agents`` the custom subagents (``load_agents``) the ``Agent`` tool offers;
    ``left_out`` the handlers the catalog never had, by event (``"*"``: every event), for
    the session log's ``hook/skipped`` (``dsh.hooks.claude.trust._left_out.left_out_selections``).
    """
    return ClaudeHooksPlugin(
        catalog,
        permission_mode=permission_mode,
        transcript_dir=transcript_dir,
        effort=effort,
        attended=attended,
        permissions=permissions,
        commands=commands,
        agents=agents,
        left_out=left_out,
    )
