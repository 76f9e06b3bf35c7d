"""The session commands' events: PreModelSwitch, PostModelSwitch and DirectoryAdded.

A model switch (``/model NAME``, a stream-json ``set_model``) runs on ``agent/model-switch``:
PreModelSwitch's deny, block or exit 2 keeps the model (the caller words the refusal as Claude
Code does: ``Model switch blocked by a PreModelSwitch hook: R``); after the switch,
PostModelSwitch fires on ``agent/model-switched`` and its context reaches the next request. A
directory joining the session (a stream-json ``register_repo_root``) fires DirectoryAdded on
``agent/directory-added``; its exit 2 only reaches the user (the directory is added).
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

from dsh.agent import (
    DIRECTORY_ADDED,
    MODEL_SWITCH,
    MODEL_SWITCHED,
    Agent,
    DirectorySource,
    ModelSwitchDecision,
    ModelSwitchRequest,
)
from dsh.context import Context, Next
from dsh.hooks.claude._machinery import SOURCE, BridgeBase, blocking, shown_reason
from dsh.hooks.claude._resume import resume_fields

__all__ = ["SessionCommandEvents"]

CACHE_TTL: str = "5m"


class SessionCommandEvents(BridgeBase):
    """The model-switch and directory listeners (``ClaudeHooksPlugin.apply`` mounts them)."""

    def _mount_session_commands(self, ctx: Context) -> None:
        if self.declared("PreModelSwitch"):
            ctx.on(MODEL_SWITCH, self._pre_model_switch)
        if self.declared("PostModelSwitch"):
            ctx.on(MODEL_SWITCHED, self._post_model_switch)
        if self.declared("DirectoryAdded"):
            ctx.on(DIRECTORY_ADDED, self._directory_added)

    def _switch_payload(
        self, agent: Agent, event: str, request: ModelSwitchRequest
    ) -> dict[str, Any]:
        payload = self._base(agent, event, permission=False, agent_fields=False, effort=False)
        payload["from_model"] = request.from_model
        payload["to_model"] = request.to_model
        payload["requested_model"] = request.requested
        payload["source"] = request.source
        # dsh records no usage and knows no prices: the resume estimate (`_resume`).
        figures = resume_fields(
            agent.events, system=agent.system, now=time.time(), messages=agent.messages()
        )
        payload["context_tokens"] = figures.get("context_tokens", 0)
        payload["prompt_cache_warm"] = figures.get("prompt_cache_likely_expired") is False
        payload["cache_ttl"] = CACHE_TTL
        payload["estimated_cache_write_usd"] = figures.get("estimated_cache_write_usd", 0.0)
        payload["pricing"] = "catalog"
        return payload

    async def _pre_model_switch(
        self, agent: Agent, request: ModelSwitchRequest, nxt: Next[ModelSwitchDecision]
    ) -> ModelSwitchDecision:
        if request.source == "command":
            self._state(agent).prompt_id = str(uuid.uuid4())  # `/model` is a prompt
        hooks = self.catalog.matching("PreModelSwitch", request.to_model)
        if agent.parent is not None or not hooks:
            return await nxt()
        payload = self._switch_payload(agent, "PreModelSwitch", request)
        merged = await self._fire(agent, "PreModelSwitch", hooks, payload)
        for _, answer in merged:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:PreModelSwitch")
        reasons = [shown_reason(d, a) for d, a in blocking(merged)]
        for _, answer in merged:
            # Headless, nobody can be asked: an `ask` keeps the model too.
            if answer.blocking_error is None and answer.permission_decision in ("deny", "ask"):
                reasons.append(answer.permission_reason or "blocked by hook")
        if reasons:
            return ModelSwitchDecision.deny("\n".join(reasons))
        return await nxt()

    async def _post_model_switch(self, agent: Agent, request: ModelSwitchRequest) -> None:
        hooks = self.catalog.matching("PostModelSwitch", request.to_model)
        if agent.parent is not None or not hooks:
            return
        payload = self._switch_payload(agent, "PostModelSwitch", request)
        merged = await self._fire(agent, "PostModelSwitch", hooks, payload)
        # The switch stands whatever the hook answers; its context reaches the next request.
        self._inject_contexts(agent, "PostModelSwitch", merged, plain_as="PostModelSwitch")
        for _, answer in merged:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:PostModelSwitch")
        self._user_errors(agent, "PostModelSwitch", merged)

    async def _directory_added(
        self, agent: Agent, directory: Path, source: DirectorySource
    ) -> None:
        hooks = self.catalog.matching("DirectoryAdded", source)
        if agent.parent is not None or not hooks:
            return
        payload = self._base(agent, "DirectoryAdded", permission=False, effort=False)
        payload["directory"] = str(directory)
        payload["source"] = source
        merged = await self._fire(agent, "DirectoryAdded", hooks, payload)
        for _, answer in merged:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:DirectoryAdded")
        self._user_errors(agent, "DirectoryAdded", merged)
