"""The session commands' events: PreModelSwitch, PostModelSwitch and DirectoryAdded.

A model switch (``/model NAME``, a stream-json ``set_model``) runs on ``agent/model-switch``:
PreModelSwitch's deny, block, exit 2 or timeout keeps the model (the caller words the refusal
as Claude Code does: ``Model switch blocked by a PreModelSwitch hook: R``); after the switch,
PostModelSwitch fires on ``agent/model-switched`` and its context reaches the next request. A
directory joining the session fires DirectoryAdded on ``agent/directory-added``: for a
stream-json ``register_repo_root`` its ``systemMessage`` and exit 2 only reach the user; for
``slash_command`` (``/add-dir``, and a PermissionRequest's ``addDirectories``) its
``systemMessage`` reaches Claude, as 2.1.332 queues it (the directory is added either way).
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

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
from dsh.hooks.claude.runtime._answers import blocking, shown_reason
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE
from dsh.hooks.claude.transcript._resume import resume_fields

if TYPE_CHECKING:  # annotations only: a payload is built as a dict
    from dsh.hooks.claude.payloads import (
        DirectoryAddedHookInput,
        PostModelSwitchHookInput,
        PreModelSwitchHookInput,
    )


__all__ = ["SessionCommandEvents"]

CACHE_TTL: str = "5m"


class SessionCommandEvents(Handlers):
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
    ) -> PreModelSwitchHookInput | PostModelSwitchHookInput:
        payload: PreModelSwitchHookInput | PostModelSwitchHookInput = self._base(
            agent, event, permission=False, agent_fields=False, effort=False
        )
        payload["from_model"] = request.from_model
        payload["to_model"] = request.to_model
        payload["requested_model"] = request.requested
        payload["source"] = request.source
        # The reported usage of the last response; its cache write at the new model's price.
        figures = resume_fields(
            agent.events,
            system=agent.system,
            now=time.time(),
            messages=agent.messages(),
            model=request.to_model,
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
        hooks = self._matching(agent, "PreModelSwitch", request.to_model)
        if agent.parent is not None or not hooks:
            return await nxt()
        payload = self._switch_payload(agent, "PreModelSwitch", request)
        merged = await self._fire(agent, "PreModelSwitch", hooks, payload)
        for _, answer in merged:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:PreModelSwitch")
        reasons = [shown_reason(d, a) for d, a in blocking(merged)]
        # A PreModelSwitch hook that times out blocks the switch (2.1.251+), unlike any other;
        # one that fails otherwise is reported and the switch goes on (2.1.332's words, seen
        # against the real one: its hook name is `PreModelSwitch:<to_model>`).
        name = f"PreModelSwitch hook PreModelSwitch:{request.to_model}"
        for _, outcome in merged.failed:
            if outcome.no_decision == "timed_out":
                reasons.append(f"{name} did not respond before its timeout")
            else:
                failure = f"{name} failed: {outcome.reason}"
                agent.notice(failure, source=f"{SOURCE}:PreModelSwitch", level="warning")
        for _, answer in merged:
            # Headless, nobody can be asked: an `ask` keeps the model too.
            if answer.blocking_error is None and answer.permission_decision in ("deny", "ask"):
                reasons.append(answer.permission_reason or "blocked by hook")
        if reasons:
            return ModelSwitchDecision.deny("\n".join(reasons))
        return await nxt()

    async def _post_model_switch(self, agent: Agent, request: ModelSwitchRequest) -> None:
        hooks = self._matching(agent, "PostModelSwitch", request.to_model)
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
        hooks = self._matching(agent, "DirectoryAdded", source)
        if agent.parent is not None or not hooks:
            return
        payload: DirectoryAddedHookInput = self._base(
            agent, "DirectoryAdded", permission=False, effort=False
        )
        payload["directory"] = str(directory)
        payload["source"] = source
        merged = await self._fire(agent, "DirectoryAdded", hooks, payload)
        if source == "slash_command":
            # 2.1.332 queues these for Claude (a meta notification read on the next request).
            lines = [
                f"DirectoryAdded hook: {a.system_message}" for _, a in merged if a.system_message
            ]
            failed = sum(1 for _, a in merged if a.blocking_error is not None)
            if failed:
                hooks_word = "hook" if failed == 1 else "hooks"
                lines.append(
                    f"{failed} DirectoryAdded {hooks_word} failed; output is in the debug log,"
                    " not shown here"
                )
            if lines:
                agent.inject("\n".join(lines), source=f"{SOURCE}:DirectoryAdded")
            return
        for _, answer in merged:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:DirectoryAdded")
        self._user_errors(agent, "DirectoryAdded", merged)
