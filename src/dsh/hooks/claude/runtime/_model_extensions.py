"""dsh's opt-in reply rewrite and context prune for Claude Code command hooks.

With ``DSH_HOOK_EXTENSIONS=1`` (``_extensions``), two answers under
``hookSpecificOutput.dsh`` (a key Claude Code ignores: recorded in
``tests/fixtures/dsh_extensions_claude.json``) reach the model-call seams of
``dsh.agent`` (``agent/model-reply``, ``agent/model-request-policy``):

- ``updatedReply`` (a string) in a MessageDisplay answer: the reply's text as the
  history keeps it and the model reads it from then on. So that it can, the
  MessageDisplay hooks fire on ``agent/model-reply``, before the reply is logged,
  instead of at display (once per reply, as ``claude -p`` runs them; the payload's
  ``message_id`` is minted then). ``displayContent`` still changes only what is
  shown. The last hook in declaration order that gives one wins; an exit 2 or a
  failure changes nothing.
- ``pruneToolResults`` (tool_use ids) in a UserPromptSubmit, PostToolUse or
  PostToolBatch answer: each of those tool results reads ``_PRUNED`` in every
  later request (the log keeps the result; ``model/substituted`` records the
  request really sent). Read from the session's ``hook/result`` events, so it
  holds for the rest of the session.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from dsh.hook_protocol import HookResultEvent
from dsh.hooks.claude.runtime._extensions import PRUNING_EVENTS
from dsh.messages import ToolResultMessage

if TYPE_CHECKING:
    from dsh.agent import Agent, DisplayDecision, DisplayRequest, ReplyDecision, RequestDecision
    from dsh.context import Context, Next
    from dsh.hooks.claude.runtime._turn_end import TurnEndEvents
    from dsh.messages import AssistantMessage, ModelMessage
    from dsh.models import ModelRequest

__all__ = ["PRUNED", "ModelExtensions", "pruned_ids"]

PRUNED: Final = "[tool result pruned by a hook]"
"""What a pruned tool result reads in a request."""

_MAX_PRUNED: Final = 10_000
"""Tool results a session prunes at most (the rest of the ids are ignored)."""
_MAX_SHOWN: Final = 64
"""Display replacements waiting for their reply's display, at most."""


def _prune_list(decision: Any) -> list[str]:
    """``hookSpecificOutput.dsh.pruneToolResults`` of a logged Claude Code answer (exit 0)."""
    if not isinstance(decision, Mapping) or decision.get("exit_code") != 0:
        return []
    output = decision.get("output")
    specific = output.get("hookSpecificOutput") if isinstance(output, Mapping) else None
    dsh = specific.get("dsh") if isinstance(specific, Mapping) else None
    ids = dsh.get("pruneToolResults") if isinstance(dsh, Mapping) else None
    if not isinstance(ids, list | tuple):
        return []
    return [i for i in ids if isinstance(i, str) and i]


def pruned_ids(events: Iterable[Any]) -> frozenset[str]:
    """The tool_use ids the session's Claude Code hooks asked to prune, so far."""
    found: set[str] = set()
    for event in events:
        if isinstance(event, HookResultEvent) and event.hook_event in PRUNING_EVENTS:
            found.update(_prune_list(event.decision)[: _MAX_PRUNED - len(found)])
    return frozenset(found)


def _pruned(request: ModelRequest, ids: frozenset[str]) -> ModelRequest | None:
    """``request`` with those tool results pruned; ``None`` when none of them is in it."""
    changed = False
    messages: list[ModelMessage] = []
    for message in request.messages:
        if isinstance(message, ToolResultMessage) and message.tool_use_id in ids:
            changed = changed or message.content != PRUNED
            message = dataclasses.replace(message, content=PRUNED)
        messages.append(message)
    return dataclasses.replace(request, messages=tuple(messages)) if changed else None


class ModelExtensions:
    """The listeners of the two extensions, for one Claude hooks plugin."""

    def __init__(self, life: TurnEndEvents) -> None:
        self.life = life
        self.shown: dict[str, str] = {}  # a reply's text -> what its display shows instead

    def mount(self, ctx: Context, *, display: bool) -> None:
        """Listen on the model-call seams (and, with MessageDisplay hooks, on display)."""
        from dsh.agent import MESSAGE_DISPLAY, MODEL_REPLY, MODEL_REQUEST_POLICY

        ctx.on(MODEL_REQUEST_POLICY, self.prune)
        if display:
            ctx.on(MODEL_REPLY, self.reply)
            ctx.on(MESSAGE_DISPLAY, self.display)

    async def prune(
        self, agent: Agent, request: ModelRequest, nxt: Next[RequestDecision]
    ) -> RequestDecision:
        from dsh.agent import RequestDecision

        ids = pruned_ids(agent.events)
        pruned = _pruned(request, ids) if ids else None
        return RequestDecision.rewrite(pruned) if pruned is not None else await nxt()

    async def reply(
        self, agent: Agent, reply: AssistantMessage, nxt: Next[ReplyDecision]
    ) -> ReplyDecision:
        from dsh.agent import ReplyDecision

        hooks = self.life.catalog.matching("MessageDisplay", None)
        if agent.parent is not None or not hooks or not reply.text:
            return await nxt()
        payload = self.life._display_payload(
            agent, agent.turn_id or "", uuid.uuid4().hex, reply.text
        )
        merged = await self.life._fire(agent, "MessageDisplay", hooks, payload)
        usable = [a for _, a in merged.answers if a.blocking_error is None]
        updated = next(
            (
                value
                for a in reversed(usable)
                if isinstance(value := (a.extensions or {}).get("updatedReply"), str) and value
            ),
            None,
        )
        text = updated if updated is not None else reply.text
        shown = next((a.display_content for a in reversed(usable) if a.display_content), None)
        if shown is not None and len(self.shown) < _MAX_SHOWN:
            self.shown[text] = shown
        if updated is None or updated == reply.text:
            return await nxt()
        return ReplyDecision.rewrite(dataclasses.replace(reply, text=updated))

    async def display(
        self, agent: Agent, request: DisplayRequest, nxt: Next[DisplayDecision]
    ) -> DisplayDecision:
        from dsh.agent import DisplayDecision

        shown = self.shown.pop(request.text, None)
        return DisplayDecision.replace(shown) if shown is not None else await nxt()
