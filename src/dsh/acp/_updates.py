"""Session events as ACP ``session/update``s: one translator for the live turn and for replay.

The loop logs every event (``HostOptions.on_event``) and streams the model's
text (``on_text``); ``UpdateTranslator`` turns both into updates, in order,
for a sink. A tool call is ``tool_call`` (pending) when it is sealed,
``in_progress`` when its body starts (``started``), ``completed`` or
``failed`` with its result. User notices are ``Notice``s: ACP's ``notice`` update for a
client that advertised ``session.notices``, else agent messages marked as notices
(``_meta.dsh.notice``); never model input. When a display listener
may replace the model's text (``agent/message-display``), the text is held
until it is decided; otherwise it streams as it comes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeAlias, final

from acp import (
    start_tool_call,
    text_block,
    update_agent_message_text,
    update_tool_call,
    update_user_message,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    ImageContentBlock,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    UserMessageChunk,
)

from dsh._frozen import frozen
from dsh.acp._tools import ToolContent, ToolView, result_content, text_content, tool_view
from dsh.base import thaw_json
from dsh.messages import Content, ImageBlock, TextBlock, ToolUse
from dsh.session import (
    AssistantDisplayEvent,
    AssistantMessageEvent,
    NoticeEvent,
    PromptBlockedEvent,
    SessionEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEnd,
    UserMessageEvent,
)

__all__ = ["TASK_TOOLS", "Notice", "Update", "UpdateTranslator", "call_id", "notice_update"]


TASK_TOOLS = frozenset({"TaskCreate", "TaskUpdate"})
"""The tools that change the session's task list (the client's plan)."""

_SHOWN = (
    UserMessageEvent,
    PromptBlockedEvent,
    AssistantMessageEvent,
    AssistantDisplayEvent,
    ToolCallEvent,
    ToolResultEvent,
    NoticeEvent,
    TurnEnd,
)

_ICONS = {"info": "ℹ", "warning": "⚠", "error": "✖"}


def call_id(tool_use_id: str | None, token: str) -> str:
    """The ACP id of a call: the model's call id, or the call's token when it has none."""
    return tool_use_id or token


def notice_update(text: str, *, level: str, source: str, key: str) -> AgentMessageChunk:
    """A user notice as an agent message of its own, marked ``_meta.dsh.notice`` (for a
    client without ``session.notices``, and for what dsh answers a command)."""
    chunk = update_agent_message_text(f"{_ICONS.get(level, _ICONS['info'])} {text}\n")
    chunk.message_id = f"dsh-notice-{key}"
    chunk.field_meta = {"dsh": {"notice": {"level": level, "source": source}}}
    return chunk


@final
@frozen
class Notice:
    """A notice for the user (never model input): ACP's ``notice`` update for a client that
    advertised ``session.notices``, else an agent message marked as one (``as_message``).

    The pinned Python SDK has no model of it, so ``wire`` is the update as JSON."""

    text: str
    level: str
    source: str
    key: str

    def as_message(self) -> AgentMessageChunk:
        return notice_update(self.text, level=self.level, source=self.source, key=self.key)

    def wire(self) -> dict[str, Any]:
        title, _, rest = self.text.partition("\n")
        update: dict[str, Any] = {
            "sessionUpdate": "notice",
            "severity": self.level if self.level in _ICONS else "info",
            "title": title.strip() or self.text.strip() or "notice",
            "_meta": {"dsh": {"source": self.source, "id": self.key}},
        }
        if rest.strip():
            update["description"] = rest.strip()
        return update


Update: TypeAlias = (
    AgentMessageChunk
    | UserMessageChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | Notice
)
Sink: TypeAlias = Callable[[Update], None]


def _user_blocks(content: Content) -> list[UserMessageChunk]:
    if isinstance(content, str):
        return [update_user_message(text_block(content))] if content else []
    chunks: list[UserMessageChunk] = []
    for block in content:
        if isinstance(block, ImageBlock):
            image = ImageContentBlock(type="image", data=block.data, mime_type=block.media_type)
            chunks.append(update_user_message(image))
        elif isinstance(block, TextBlock):
            chunks.append(update_user_message(TextContentBlock(type="text", text=block.text)))
    return chunks


def _approval_line(approval: object) -> str | None:
    """How an ask that stopped the call was settled (``rejected: the user rejected ...``)."""
    record = thaw_json(approval) if approval is not None else None
    if not isinstance(record, dict):
        return None
    outcome = record.get("outcome")
    if not isinstance(outcome, str) or outcome.startswith("allowed"):
        return None
    why = record.get("reason")
    return f"approval {outcome}: {why}" if isinstance(why, str) and why else f"approval {outcome}"


class UpdateTranslator:
    """Turns one session's events (and streamed text) into ACP updates for ``sink``.

    ``replay``: the events come from the log (``session/load``), so the user's
    prompts are shown too and nothing streams. ``on_tasks`` is called after
    a task tool's result, for the plan.
    """

    __slots__ = (
        "_announced",
        "_asked",
        "_held",
        "_names",
        "_project",
        "_replay",
        "_sink",
        "_streamed",
        "_views",
        "on_tasks",
        "show_prompts",
        "stream_text",
    )

    def __init__(self, sink: Sink, project: Path, *, replay: bool = False) -> None:
        self._sink = sink
        self._project = project
        self._replay = replay
        self.stream_text = not replay
        self.on_tasks: Callable[[], None] | None = None
        # A turn the client did not prompt (a background subagent's notification) shows its
        # prompt, so the client sees what the agent answers.
        self.show_prompts = False
        self._streamed = False
        self._held: tuple[str, str] | None = None
        self._asked: dict[str, ToolUse] = {}
        self._announced: set[str] = set()
        self._names: dict[str, str] = {}
        self._views: dict[str, ToolView] = {}

    # -- streamed text ---------------------------------------------------------------

    def text(self, delta: str) -> None:
        if self.stream_text and delta:
            self._streamed = True
            self._sink(update_agent_message_text(delta))

    # -- events ----------------------------------------------------------------------

    def event(self, event: SessionEvent) -> None:
        if not isinstance(event, _SHOWN):
            return  # hook records, context...: nothing the client sees (held text stays held)
        if self._held is not None:
            held_id, held_text = self._held
            self._held = None
            if isinstance(event, AssistantDisplayEvent) and event.message_id == held_id:
                self._sink(update_agent_message_text(event.text))
                return
            self._sink(update_agent_message_text(held_text))
        match event:
            case UserMessageEvent(content=content) if self._replay or self.show_prompts:
                for chunk in _user_blocks(content):
                    self._sink(chunk)
            case PromptBlockedEvent(prompt=prompt) if self._replay:
                for chunk in _user_blocks(prompt):
                    self._sink(chunk)
            case AssistantMessageEvent():
                self._assistant(event)
            case ToolCallEvent():
                self._call(event)
            case ToolResultEvent():
                self._result(event)
            case NoticeEvent(text=text, level=level, source=source):
                self._sink(Notice(text, level, source, event.id))
            case TurnEnd():
                self._streamed = False  # text streamed before a failed model call
                self.flush()

    def flush(self) -> None:
        """Send the model text held for a display decision (before an answer or a question)."""
        if self._held is not None:
            _, text = self._held
            self._held = None
            self._sink(update_agent_message_text(text))

    def started(self, tool_use_id: str | None, token: str) -> None:
        """The call's body starts running (``tools/execute``)."""
        key = call_id(tool_use_id, token)
        if key in self._announced:
            self._sink(update_tool_call(key, status="in_progress"))

    def view(self, key: str) -> ToolView | None:
        return self._views.get(key)

    def _assistant(self, event: AssistantMessageEvent) -> None:
        for use in event.tool_calls:
            self._asked[use.id] = use
        streamed, self._streamed = self._streamed, False
        if not event.text or streamed:
            return
        if self.stream_text:
            self._sink(update_agent_message_text(event.text))  # a model that does not stream
        else:
            self._held = (event.id, event.text)  # until its display is decided

    def _announce(self, key: str, name: str, arguments: object) -> ToolView:
        view = tool_view(name, arguments, self._project)
        self._views[key] = view
        self._names[key] = name
        self._announced.add(key)
        self._sink(
            start_tool_call(
                key,
                view.title,
                kind=view.kind,
                status="pending",
                content=list(view.diffs) or None,
                locations=list(view.locations) or None,
                raw_input=view.raw_input,
            )
        )
        return view

    def _call(self, event: ToolCallEvent) -> None:
        key = call_id(event.tool_use_id, event.token)
        if key not in self._announced:
            self._announce(key, event.tool_name, event.arguments)

    def _result(self, event: ToolResultEvent) -> None:
        key = call_id(event.tool_use_id, event.token)
        view = self._views.get(key)
        if key not in self._announced:
            # Refused before it was sealed (unknown tool, invalid input), or cut by a crash.
            use = self._asked.get(key)
            view = self._announce(key, use.name if use else "tool", use.arguments if use else {})
        text = result_content(event.content, None if event.is_error else event.output)
        settled = _approval_line(event.approval)
        if settled:
            text = f"{settled}\n{text}" if text else settled
        content: list[ToolContent] = list(view.diffs) if view is not None else []
        if text:
            content.append(text_content(text))
        status: ToolCallStatus = "failed" if event.is_error else "completed"
        self._sink(update_tool_call(key, status=status, content=content or None))
        if self._names.get(key) in TASK_TOOLS and self.on_tasks is not None:
            self.on_tasks()
