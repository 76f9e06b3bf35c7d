"""``StreamJson``: a session's events as Claude Code's stream-json objects, as they are logged.

``stream-json`` writes one JSON object a line as the session goes, in the order and
with the fields ``claude -p --output-format stream-json --verbose`` 2.1.332 writes them
(the recordings in the conformance corpus's ``claude-stream-json/``): ``system`` lines
(``hook_started``/``hook_response`` for SessionStart hooks, then ``init``), an
``assistant`` line per content block of each model reply, a ``user`` line per tool
result or synthetic continuation, ``system`` ``informational`` for a blocked prompt and
``notification`` for a warning, and a final ``result`` per turn. The objects' shapes are
``_stream_objects``'.

Token usage is what the model reported for each call (``AssistantMessage.usage``): an
``assistant`` line carries its reply's, a ``result`` the sum over its turn's replies; a
model that reports none counts zeros. ``total_cost_usd`` and ``modelUsage`` are the
session's, a resumed one's earlier replies included (as 2.1.332 reports them:
``claude-stream-json/resume``), the cost at the model's price (``dsh.models._prices``,
dated); a model without a public price costs 0, as does usage no server reported. What
dsh does not measure is reported as Claude Code reports an empty value, and a hook's
stdout, which the session log does not keep, is empty.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from dsh.agent import TurnResult
from dsh.cli._stream_objects import (
    API_ERRORS,
    ENDINGS,
    HTTP_STATUS,
    STOP_REASONS,
    assistant_line,
    field,
    hook_response,
    hook_started,
    init_fields,
    js_number,
    plain,
    system_line,
    usage_fields,
    user_line,
)
from dsh.messages import Usage, content_text
from dsh.messages._messages import referenced_tools
from dsh.models._prices import cost_usd, price_of
from dsh.session import (
    AssistantMessageEvent,
    NoticeEvent,
    PromptBlockedEvent,
    SessionEvent,
    SteeringMessageEvent,
    ToolCallEvent,
    ToolDeferredEvent,
    ToolResultEvent,
    TurnEndReason,
)

__all__ = ["StreamJson"]

_BLOCKED_LEAD = "UserPromptSubmit operation blocked by hook:\n"
_ORIGINAL_PROMPT = "\n\nOriginal prompt: "


class StreamJson:
    """Session events turned into Claude Code's stream-json objects, as they are logged.

    ``feed`` takes each event of the session (``HostOptions.on_event``) and
    hands the objects it makes to ``emit``; ``result`` makes a turn's final
    object. ``init`` is emitted once, before the first object that is not a
    SessionStart hook's (as Claude Code, after its SessionStart hooks ran).
    """

    def __init__(
        self,
        emit: Callable[[dict[str, Any]], None],
        *,
        cwd: str,
        model: str,
        permission_mode: str,
        start_source: str,
        tools: Callable[[], list[str]],
        mcp_servers: Callable[[], list[dict[str, str]]] = list,
        budget_usd: float | None = None,
    ) -> None:
        self._emit = emit
        self._budget = budget_usd
        self._cwd = cwd
        self._model = model
        self._permission_mode = permission_mode
        self._start_source = start_source
        self._tools = tools
        self._mcp_servers = mcp_servers
        self.session_id = ""
        self._init_sent = False
        self._calls: dict[str, ToolCallEvent] = {}
        self._denials: list[dict[str, Any]] = []
        self._deferred: ToolDeferredEvent | None = None
        self._blocked: str | None = None
        self._turn_started = time.monotonic()
        self._turn_usage = Usage()
        self._session_usage = Usage()

    def seed(self, events: Iterable[SessionEvent]) -> None:
        """Count the usage of a resumed session's earlier replies into the session's."""
        for event in events:
            if isinstance(event, AssistantMessageEvent) and event.usage is not None:
                self._session_usage += event.usage

    def _costs(self) -> tuple[float, dict[str, Any]]:
        """``total_cost_usd`` and ``modelUsage``: the session's usage, priced."""
        used = self._session_usage
        price = price_of(self._model)
        cost = cost_usd(used, price) if price is not None else 0
        if used == Usage():
            return cost, {}
        entry = {
            "inputTokens": used.input_tokens,
            "outputTokens": used.output_tokens,
            "cacheReadInputTokens": used.cache_read_input_tokens,
            "cacheCreationInputTokens": used.cache_creation_input_tokens,
            "webSearchRequests": 0,
            "costUSD": cost,
        }
        return cost, {self._model: entry}

    # -- events as they come --

    def feed(self, event: SessionEvent) -> None:
        self.session_id = event.session_id or self.session_id
        kind = event.type
        if kind == "hook/invocation" and field(event, "hook_event") == "SessionStart":
            self._emit(hook_started(event, self.session_id, self._hook_name()))
            return
        if kind == "hook/result" and field(event, "hook_event") == "SessionStart":
            self._emit(hook_response(event, self.session_id, self._hook_name()))
            return
        if isinstance(event, ToolDeferredEvent):
            self._deferred = event
        if kind == "turn/start":
            self._turn_started = time.monotonic()
            self._deferred = None
            self._denials = []
            self._blocked = None
            self._turn_usage = Usage()
        for obj in self._objects(event):
            self._send_after_init(obj)

    def _objects(self, event: SessionEvent) -> list[dict[str, Any]]:
        if isinstance(event, AssistantMessageEvent):
            if event.usage is not None:
                self._turn_usage += event.usage
                self._session_usage += event.usage
            return self._assistant(event)
        if isinstance(event, ToolCallEvent):
            self._calls[event.token] = event
            return []
        if isinstance(event, ToolResultEvent):
            return [self._tool_result(event)]
        if isinstance(event, SteeringMessageEvent):
            return [self._user({"type": "text", "text": event.text}, event, isSynthetic=True)]
        if isinstance(event, PromptBlockedEvent):
            return [self._prompt_blocked(event)]
        if isinstance(event, NoticeEvent) and event.level != "info" and event.text != self._blocked:
            return [
                self._system(
                    "notification",
                    key=event.source,
                    text=event.text,
                    priority="immediate" if event.level == "error" else "medium",
                )
            ]
        return []

    def _send_after_init(self, obj: dict[str, Any]) -> None:
        self.ensure_init()
        self._emit(obj)

    def ensure_init(self) -> None:
        if not self._init_sent:
            self._init_sent = True
            self._emit(self._init())

    # -- the objects --

    def _system(self, subtype: str, **fields: Any) -> dict[str, Any]:
        return system_line(subtype, self.session_id, **fields)

    def _init(self) -> dict[str, Any]:
        fields = init_fields(
            cwd=self._cwd,
            tools=self._tools(),
            mcp_servers=self._mcp_servers(),
            model=self._model,
            permission_mode=self._permission_mode,
        )
        return self._system("init", **fields)

    def _hook_name(self) -> str:
        return f"SessionStart:{self._start_source}"

    def _assistant(self, event: AssistantMessageEvent) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if event.text:
            blocks.append({"type": "text", "text": event.text})
        blocks.extend(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": plain(call.arguments)}
            for call in event.tool_calls
        )
        return [self._assistant_line(event.time, event.id, b, event.usage) for b in blocks]

    def _assistant_line(
        self, when: float, message: str, block: dict[str, Any], usage: Usage | None = None
    ) -> dict[str, Any]:
        return assistant_line(
            when=when,
            message=message,
            model=self._model,
            session_id=self.session_id,
            block=block,
            usage=usage,
        )

    def _user(self, block: dict[str, Any], event: SessionEvent, **extra: Any) -> dict[str, Any]:
        return user_line(block, event, self.session_id, **extra)

    def _tool_result(self, event: ToolResultEvent) -> dict[str, Any]:
        call = self._calls.pop(event.token, None)
        if event.code == "DENIED" and call is not None:
            self._denials.append(
                {
                    "tool_name": call.tool_name,
                    "tool_use_id": call.tool_use_id,
                    "tool_input": plain(call.arguments),
                }
            )
        text = content_text(event.content)
        content: Any = text
        if referenced_tools(event.content):
            # A ToolSearch result: Claude Code writes its `tool_reference` blocks (the bridge
            # is imported only then: a run whose hooks are Codex's alone never loads it).
            from dsh.hooks.claude import claude_content

            content = claude_content(event.content)
        block = {
            "tool_use_id": event.tool_use_id,
            "type": "tool_result",
            "content": content,
            "is_error": event.is_error,
        }
        # Claude Code's tool_use_result: the tool's structured output, or for a failed call
        # the text the model read, after "Error: ".
        if event.is_error:
            output: Any = f"Error: {text}"
        else:
            output = plain(event.output) if event.output is not None else text
        return self._user(block, event, tool_use_result=output)

    def _prompt_blocked(self, event: PromptBlockedEvent) -> dict[str, Any]:
        # The bridge words the reason as Claude Code shows it (lead, reason, original prompt).
        text = event.reason
        reason = text.removeprefix(_BLOCKED_LEAD).split(_ORIGINAL_PROMPT, 1)[0]
        self._blocked = text
        return self._system(
            "informational",
            content=text,
            level="warning",
            prevent_continuation=True,
            prompt_submit_outcome={
                "kind": "blocked_by_hook",
                "prompt_kept": False,
                "reason": reason,
            },
            uuid=event.id,
        )

    def api_error(self, turn: TurnResult) -> int | None:
        """For a turn the model API ended: emit Claude Code's synthetic assistant error line;
        returns the HTTP status the error names."""
        if turn.end_reason != TurnEndReason.error:
            return None
        text = turn.error or "the model API failed"
        found = HTTP_STATUS.search(text)
        status = int(found.group(1)) if found else None
        line = self._assistant_line(time.time(), str(uuid.uuid4()), {"type": "text", "text": text})
        line["message"]["model"] = "<synthetic>"
        line.update(
            error=API_ERRORS.get(status, "unknown") if status else "unknown",
            is_api_error_message=True,
            api_error_status=status,
        )
        self._send_after_init(line)
        return status

    def result(self, turn: TurnResult, *, error_status: int | None = None) -> dict[str, Any]:
        """The ``result`` object of the turn that ended with ``turn``."""
        subtype, is_error, terminal = ENDINGS.get(turn.end_reason, ENDINGS[TurnEndReason.error])
        cause = turn.cause
        if turn.end_reason == TurnEndReason.aborted and cause is not None and cause.kind == "hook":
            subtype, is_error, terminal = "success", False, "hook_stopped"
        text = turn.final_text
        if turn.end_reason == TurnEndReason.error:
            text = turn.error or "the model API failed"
        elif self._blocked is not None and turn.end_reason == TurnEndReason.rejected:
            text = self._blocked
        steps = turn.steps
        if turn.end_reason == TurnEndReason.error:
            steps = max(steps, 1)  # the failed request counts, as Claude Code counts it
        elapsed = round((time.monotonic() - self._turn_started) * 1000)
        cost, model_usage = self._costs()
        exhausted = self._budget is not None and cost >= self._budget
        if exhausted:  # 2.1.332's budget stop (its code: no recording has one)
            subtype, is_error, terminal = "error_max_budget_usd", True, "budget_exhausted"
        obj: dict[str, Any] = {
            "type": "result",
            "subtype": subtype,
            "is_error": is_error,
            "duration_ms": elapsed,
            "duration_api_ms": 0,
            "num_turns": steps,
            "result": text,
            "stop_reason": STOP_REASONS.get(terminal),
            "session_id": self.session_id,
            "total_cost_usd": cost,
            "usage": usage_fields(self._turn_usage),
            "modelUsage": model_usage,
            "permission_denials": list(self._denials),
            "terminal_reason": terminal,
            "api_error_status": error_status,
            "uuid": str(uuid.uuid4()),
        }
        deferred = self._deferred
        if turn.end_reason == TurnEndReason.deferred and deferred is not None:
            # 2.1.332's: the call that waits, as the model asked for it.
            obj["result"] = ""
            obj["deferred_tool_use"] = {
                "id": deferred.tool_use_id,
                "name": deferred.tool_name,
                "input": plain(deferred.arguments),
            }
        if exhausted:
            obj["errors"] = [f"Reached maximum budget (${js_number(self._budget or 0)})"]
        return obj
