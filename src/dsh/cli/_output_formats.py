"""``dsh run --output-format text|json|stream-json``: Claude Code's ``-p`` output shapes.

``stream-json`` writes one JSON object a line as the session goes, in the
order and with the fields ``claude -p --output-format stream-json --verbose``
2.1.332 writes them (the recordings in the conformance corpus's
``claude-stream-json/``): ``system`` lines (``hook_started``/``hook_response``
for SessionStart hooks, then ``init``), an ``assistant`` line per content
block of each model reply, a ``user`` line per tool result or synthetic
continuation, ``system`` ``informational`` for a blocked prompt and
``notification`` for a warning, and a final ``result`` per turn. ``json`` is
that last ``result`` object alone; ``text`` its ``result`` text alone.

Token usage is what the model reported for each call (``AssistantMessage.usage``):
an ``assistant`` line carries its reply's, a ``result`` the sum over its turn's
replies; a model that reports none counts zeros. ``total_cost_usd`` and
``modelUsage`` are the session's, a resumed one's earlier replies included (as
2.1.332 reports them: ``claude-stream-json/resume``), the cost at the model's price
(``dsh.models._prices``, dated); a model without a public price costs 0, as does
usage no server reported. What dsh does not measure is reported as Claude Code
reports an empty value, and a hook's stdout, which the session log does not keep, is
empty.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

from dsh import __version__
from dsh.agent import TurnResult
from dsh.cli._render import for_stream, json_line
from dsh.cli._run import ExitCode, RunOptions, _run_prompts, prepared_host_options
from dsh.host import open_host
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

__all__ = ["MACHINE_FORMATS", "OutputFormat", "StreamJson", "run_machine"]

OutputFormat = Literal["text", "json", "stream-json"]
MACHINE_FORMATS: tuple[OutputFormat, ...] = ("text", "json", "stream-json")

CLAUDE_CODE_VERSION = "2.1.332"
"""The ``claude -p`` release whose output shapes these are (its recordings')."""

_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


def _usage(usage: Usage | None = None) -> dict[str, int]:
    if usage is None:
        return dict.fromkeys(_USAGE_KEYS, 0)
    return {key: getattr(usage, key) for key in _USAGE_KEYS}


def _timestamp(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


_BLOCKED_LEAD = "UserPromptSubmit operation blocked by hook:\n"
_ORIGINAL_PROMPT = "\n\nOriginal prompt: "
_HTTP_STATUS = re.compile(r"\bHTTP (\d{3})\b")
_API_ERRORS = {401: "authentication_failed", 403: "permission_denied", 429: "rate_limit"}

# Claude Code's stop_reason by terminal_reason (an API error's synthetic message "stops").
_STOP_REASONS = {
    "completed": "end_turn",
    "api_error": "stop_sequence",
    "tool_deferred": "tool_deferred",
}

# (subtype, is_error, terminal_reason) for each way a turn ends.
_ENDINGS: dict[TurnEndReason, tuple[str, bool, str]] = {
    TurnEndReason.completed: ("success", False, "completed"),
    TurnEndReason.stopped: ("success", False, "completed"),
    TurnEndReason.rejected: ("success", False, "prompt_blocked"),
    TurnEndReason.error: ("success", True, "api_error"),
    TurnEndReason.max_steps: ("error_max_turns", True, "max_turns"),
    TurnEndReason.aborted: ("error_during_execution", True, "aborted"),
    TurnEndReason.deferred: ("success", False, "tool_deferred"),
}


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
        if kind == "hook/invocation" and _field(event, "hook_event") == "SessionStart":
            self._send(self._hook_started(event))
            return
        if kind == "hook/result" and _field(event, "hook_event") == "SessionStart":
            self._send(self._hook_response(event))
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

    def _send(self, obj: dict[str, Any]) -> None:
        self._emit(obj)

    def _send_after_init(self, obj: dict[str, Any]) -> None:
        self.ensure_init()
        self._emit(obj)

    def ensure_init(self) -> None:
        if not self._init_sent:
            self._init_sent = True
            self._emit(self._init())

    # -- the objects --

    def _system(self, subtype: str, **fields: Any) -> dict[str, Any]:
        return {"type": "system", "subtype": subtype, **fields, "session_id": self.session_id}

    def _init(self) -> dict[str, Any]:
        return self._system(
            "init",
            cwd=self._cwd,
            tools=self._tools(),
            mcp_servers=self._mcp_servers(),
            model=self._model,
            permissionMode=self._permission_mode,
            slash_commands=["compact"],
            apiKeySource="none",
            claude_code_version=CLAUDE_CODE_VERSION,
            dsh_version=__version__,
            output_style="default",
            agents=["general-purpose"],
            skills=[],
            plugins=[],
            uuid=str(uuid.uuid4()),
            sandbox_enabled=False,
            memory_paths={},
            original_cwd=self._cwd,
            additional_directories=[],
        )

    def _hook_name(self) -> str:
        return f"SessionStart:{self._start_source}"

    def _hook_started(self, event: SessionEvent) -> dict[str, Any]:
        return self._system(
            "hook_started",
            hook_id=event.id,
            hook_name=self._hook_name(),
            hook_event="SessionStart",
            uuid=event.id,
        )

    def _hook_response(self, event: SessionEvent) -> dict[str, Any]:
        code = _field(event, "exit_code")
        stderr = str(_field(event, "stderr") or "")
        outcome = "success" if code == 0 else "cancelled" if _field(event, "cancelled") else "error"
        return self._system(
            "hook_response",
            hook_id=_field(event, "invocation_id") or event.id,
            hook_name=self._hook_name(),
            hook_event="SessionStart",
            output=stderr,
            stdout="",
            stderr=stderr,
            exit_code=code,
            outcome=outcome,
            uuid=event.id,
        )

    def _assistant(self, event: AssistantMessageEvent) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if event.text:
            blocks.append({"type": "text", "text": event.text})
        blocks.extend(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": _plain(call.arguments)}
            for call in event.tool_calls
        )
        usage = event.usage
        return [self._assistant_line_at(event.time, event.id, b, usage) for b in blocks]

    def _assistant_line_at(
        self, when: float, message: str, block: dict[str, Any], usage: Usage | None = None
    ) -> dict[str, Any]:
        return {
            "type": "assistant",
            "message": {
                "id": f"msg_{message.replace('-', '')[:20]}",
                "type": "message",
                "role": "assistant",
                "model": self._model,
                "content": [block],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": _usage(usage),
                "context_management": None,
            },
            "parent_tool_use_id": None,
            "session_id": self.session_id,
            "uuid": str(uuid.uuid4()),
            "timestamp": _timestamp(when),
        }

    def _user(self, block: dict[str, Any], event: SessionEvent, **extra: Any) -> dict[str, Any]:
        return {
            "type": "user",
            "message": {"role": "user", "content": [block]},
            "parent_tool_use_id": None,
            "session_id": self.session_id,
            "uuid": str(uuid.uuid4()),
            "timestamp": _timestamp(event.time),
            **extra,
        }

    def _tool_result(self, event: ToolResultEvent) -> dict[str, Any]:
        call = self._calls.pop(event.token, None)
        if event.code == "DENIED" and call is not None:
            self._denials.append(
                {
                    "tool_name": call.tool_name,
                    "tool_use_id": call.tool_use_id,
                    "tool_input": _plain(call.arguments),
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
            output = _plain(event.output) if event.output is not None else text
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
        found = _HTTP_STATUS.search(text)
        status = int(found.group(1)) if found else None
        line = self._assistant_line_at(
            time.time(), str(uuid.uuid4()), {"type": "text", "text": text}
        )
        line["message"]["model"] = "<synthetic>"
        line.update(
            error=_API_ERRORS.get(status, "unknown") if status else "unknown",
            is_api_error_message=True,
            api_error_status=status,
        )
        self._send_after_init(line)
        return status

    def result(self, turn: TurnResult, *, error_status: int | None = None) -> dict[str, Any]:
        """The ``result`` object of the turn that ended with ``turn``."""
        subtype, is_error, terminal = _ENDINGS.get(turn.end_reason, _ENDINGS[TurnEndReason.error])
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
            "stop_reason": _STOP_REASONS.get(terminal),
            "session_id": self.session_id,
            "total_cost_usd": cost,
            "usage": _usage(self._turn_usage),
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
                "input": _plain(deferred.arguments),
            }
        if exhausted:
            obj["errors"] = [f"Reached maximum budget (${_js_number(self._budget or 0)})"]
        return obj


def _js_number(value: float) -> str:
    """``value`` as JavaScript writes a number in a template (``5``, ``0.25``)."""
    return str(int(value)) if value.is_integer() else repr(value)


def _field(event: SessionEvent, name: str) -> Any:
    return getattr(event, name, None)


def _plain(value: Any) -> Any:
    """Frozen JSON (``FrozenDict``, tuples) as plain JSON values."""
    return json.loads(json.dumps(value, default=_as_plain))


def _as_plain(value: Any) -> Any:
    if isinstance(value, dict) or hasattr(value, "items"):
        return dict(value.items())
    if isinstance(value, (tuple, frozenset)):
        return list(value)
    return str(value)


def _write_line(out: TextIO) -> Callable[[dict[str, Any]], None]:
    def write(obj: dict[str, Any]) -> None:
        out.write(json_line(obj, separators=(",", ":")) + "\n")
        out.flush()

    return write


async def run_machine(
    options: RunOptions, output_format: OutputFormat, out: TextIO | None = None
) -> ExitCode:
    """Run ``options`` as ``dsh run`` does, writing Claude Code's ``-p`` output to ``out``.

    What the profiles diagnosed goes to stderr: stdout carries only the format.
    """
    stream = out if out is not None else sys.stdout
    write = _write_line(stream)
    streaming = output_format == "stream-json"
    results: list[tuple[TurnResult, dict[str, Any]]] = []
    holder: list[Any] = []

    def tools() -> list[str]:
        return [d.name for d in holder[0].registry.definitions()] if holder else []

    def mcp_servers() -> list[dict[str, str]]:
        servers = holder[0].assembly.mcp if holder else None
        return servers.statuses() if servers is not None else []

    converter = StreamJson(
        write if streaming else _ignore,
        cwd=str(options.host.project),
        model=options.host.model.name,
        permission_mode=options.hooks.permission_mode or "default",
        start_source="resume" if options.host.resume is not None else "startup",
        tools=tools,
        mcp_servers=mcp_servers,
        budget_usd=options.max_budget_usd,
    )

    def on_result(turn: TurnResult) -> None:
        status = converter.api_error(turn)
        obj = converter.result(turn, error_status=status)
        results.append((turn, obj))
        if streaming:
            converter.ensure_init()
            write(obj)

    def warn(line: str) -> None:
        print(for_stream(f"dsh: {line}", sys.stderr), file=sys.stderr)

    base = prepared_host_options(options, warn)
    async with open_host(dataclasses.replace(base, on_event=converter.feed)) as host:
        holder.append(host)
        converter.session_id = host.session.id
        if options.host.resume is not None:
            converter.seed(host.session.events)
        for diagnostic in host.diagnostics:
            warn(str(diagnostic))
        code = await _run_prompts(host.agent, options, None, on_result=on_result)
    if streaming:
        converter.ensure_init()
    elif results:
        last = results[-1][1]
        if output_format == "json":
            write(last)
        else:
            # At a terminal the answer is shown, never obeyed (no title, clear or bidi trick).
            stream.write(for_stream(str(last["result"]), stream) + "\n")
            stream.flush()
    return code


def _ignore(obj: dict[str, Any]) -> None:
    del obj
