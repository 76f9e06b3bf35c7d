"""``codex_hooks_plugin(catalog)``: Codex hooks running on dsh's seams.

One listener per seam for the events the catalog's running hooks declare
(``CODEX_EVENT_SUPPORT`` names the seam), with Codex's payloads, strict answers
and model-visible wording. The plugin is composed, not inherited: one ``Runtime``
(``_machinery``) and one object per handler group, each taking it
(``_handlers.Handlers``): the lifecycle listeners (``_lifecycle``), the tool
listeners (``_tool_events``) and the model-request listeners (``_model_events``), these
two imported and built only when a hook of theirs runs. ``apply`` registers their listeners.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from dsh.agent import (
    MODEL_REQUEST,
    MODEL_RESPONSE,
    POST_COMPACT,
    PRE_COMPACT,
    PROMPT_SUBMIT,
    SESSION_END,
    SESSION_START,
    SUBAGENT_END,
    SUBAGENT_START,
    TURN_CONTINUATION,
    Agent,
    SessionStartSource,
)
from dsh.context import Context
from dsh.hooks.codex.config._types import CodexCatalog, CodexPermissionMode
from dsh.hooks.codex.runtime._lifecycle import LifecycleEvents
from dsh.hooks.codex.runtime._machinery import Runtime
from dsh.tools import (
    APPROVAL_REQUEST,
    POST_EXECUTE,
    PRE_EXECUTE,
    REWRITE_INPUT,
    InputRewrite,
    ProposedCall,
)

if TYPE_CHECKING:
    from dsh.hooks.codex.runtime._model_events import ModelEvents
    from dsh.hooks.codex.runtime._tool_events import ToolEvents

__all__ = ["CodexHooksPlugin", "codex_hooks_plugin"]


class CodexHooksPlugin:
    """The plugin ``codex_hooks_plugin`` returns: ``ctx.plugin(plugin)`` mounts it."""

    def __init__(
        self, catalog: CodexCatalog, *, permission_mode: CodexPermissionMode = "bypassPermissions"
    ) -> None:
        self.runtime = Runtime(catalog, permission_mode=permission_mode)
        self.lifecycle = LifecycleEvents(self.runtime)

    # The tool and model-request groups are imported and built only when a hook of theirs runs.
    @cached_property
    def tools(self) -> ToolEvents:
        from dsh.hooks.codex.runtime._tool_events import ToolEvents

        return ToolEvents(self.runtime)

    @cached_property
    def model_events(self) -> ModelEvents:
        from dsh.hooks.codex.runtime._model_events import ModelEvents

        return ModelEvents(self.runtime)

    @property
    def catalog(self) -> CodexCatalog:
        return self.runtime.catalog

    @property
    def permission_mode(self) -> CodexPermissionMode:
        return self.runtime.permission_mode

    def declared(self, event: str) -> bool:
        return self.runtime.declared(event)

    def seams(self) -> dict[str, str]:
        """Event → seam of every event this plugin registers a listener for."""
        from dsh.hooks.codex.events._support import CODEX_EVENT_SUPPORT

        return {
            event: CODEX_EVENT_SUPPORT[event].seam
            for event in CODEX_EVENT_SUPPORT
            if self.declared(event) and CODEX_EVENT_SUPPORT[event].status != "not-supported"
        }

    def apply(self, ctx: Context) -> None:
        d = self.declared
        life = self.lifecycle
        if d("PreModelRequest"):
            ctx.on(MODEL_REQUEST, self.model_events._model_request)
        if d("PostModelRequest"):
            ctx.on(MODEL_RESPONSE, self.model_events._model_response)
        if d("SessionStart"):
            ctx.on(SESSION_START, life._session_start)
        if self._never_running():
            ctx.on(SESSION_START, self._never_fire)
        if d("UserPromptSubmit") or d("Interrupt"):
            ctx.on(PROMPT_SUBMIT, life._prompt_submit)
        if d("PreToolUse"):
            ctx.on(REWRITE_INPUT, self._pre_tool_input)
            ctx.on(PRE_EXECUTE, self.tools._pre_tool)
        if d("PermissionRequest"):
            ctx.on(APPROVAL_REQUEST, self.tools._permission_request)
        if d("PostToolUse"):
            ctx.on(POST_EXECUTE, self.tools._post_tool)
        if d("Stop"):
            ctx.on(TURN_CONTINUATION, life._stop)
        if d("SubagentStart"):
            ctx.on(SUBAGENT_START, life._subagent_start)
        if d("SubagentStop"):
            ctx.on(SUBAGENT_END, life._subagent_stop)
        if d("PreCompact"):
            ctx.on(PRE_COMPACT, life._pre_compact)
        if d("PreCompact") or d("PostCompact") or d("SessionStart"):
            ctx.on(POST_COMPACT, life._post_compact)
        if self.catalog.notify:  # outermost: it sees the turn's final decision
            from dsh.hooks.codex.runtime._notify import Notify

            notify = Notify(self.catalog.notify, self.catalog.codex_home)
            ctx.on(TURN_CONTINUATION, notify.turn_end, prepend=True)
            ctx.on(SESSION_END, notify.session_end)
        # Also to kill (and log as cancelled) the `async: true` hooks still running.
        if d("SessionEnd") or d("Interrupt") or any(h.run_async for h in self.catalog.running()):
            ctx.on(SESSION_END, life._session_end)

    def _never_running(self) -> tuple[str, ...]:
        """The events that have handlers, none of which runs (not trusted): they never fire."""
        return tuple(
            dict.fromkeys(h.event for h in self.catalog.hooks if not self.declared(h.event))
        )

    async def _never_fire(self, agent: Agent, source: SessionStartSource) -> None:
        """Each event whose every handler is left out is a ``hook/skipped`` at the start
        (``dsh log ID --hooks --why``), as the Claude bridge records them: once per
        session (not again at a compaction's or a resumed session's start)."""
        if agent.parent is None:
            for event in self._never_running():
                self.runtime._log_skipped(agent, event, (), {}, None, once=True)

    async def _pre_tool_input(self, proposed: ProposedCall) -> InputRewrite | None:
        # Defined here so a call's `rewritten_by` names CodexHooksPlugin.
        return await self.tools._pre_tool_rewrite(proposed)


def codex_hooks_plugin(
    catalog: CodexCatalog, *, permission_mode: CodexPermissionMode = "bypassPermissions"
) -> CodexHooksPlugin:
    """The plugin that runs ``catalog``'s running hooks on dsh's seams.

    ``permission_mode`` is what payloads say (Codex sends ``bypassPermissions``
    under approval policy ``never``, as every ``codex exec``, else ``default``).
    """
    return CodexHooksPlugin(catalog, permission_mode=permission_mode)
