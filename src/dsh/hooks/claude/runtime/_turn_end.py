"""The bridge's turn-end events: Stop, StopFailure and MessageDisplay.

Stop (which may keep the turn going with its hooks' feedback; a subagent's turn end goes
to SubagentStop, ``_subagents``), a failed turn's MessageDisplay and StopFailure (with
2.1.332's ``API Error: …`` wording and its ``error`` vocabulary), and MessageDisplay for
each text the model shows. The session, the prompt and compaction are ``_lifecycle``'s.
"""

from __future__ import annotations

import re
import uuid
from typing import TYPE_CHECKING, Any, cast

from dsh.agent import (
    Agent,
    ContinuationDecision,
    ContinuationState,
    DisplayDecision,
    DisplayRequest,
)
from dsh.context import Next
from dsh.hooks.claude.runtime._agent_hooks import is_hook_agent
from dsh.hooks.claude.runtime._answers import additional_contexts, blocking, halting, shown_reason
from dsh.hooks.claude.runtime._extensions import hook_place
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE, Runtime, background_tasks
from dsh.hooks.claude.runtime._subagents import (
    SubagentEvents,
    block_cap_reached,
    stop_feedback,
)

if TYPE_CHECKING:  # annotations only: a payload is built as a dict
    from dsh.hooks.claude.payloads import (
        MessageDisplayHookInput,
        StopFailureHookInput,
        StopHookInput,
    )


__all__ = ["TurnEndEvents"]


class TurnEndEvents(Handlers):
    """The listeners of the turn's end (``ClaudeHooksPlugin.apply`` mounts them)."""

    def __init__(self, runtime: Runtime, subagents: SubagentEvents) -> None:
        super().__init__(runtime)
        # A subagent's turn end fires SubagentStop (which may keep it running) instead.
        self._subagent_continuation = subagents._subagent_continuation

    # -- Stop / StopFailure ---------------------------------------------------------------

    async def _stop(
        self, agent: Agent, state: ContinuationState, nxt: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        if is_hook_agent(agent):  # an agent hook's subagent: no Stop, no SubagentStop
            return await nxt()
        if agent.parent is not None:  # a child fires SubagentStop, which may keep it running
            return await self._subagent_continuation(agent, state, nxt)
        if state.decision.continues:
            return await nxt()  # queued steering continues anyway
        hooks = self.catalog.matching("Stop", None)
        if not hooks:
            return await nxt()
        payload: StopHookInput = self._base(agent, "Stop")
        payload["stop_hook_active"] = state.stop_hook_active
        payload["last_assistant_message"] = state.final_text
        payload["background_tasks"] = background_tasks(agent)
        payload["session_crons"] = []
        counts = self._state(agent).stop_blocks
        if not state.stop_hook_active:
            counts.clear()  # a new run of Stop hooks: none has blocked yet
        if "dsh" in payload:
            cast(dict[str, Any], payload)["dsh"]["stop_blocks"] = dict(counts)
        merged = await self._fire(agent, "Stop", hooks, payload)
        self._common_effects(agent, "Stop", merged)
        if halting(merged) is not None:
            return await nxt()
        blocks = blocking(merged)
        for decl, _ in blocks:
            counts[hook_place(decl)] = counts.get(hook_place(decl), 0) + 1
        if blocks and block_cap_reached(agent, state):
            return await nxt()
        if blocks:
            feedback = stop_feedback([shown_reason(d, a) for d, a in blocks])
            # 2.1.332: a JSON block (not exit 2) also names its command, as system text
            # after the feedback (steering is drained before context at the next step).
            for decl, answer in blocks:
                if answer.blocking_error is None:
                    agent.inject(
                        f'Stop hook blocking error from command: "{decl.declared_command}":'
                        f" {answer.block_reason}",
                        source=f"{SOURCE}:Stop",
                    )
            return ContinuationDecision.continue_(feedback)
        contexts = additional_contexts(merged)
        if contexts:
            return ContinuationDecision.continue_(stop_feedback(contexts))
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
        hooks = self._matching(agent, "StopFailure", kind)
        if not hooks:
            return
        payload: StopFailureHookInput = self._base(
            agent, "StopFailure", permission=False, agent_fields=False
        )
        payload["error"] = kind
        payload["last_assistant_message"] = _api_error_text(error)
        await self._fire(agent, "StopFailure", hooks, payload)  # output ignored, as in Claude Code

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
        shown = merged.last(lambda a: a.blocking_error is None and a.display_content is not None)
        if shown is not None and shown.display_content is not None:
            return DisplayDecision.replace(shown.display_content)
        return await nxt()

    def _display_payload(
        self,
        agent: Agent,
        turn_id: str,
        message_id: str,
        text: str,
        index: int = 0,
        final: bool = True,
    ) -> MessageDisplayHookInput:
        payload: MessageDisplayHookInput = self._base(
            agent, "MessageDisplay", permission=False, agent_fields=False, effort=False
        )
        payload["turn_id"] = _as_uuid(turn_id)
        payload["message_id"] = _as_uuid(message_id)
        payload["index"] = index
        payload["final"] = final
        payload["delta"] = text
        return payload


def _as_uuid(value: str) -> str:
    """dsh's 32-hex ids in Claude Code's dashed UUID form (other ids unchanged)."""
    try:
        return str(uuid.UUID(hex=value)) if len(value) == 32 else value
    except ValueError:
        return value


def _error_kind(error: Exception) -> str:
    """Claude Code's StopFailure ``error`` vocabulary, from the model error's status."""
    status = getattr(error, "status", None)
    if status == 429:
        return "rate_limit"
    if status in (401, 403):
        return "authentication_failed"
    if status == 529:  # the Anthropic API's "overloaded" status
        return "overloaded"
    if isinstance(status, int) and status >= 500:
        return "server_error"
    return "unknown"  # 2.1.332 too: a 400 is `unknown`, not `invalid_request` (`api-error`)


_HTTP_PREFIX = re.compile(r"^HTTP \d+ from [^:]*: ")


def _api_error_text(error: Exception) -> str:
    """Claude Code's synthetic last assistant message for a failed turn, as 2.1.332 words it.

    ``API Error: 400 M``; a 401 ``Failed to authenticate. API Error: 401 M``; a 429
    ``API Error: Request rejected (429) · M`` (M: the error body's message).
    """
    status = getattr(error, "status", None)
    message = str(getattr(error, "message", None) or error)
    if message.startswith(("API Error:", "Failed to authenticate.")):
        return message  # the Anthropic Messages model words its failures so already
    message = _HTTP_PREFIX.sub("", message)
    if status is None:
        return f"API Error: {message}"
    if status == 401:
        return f"Failed to authenticate. API Error: 401 {message}"
    if status == 429:
        return f"API Error: Request rejected (429) · {message}"
    return f"API Error: {status} {message}"
