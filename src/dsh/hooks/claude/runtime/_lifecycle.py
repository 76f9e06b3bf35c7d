"""The bridge's lifecycle events: the session, the prompt, subagents, compaction.

Setup, SessionStart, InstructionsLoaded, UserPromptSubmit, SubagentStart, SubagentStop
(a child that ended without its continuation seam), PreCompact, PostCompact, CwdChanged
and SessionEnd: each listener selects the matching declarations, builds the payload
Claude Code sends (field for field as the conformance captures show), fires them
(``Runtime._fire``) and applies the answers with the event's rules and Claude Code's
wording. The turn's end (Stop, StopFailure, MessageDisplay) is ``_turn_end``'s.
"""

from __future__ import annotations

import logging
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from dsh.agent import (
    Agent,
    CompactRequest,
    InstructionsFile,
    PreCompactDecision,
    PromptAllow,
    PromptDecision,
    PromptSource,
    SessionEndReason,
    SessionStartSource,
    SetupTrigger,
    TurnResult,
)
from dsh.context import Next
from dsh.hooks.claude.runtime._answers import (
    BETWEEN,
    Merged,
    blocked_prompt_message,
    blocking,
    event_context,
    halting,
    prompt_context_lines,
    shown_reason,
)
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE, Runtime
from dsh.hooks.claude.runtime._subagents import SubagentEvents
from dsh.hooks.claude.transcript._resume import resume_fields
from dsh.messages import Content, TextBlock, content_text
from dsh.session import AbortCause

if TYPE_CHECKING:  # annotations only: a payload is built as a dict
    from dsh.hooks.claude.payloads import (
        CwdChangedHookInput,
        InstructionsLoadedHookInput,
        PostCompactHookInput,
        PreCompactHookInput,
        SessionEndHookInput,
        SessionStartHookInput,
        SetupHookInput,
        SubagentStartHookInput,
        UserPromptSubmitHookInput,
    )


__all__ = ["LifecycleEvents"]

logger = logging.getLogger("dsh.hooks.claude")


class LifecycleEvents(Handlers):
    """The listeners of the lifecycle events (``ClaudeHooksPlugin.apply`` mounts them)."""

    def __init__(self, runtime: Runtime, subagents: SubagentEvents) -> None:
        super().__init__(runtime)
        # SubagentStop fires when a child ends without its continuation seam too.
        self.subagents = subagents
        self._fire_subagent_stop = subagents._fire_subagent_stop
        self._subagent_stop_fired = subagents._subagent_stop_fired

    # -- Setup -----------------------------------------------------------------------

    async def _setup(self, agent: Agent, trigger: SetupTrigger) -> None:
        hooks = self._matching(agent, "Setup", trigger)
        if not hooks:
            return
        payload: SetupHookInput = self._base(
            agent, "Setup", prompt_id=False, permission=False, effort=False
        )
        payload["trigger"] = trigger
        merged = await self._fire(agent, "Setup", hooks, payload)
        # Plain stdout goes to Claude Code's debug log only; the hook/result event keeps it.
        self._inject_contexts(agent, "Setup", merged, plain_as=None)
        self._user_errors(agent, "Setup", merged)
        self._common_effects(agent, "Setup", merged)

    # -- InstructionsLoaded -------------------------------------------------------------

    async def _instructions_loaded(self, agent: Agent, file: InstructionsFile) -> None:
        hooks = self._matching(agent, "InstructionsLoaded", file.load_reason)
        if not hooks:
            return
        payload: InstructionsLoadedHookInput = self._base(
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
        hooks = self._matching(agent, "SessionStart", value)
        if not hooks:
            return
        payload: SessionStartHookInput = self._base(
            agent, "SessionStart", prompt_id=value == "compact", permission=False, effort=False
        )
        payload["source"] = value
        if value == "compact":
            payload["model"] = agent.model.name
        elif value == "resume":
            figures = resume_fields(
                agent.events,
                system=agent.system,
                now=time.time(),
                messages=agent.messages(),
                model=agent.model.name,
            )
            if figures:
                payload["seconds_since_last_response"] = figures["seconds_since_last_response"]
                payload["context_tokens"] = figures["context_tokens"]
                payload["prompt_cache_likely_expired"] = figures["prompt_cache_likely_expired"]
                payload["estimated_cache_write_usd"] = figures["estimated_cache_write_usd"]
        merged = await self._fire(agent, "SessionStart", hooks, payload)
        self.runtime.watch_paths_from(agent, merged)
        if value == "compact":
            self._inject_contexts(agent, "SessionStart", merged, plain_as="SessionStart:compact")
        else:
            # Sent after the first prompt, with UserPromptSubmit's (``_prompt_submit``).
            text = event_context("SessionStart", merged, plain_as=f"SessionStart:{value}")
            state = self._state(agent)
            state.session_context = BETWEEN.join(t for t in (state.session_context, text) if t)
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
            return self._with_session_context(agent, await nxt(), "")
        prompt = _typed_prompt(content)
        payload: UserPromptSubmitHookInput = self._base(
            agent, "UserPromptSubmit", effort=False, agent_fields=False
        )
        payload["prompt"] = prompt
        merged = await self._fire(agent, "UserPromptSubmit", hooks, payload)
        self._common_effects(agent, "UserPromptSubmit", merged)
        message = blocked_prompt_message("UserPromptSubmit", merged, prompt)
        if message is not None:
            return PromptDecision.block(message)
        lines = prompt_context_lines("UserPromptSubmit", merged)
        updated = _updated_prompt(merged)
        return self._with_session_context(agent, await nxt(), BETWEEN.join(lines), updated)

    def _with_session_context(
        self, agent: Agent, decision: PromptDecision, text: str, updated: str | None = None
    ) -> PromptDecision:
        """An allowed prompt's decision with SessionStart's text (not yet sent) and ``text``
        (UserPromptSubmit's) as one context message after the prompt, as 2.1.332 sends them;
        ``updated``: dsh's opt-in replacement of the prompt (``_updated_prompt``)."""
        if not isinstance(decision, PromptAllow):
            return decision
        state = self._state(agent)
        text = BETWEEN.join(t for t in (state.session_context, text) if t)
        state.session_context = ""
        if not text and updated is None:
            return decision
        if decision.additional_context:
            text = f"{decision.additional_context}\n{text}" if text else decision.additional_context
        return PromptDecision.allow(
            updated if updated is not None else decision.content,
            text or None,
            source=decision.source or f"{SOURCE}:UserPromptSubmit",
        )

    # -- subagents -------------------------------------------------------------------------

    async def _subagent_start(self, parent: Agent, child: Agent) -> None:
        hooks = self._matching(parent, "SubagentStart", child.agent_type)
        if not hooks:
            return
        payload: SubagentStartHookInput = self._base(
            child, "SubagentStart", permission=False, effort=False
        )
        merged = await self._fire(child, "SubagentStart", hooks, payload, log_to=parent)
        for _, answer in merged.answers:
            if answer.additional_context:
                child.inject(
                    f"SubagentStart hook additional context: {answer.additional_context}",
                    source=f"{SOURCE}:SubagentStart",
                )
            if answer.system_message:
                parent.notice(answer.system_message, source=f"{SOURCE}:SubagentStart")
        self._user_errors(parent, "SubagentStart", merged)
        halt = halting(merged)
        if halt is not None:
            child.cancel(
                AbortCause(kind="hook", reason=halt.stop_reason or "SubagentStart hook"),
                when="now",
            )

    async def _subagent_stop(self, parent: Agent, child: Agent, result: TurnResult) -> None:
        # A child that ended without its continuation seam (aborted, step limit, error).
        if not self._subagent_stop_fired(child):
            await self._fire_subagent_stop(parent, child, result.final_text, active=False)

    # -- compaction -------------------------------------------------------------------------

    async def _pre_compact(
        self, agent: Agent, request: CompactRequest, nxt: Next[PreCompactDecision]
    ) -> PreCompactDecision:
        state = self._state(agent)
        state.compact_trigger = request.trigger
        if request.trigger == "manual":
            state.prompt_id = str(uuid.uuid4())  # `/compact` is a prompt in Claude Code
        hooks = self._matching(agent, "PreCompact", request.trigger)
        if not hooks:
            return await nxt()
        payload: PreCompactHookInput = self._base(
            agent, "PreCompact", permission=False, agent_fields=False, effort=False
        )
        payload["trigger"] = request.trigger
        payload["custom_instructions"] = request.instructions
        merged = await self._fire(agent, "PreCompact", hooks, payload)
        for _, answer in merged.answers:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:PreCompact")
        blocks = blocking(merged)
        if blocks:
            return PreCompactDecision.veto("\n".join(shown_reason(d, a) for d, a in blocks))
        return await nxt()

    async def _post_compact(self, agent: Agent, summary: str) -> None:
        trigger = self._state(agent).compact_trigger
        hooks = self._matching(agent, "PostCompact", trigger)
        if not hooks:
            return
        payload: PostCompactHookInput = self._base(
            agent, "PostCompact", permission=False, agent_fields=False, effort=False
        )
        payload["trigger"] = trigger
        payload["compact_summary"] = summary
        merged = await self._fire(agent, "PostCompact", hooks, payload)
        self._user_errors(agent, "PostCompact", merged)

    # -- CwdChanged ------------------------------------------------------------------------------

    async def _cwd_changed(self, agent: Agent, old: Path, new: Path) -> None:
        hooks = self.catalog.matching("CwdChanged", None)
        if not hooks:
            return
        payload: CwdChangedHookInput = self._base(
            agent, "CwdChanged", permission=False, effort=False
        )
        payload["old_cwd"] = str(old)
        payload["new_cwd"] = str(new)
        merged = await self._fire(agent, "CwdChanged", hooks, payload)
        # Exit 2 stderr and `systemMessage` reach the user; `continue` is discarded.
        for _, answer in merged.answers:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:CwdChanged")
        self.runtime.watch_paths_from(agent, merged)
        self._user_errors(agent, "CwdChanged", merged)

    # -- SessionEnd ---------------------------------------------------------------------------

    async def _session_end(self, agent: Agent, reason: SessionEndReason) -> None:
        if agent.parent is not None:
            return
        await self._settle_background(agent)
        hooks = self._matching(agent, "SessionEnd", reason)
        if not hooks:
            return
        payload: SessionEndHookInput = self._base(
            agent, "SessionEnd", permission=False, agent_fields=False, effort=False
        )
        payload["reason"] = reason
        try:
            merged = await self._fire(agent, "SessionEnd", hooks, payload)
        finally:
            # Whatever a SessionEnd firing started in the background ends with the session.
            await self._settle_background(agent)
        self._user_errors(agent, "SessionEnd", merged)


_ATTACHMENT_PREFIXES: tuple[str, ...] = (
    "<system-reminder>\nCalled the Read tool with the following input: ",
    "<system-reminder>\nResult of calling the Read tool:\n",
)
"""How an ``@file``'s blocks start (``cli/_prompt_input.attach_mentions`` writes them)."""


def _typed_prompt(content: Content) -> str:
    """The prompt as typed: ``content``'s text without the leading ``@file`` attachment
    blocks (2.1.332 gives UserPromptSubmit the raw input, not what the model reads). The
    last block is always kept: it is the typed text, whatever it starts with."""
    if isinstance(content, str):
        return content
    blocks = list(content)
    while len(blocks) > 1 and isinstance(first := blocks[0], TextBlock):
        if not first.text.startswith(_ATTACHMENT_PREFIXES):
            break
        blocks.pop(0)
    return content_text(tuple(blocks))


def _updated_prompt(merged: Merged) -> str | None:
    """dsh's opt-in ``hookSpecificOutput.dsh.updatedPrompt``: the prompt the model gets instead
    (the last hook in declaration order that gives one wins); Claude Code ignores the key."""
    updated = None
    for _, answer in merged.answers:
        value = (answer.extensions or {}).get("updatedPrompt")
        if isinstance(value, str) and value:
            updated = value
    return updated
