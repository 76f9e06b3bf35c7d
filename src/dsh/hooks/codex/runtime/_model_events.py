"""The Codex bridge's model-request events: ``PreModelRequest`` and ``PostModelRequest``.

Codex 0.171 fires them around every model request (a turn's, ``kind:
"sampling"``; a compaction's, ``"foreground_compaction"``), matcher ignored, and
ignores what they print (checked with the binary: a block, ``continue:
false``, ``additionalContext``, plain stdout, an unknown key all leave the
request as it was; a non-zero exit, 2 included, marks the run failed and the
request goes on). dsh fires them on ``agent/model-request`` and
``agent/model-response`` with Codex's payloads, field for field, and shows a
failed run as a warning notice (``_machinery``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from dsh.agent import Agent, ModelCall, ModelCallEnd
from dsh.hook_protocol._sessions import root_session
from dsh.hooks.codex.runtime._handlers import Handlers
from dsh.messages import Usage

if TYPE_CHECKING:  # annotations only: a payload is built as a dict
    from dsh.hooks.codex.payloads import (
        PostModelRequestHookInput,
        PreModelRequestHookInput,
        TokenUsage,
    )


__all__ = ["ModelEvents", "token_usage"]

# dsh's compaction holds up the turn, as Codex's foreground (not remote) compaction does.
_KINDS: Final = {"sampling": "sampling", "compaction": "foreground_compaction"}


def token_usage(usage: Usage | None) -> TokenUsage | None:
    """dsh's ``Usage`` in Codex's words: Codex's ``input_tokens`` counts the cached prompt
    tokens too (dsh's does not); dsh's models report no reasoning tokens apart."""
    if usage is None:
        return None
    prompt = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    return {
        "input_tokens": prompt,
        "cached_input_tokens": usage.cache_read_input_tokens,
        "cache_write_input_tokens": usage.cache_creation_input_tokens,
        "output_tokens": usage.output_tokens,
        "reasoning_output_tokens": 0,
        "total_tokens": prompt + usage.output_tokens,
    }


class ModelEvents(Handlers):
    """The model-request listeners (``CodexHooksPlugin.apply`` mounts them)."""

    def _request_payload(self, agent: Agent, call: ModelCall) -> PreModelRequestHookInput:
        """Codex's fields in Codex's order (no ``permission_mode``, unlike the other events)."""
        root = root_session(agent)
        path = root.session.path
        return {
            "kind": _KINDS[call.kind],
            "request_id": call.request_id,
            "attempt_number": call.attempt,
            "session_id": root.session_id,
            "thread_id": agent.session_id,
            "turn_id": agent.turn_id or root.turn_id,
            "cwd": str(agent.workspace.cwd),
            "transcript_path": str(path) if path is not None else None,
            "model": call.model,
            "hook_event_name": "PreModelRequest",
        }

    async def _model_request(self, agent: Agent, call: ModelCall) -> None:
        hooks = self._matching(agent, "PreModelRequest", None)
        if hooks:
            payload = self._request_payload(agent, call)
            await self._fire(agent, "PreModelRequest", hooks, payload)  # output ignored

    async def _model_response(self, agent: Agent, end: ModelCallEnd) -> None:
        if end.status == "aborted":
            return  # an interrupted request: Codex's payload for it was not observed
        hooks = self._matching(agent, "PostModelRequest", None)
        if not hooks:
            return
        asked = self._request_payload(agent, end.call)
        # The request's fields in place (``hook_event_name`` keeps its position), then the answer's.
        payload: PostModelRequestHookInput = {
            **asked,
            "hook_event_name": "PostModelRequest",
            "status": end.status,
            "error": end.error,
            "token_usage": token_usage(end.usage),
            "response_id": end.response_id,
        }
        await self._fire(agent, "PostModelRequest", hooks, payload)  # output ignored
