"""The Codex bridge's lifecycle events: session, prompt, turn end, subagents, compaction, interrupt.

SessionStart, UserPromptSubmit, Stop, SubagentStart, SubagentStop, PreCompact,
PostCompact, SessionEnd and Interrupt: each listener selects the running hooks
the matcher admits, builds Codex's payload (field for field as the recorded
cases show), fires them (``Runtime._fire``) and applies the answers with
Codex's rules: context as separate developer-role messages, a Stop block as a
``<hook_prompt hook_run_id="…">R</hook_prompt>`` user message, and so on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dsh.agent import (
    Agent,
    CompactRequest,
    ContinuationDecision,
    ContinuationState,
    PreCompactDecision,
    PromptDecision,
    PromptSource,
    SessionEndReason,
    SessionStartSource,
    TurnResult,
)
from dsh.context import Next
from dsh.hooks.codex.config._types import CodexHook
from dsh.hooks.codex.runtime._handlers import Handlers
from dsh.hooks.codex.runtime._machinery import SOURCE, CodexMerged, hook_run_id
from dsh.messages import Content, content_text
from dsh.session import AbortCause

if TYPE_CHECKING:  # annotations only: a payload is built as a dict
    from dsh.hooks.codex.payloads import (
        InterruptHookInput,
        PostCompactHookInput,
        PreCompactHookInput,
        SessionEndHookInput,
        SessionStartHookInput,
        StopHookInput,
        SubagentStartHookInput,
        SubagentStopHookInput,
        UserPromptSubmitHookInput,
    )


__all__ = ["LifecycleEvents"]


def _halt(merged: CodexMerged, default: str) -> str | None:
    """The first ``continue: false``'s reason (its ``stopReason``, else ``default``)."""
    answer = merged.first(lambda a: a.halt)
    if answer is None:
        return None
    return answer.stop_reason or default


class LifecycleEvents(Handlers):
    """The lifecycle listeners (``CodexHooksPlugin.apply`` mounts them)."""

    # -- SessionStart ---------------------------------------------------------------

    async def _session_start(self, agent: Agent, source: SessionStartSource) -> None:
        if agent.parent is not None:
            return  # Codex runs SubagentStart for a child instead
        if source == "compact":
            # Codex queues it and runs it after PostCompact, before the next request.
            self._state(agent).compact_session_start = True
            return
        value = "fork" if source == "startup" and agent.forked_from is not None else source
        await self._fire_session_start(agent, value)

    async def _fire_session_start(self, agent: Agent, value: str) -> None:
        hooks = self._matching(agent, "SessionStart", value)
        if not hooks:
            return
        payload: SessionStartHookInput = self._base(agent, "SessionStart", turn=False)
        payload["source"] = value
        merged = await self._fire(agent, "SessionStart", hooks, payload)
        self._inject_contexts(agent, "SessionStart", merged)
        reason = _halt(merged, "SessionStart hook stopped the session")
        if reason is not None:
            agent.cancel(AbortCause(kind="hook", reason=reason), when="now")

    # -- UserPromptSubmit -------------------------------------------------------------

    async def _prompt_submit(
        self, agent: Agent, content: Content, source: PromptSource, nxt: Next[PromptDecision]
    ) -> PromptDecision:
        if source != "user" or agent.parent is not None:
            return await nxt()
        if self.declared("Interrupt"):
            self._watch_interrupt(agent)
        hooks = self._matching(agent, "UserPromptSubmit", None)
        if not hooks:
            return await nxt()
        payload: UserPromptSubmitHookInput = self._base(agent, "UserPromptSubmit")
        payload["prompt"] = content_text(content)
        merged = await self._fire(agent, "UserPromptSubmit", hooks, payload)
        # Recorded even when the prompt is blocked, as Codex records it.
        self._inject_contexts(agent, "UserPromptSubmit", merged)
        block = merged.first(lambda a: a.block)
        if block is not None and block.reason:
            return PromptDecision.block(block.reason)
        reason = _halt(merged, "UserPromptSubmit hook stopped the turn")
        if reason is not None:
            return PromptDecision.block(reason)
        return await nxt()

    # -- Stop -----------------------------------------------------------------------

    async def _stop(
        self, agent: Agent, state: ContinuationState, nxt: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        if agent.parent is not None or state.decision.continues:
            return await nxt()
        hooks = self._matching(agent, "Stop", None)
        if not hooks:
            return await nxt()
        payload: StopHookInput = self._base(agent, "Stop")
        payload["stop_hook_active"] = state.stop_hook_active
        payload["last_assistant_message"] = state.final_text or None
        merged = await self._fire(agent, "Stop", hooks, payload)
        if _halt(merged, "") is not None:
            return ContinuationDecision.stop()  # wins over a block, as in Codex
        prompts = [
            f'<hook_prompt hook_run_id="{hook_run_id(h)}">'
            f"{self._bounded(agent, h, a.reason or '')}</hook_prompt>"
            for h, a in merged.where(lambda a: a.block)
        ]
        if prompts:
            return ContinuationDecision.continue_("\n".join(prompts))
        return await nxt()

    # -- subagents --------------------------------------------------------------------

    async def _subagent_start(self, parent: Agent, child: Agent) -> None:
        hooks = self._matching(child, "SubagentStart", child.agent_type or "default", log_to=parent)
        if not hooks:
            return
        payload: SubagentStartHookInput = self._base(child, "SubagentStart")
        merged = await self._fire(child, "SubagentStart", hooks, payload, log_to=parent)
        self._inject_contexts(child, "SubagentStart", merged)

    async def _subagent_stop(self, parent: Agent, child: Agent, result: TurnResult) -> None:
        hooks = self._matching(child, "SubagentStop", child.agent_type or "default", log_to=parent)
        if not hooks:
            return
        payload: SubagentStopHookInput = self._base(child, "SubagentStop")
        payload["stop_hook_active"] = False
        payload["last_assistant_message"] = result.final_text or None
        path = child.session.path
        payload["agent_transcript_path"] = str(path) if path is not None else None
        merged = await self._fire(child, "SubagentStop", hooks, payload, log_to=parent)
        if merged.first(lambda a: a.block) is not None:
            parent.notice(
                "SubagentStop hook block is not applied: dsh's subagent has already finished"
                " its turn when subagent/end fires",
                source=f"{SOURCE}:SubagentStop",
                level="warning",
            )

    # -- compaction --------------------------------------------------------------------

    async def _pre_compact(
        self, agent: Agent, request: CompactRequest, nxt: Next[PreCompactDecision]
    ) -> PreCompactDecision:
        self._state(agent).compact_trigger = request.trigger
        hooks = self._matching(agent, "PreCompact", request.trigger)
        if not hooks:
            return await nxt()
        payload: PreCompactHookInput = self._base(agent, "PreCompact", permission=False)
        payload["trigger"] = request.trigger
        merged = await self._fire(agent, "PreCompact", hooks, payload)
        reason = _halt(merged, "PreCompact hook stopped the compaction")
        if reason is not None:
            # Codex abandons the compaction and aborts the turn.
            agent.cancel(AbortCause(kind="hook", reason=reason), when="after_step")
            return PreCompactDecision.veto(reason)
        return await nxt()

    async def _post_compact(self, agent: Agent, summary: str) -> None:
        state = self._state(agent)
        hooks = self._matching(agent, "PostCompact", state.compact_trigger)
        if hooks:
            payload: PostCompactHookInput = self._base(agent, "PostCompact", permission=False)
            payload["trigger"] = state.compact_trigger
            merged = await self._fire(agent, "PostCompact", hooks, payload)
            reason = _halt(merged, "PostCompact hook stopped the turn")
            if reason is not None:
                agent.cancel(AbortCause(kind="hook", reason=reason), when="after_step")
        if state.compact_session_start and agent.parent is None:
            state.compact_session_start = False
            await self._fire_session_start(agent, "compact")

    # -- Interrupt -----------------------------------------------------------------------

    def _watch_interrupt(self, agent: Agent) -> None:
        """Fire Interrupt when this turn is aborted (``agent.cancel``, Esc/Ctrl-C in Codex)."""
        signal = agent.signal
        state = self._state(agent)
        if signal is None or state.watched is signal:
            return  # one watch a turn, however many prompts it drains
        state.watched = signal
        turn_id = agent.turn_id

        def interrupted(_reason: str) -> None:
            hooks = self._matching(agent, "Interrupt", None)
            if not hooks:
                return
            payload: InterruptHookInput = self._base(agent, "Interrupt")
            if turn_id is not None:
                payload["turn_id"] = turn_id
            tasks = self._state(agent).background
            task = asyncio.get_running_loop().create_task(
                self._interrupt(agent, hooks, payload), name="codex-hooks:Interrupt"
            )
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        signal.on_abort(interrupted)

    async def _interrupt(
        self, agent: Agent, hooks: Sequence[CodexHook], payload: Mapping[str, Any]
    ) -> None:
        # Advisory: the interrupt already happened; only `systemMessage` has an effect.
        # Not cancelled by the aborted turn's signal, which is what fired it; the handlers
        # it runs without (not trusted) are a `hook/skipped`, as at every other event.
        await self._fire(agent, "Interrupt", hooks, payload, detached=True)

    # -- SessionEnd ---------------------------------------------------------------------------

    async def _session_end(self, agent: Agent, reason: SessionEndReason) -> None:
        if agent.parent is not None:
            return
        await self._state(agent).async_runs.cancel()
        await self._settle(agent)
        # Codex's SessionEnd reason is always "other".
        hooks = self._matching(agent, "SessionEnd", "other")
        if not hooks:
            return
        payload: SessionEndHookInput = self._base(
            agent, "SessionEnd", turn=False, model=False, permission=False
        )
        payload["reason"] = "other"
        await self._fire(agent, "SessionEnd", hooks, payload)  # output ignored, as in Codex
