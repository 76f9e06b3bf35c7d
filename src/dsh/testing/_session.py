"""A prompt through the real loop, in a temporary project, and what came of it.

``await run_session("publish it", call("Bash", command="git push --force"),
say("refused"), plugins=[no_force_push])`` opens a host (``dsh.host``) in a
sandboxed project with the given plugins and hook files (Claude Code's
``.claude/settings.json``, Codex's ``.codex/hooks.json``: their bridges mount as
``dsh run`` mounts them, the hooks running as real processes), plays the
replies as the model, runs one turn and closes the host. The ``SessionRun`` it
returns holds the session's events, each tool call with how it ended, the
hooks' results and every request the model was sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, final

from dsh._frozen import frozen
from dsh.agent import AgentOptions, TurnResult
from dsh.base import thaw_json
from dsh.context import Plugin
from dsh.hook_protocol import HookResultEvent
from dsh.host import HostOptions, open_host
from dsh.messages import AssistantMessage, content_text
from dsh.models import Model, ModelRequest, TextCallback
from dsh.models._types import request_to_json
from dsh.session import JsonlSessionStore, SessionEvent, ToolCallEvent, ToolResultEvent
from dsh.testing._sandbox import sandbox, write_project
from dsh.testing._script import Reply, scripted_model

__all__ = ["SessionRun", "ToolCallRecord", "run_session"]


@final
@frozen(kw_only=True)
class ToolCallRecord:
    """One tool call of the session and how it ended.

    ``content`` is the result's text as the model reads it (a denial's reason,
    the tool's output); ``code`` names a failure (``DENIED``: refused before it
    ran, by a plugin, a hook or a permission rule); ``dispatched`` says whether
    the tool ran; ``info`` is what the refusal recorded (e.g. ``hook_event``,
    ``decided_by``).
    """

    name: str
    arguments: Mapping[str, Any]
    content: str
    code: str | None = None
    is_error: bool = False
    dispatched: bool = True
    info: Any = None

    @property
    def denied(self) -> bool:
        return self.code == "DENIED"


@final
@frozen(kw_only=True)
class SessionRun:
    """What one turn of ``run_session`` did: ``result`` (``TurnResult``), the session's
    ``events``, its ``tool_calls`` in order, the ``hooks``' results (``HookResultEvent``,
    each with its decoded ``decision``), the ``requests`` the model was sent (as
    ``dsh.models.request_to_json`` writes them) and the profiles' ``diagnostics``."""

    result: TurnResult
    events: tuple[SessionEvent, ...]
    tool_calls: tuple[ToolCallRecord, ...]
    hooks: tuple[HookResultEvent, ...]
    requests: tuple[Mapping[str, Any], ...]
    diagnostics: tuple[str, ...] = ()

    @property
    def final_text(self) -> str:
        """The model's last words."""
        return self.result.final_text

    def tool_call(self, name: str) -> ToolCallRecord:
        """The first call of tool ``name``; ``AssertionError`` naming the calls made if none."""
        for record in self.tool_calls:
            if record.name == name:
                return record
        made = ", ".join(r.name for r in self.tool_calls) or "none"
        raise AssertionError(f"no {name} call in this session (calls made: {made})")


class _Recording:
    """A model that keeps each request (``request_to_json``) before ``model`` answers it."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.requests: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        return self.model.name

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        self.requests.append(request_to_json(request))
        return await self.model.complete(request, on_text=on_text)


async def run_session(
    prompt: str,
    *replies: Reply,
    model: Model | None = None,
    plugins: Sequence[Plugin] = (),
    claude_settings: Mapping[str, Any] | None = None,
    codex_hooks: Mapping[str, Any] | None = None,
    files: Mapping[str, str] | None = None,
    project: Path | None = None,
    max_steps: int = 50,
) -> SessionRun:
    """One turn of ``prompt`` through the real loop; the model plays ``replies`` (or is
    ``model``). ``plugins`` are mounted in order; ``claude_settings`` and ``codex_hooks``
    are written as the project's ``.claude/settings.json`` and ``.codex/hooks.json``,
    ``files`` (relative path -> text) beside them. ``project`` is a directory of your own
    to run in (default: a temporary one, removed afterwards).
    """
    if model is not None and replies:
        raise ValueError("run_session: give replies or a model, not both")
    recording = _Recording(model if model is not None else scripted_model(*replies))
    with sandbox(project) as box:
        write_project(
            box.project, claude_settings=claude_settings, codex_hooks=codex_hooks, files=files
        )
        options = HostOptions(
            project=box.project,
            model=recording,
            store=JsonlSessionStore(box.root / "sessions"),
            plugins=tuple(plugins),
            profiles=box.profiles(),
            agent=AgentOptions(max_steps=max_steps),
        )
        async with open_host(options) as host:
            host.agent.send(prompt)
            result = await host.agent.run_turn()
        events = tuple(host.session.events)
        diagnostics = tuple(str(d) for d in host.diagnostics)
    return SessionRun(
        result=result,
        events=events,
        tool_calls=_tool_calls(events),
        hooks=tuple(e for e in events if isinstance(e, HookResultEvent)),
        requests=tuple(recording.requests),
        diagnostics=diagnostics,
    )


def _tool_calls(events: Sequence[SessionEvent]) -> tuple[ToolCallRecord, ...]:
    calls = {e.token: e for e in events if isinstance(e, ToolCallEvent)}
    records = []
    for event in events:
        if not isinstance(event, ToolResultEvent) or event.token not in calls:
            continue
        call = calls[event.token]
        records.append(
            ToolCallRecord(
                name=call.tool_name,
                arguments=thaw_json(call.arguments),
                content=content_text(event.content),
                code=event.code,
                is_error=event.is_error,
                dispatched=event.dispatched,
                info=thaw_json(event.info),
            )
        )
    return tuple(records)
