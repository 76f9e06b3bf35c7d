"""The OpenTelemetry side: the exporters, and a session's log turned into spans, metrics, events.

``Exporters`` builds the SDK's providers once (OTLP/HTTP or console, per
signal, with a ``dsh`` resource that ``OTEL_RESOURCE_ATTRIBUTES`` extends) and
gives each session a ``LogTracer``. The tracer reads the session's events as
they are written and keeps the spans open between them, each with the time of
the events that bound it: ``dsh.session`` > ``dsh.turn`` > ``dsh.step`` >
``dsh.model_request`` and ``dsh.tool_call`` > ``dsh.hook`` (a hook run: its
event, the phase it ran in, where it was declared, its exit, its decision or
why it had none). A hook run's ``TRACEPARENT`` names its span.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor, ConsoleLogRecordExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import ConsoleMetricExporter, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
from opentelemetry.trace import Span, Status, StatusCode

from dsh import __version__
from dsh.hook_protocol import add_hook_variables
from dsh.session import SessionEvent
from dsh.telemetry._settings import TelemetrySettings

__all__ = ["Exporters", "LogTracer"]

_PHASE: Final = {
    "PreToolUse": "pre-execute",
    "PermissionRequest": "approval",
    "PostToolUse": "post-execute",
    "PostToolUseFailure": "post-execute",
}
"""The tool-call phase a hook event runs in (the others run at the turn's seams)."""

_TEXT_LIMIT: Final = 4096


def _ns(event: SessionEvent) -> int:
    return int(event.time * 1e9)


def _json(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= _TEXT_LIMIT else text[:_TEXT_LIMIT] + "…"


def _tool_name(span: Span | None) -> str | None:
    attributes = getattr(span, "attributes", None) or {}
    name = attributes.get("tool_name")
    return name if isinstance(name, str) else None


class Exporters:
    """The providers of the signals ``settings`` turns on (``None`` for the others)."""

    def __init__(self, settings: TelemetrySettings) -> None:
        self.settings = settings
        resource = Resource.create(
            {"service.name": "dsh", "service.version": __version__, **dict(settings.attributes)}
        )
        headers = dict(settings.headers) or None
        self.traces: TracerProvider | None = None
        self.metrics: MeterProvider | None = None
        self.logs: LoggerProvider | None = None
        if settings.traces != "none":
            self.traces = TracerProvider(resource=resource)
            span_exporter = (
                OTLPSpanExporter(settings.traces_endpoint, headers=headers)
                if settings.traces == "otlp"
                else ConsoleSpanExporter()
            )
            self.traces.add_span_processor(BatchSpanProcessor(span_exporter))
        if settings.metrics != "none":
            metric_exporter = (
                OTLPMetricExporter(settings.metrics_endpoint, headers=headers)
                if settings.metrics == "otlp"
                else ConsoleMetricExporter()
            )
            reader = PeriodicExportingMetricReader(
                metric_exporter, export_interval_millis=settings.metric_interval_ms
            )
            self.metrics = MeterProvider(resource=resource, metric_readers=[reader])
        if settings.logs != "none":
            self.logs = LoggerProvider(resource=resource)
            log_exporter = (
                OTLPLogExporter(settings.logs_endpoint, headers=headers)
                if settings.logs == "otlp"
                else ConsoleLogRecordExporter()
            )
            self.logs.add_log_record_processor(
                BatchLogRecordProcessor(
                    log_exporter, schedule_delay_millis=settings.logs_interval_ms
                )
            )

    def tracer(self, session_id: str) -> LogTracer:
        return LogTracer(self, session_id)

    def flush(self) -> None:
        """Send what is buffered now (a session ended; the process may exit next)."""
        for provider in (self.traces, self.metrics, self.logs):
            if provider is not None:
                provider.force_flush()


class LogTracer:
    """One session's events, as they are written, into spans, metrics and log events."""

    def __init__(self, exporters: Exporters, session_id: str) -> None:
        self.exporters = exporters
        self.session_id = session_id
        provider = exporters.traces
        self._tracer = provider.get_tracer("dsh") if provider is not None else None
        meter = exporters.metrics.get_meter("dsh") if exporters.metrics is not None else None
        self._sessions = meter.create_counter("claude_code.session.count") if meter else None
        self._tokens = (
            meter.create_counter("claude_code.token.usage", unit="tokens") if meter else None
        )
        self._hooks = meter.create_counter("dsh.hook.count") if meter else None
        self._logger = exporters.logs.get_logger("dsh") if exporters.logs is not None else None
        self._session: Span | None = None
        self._turn: Span | None = None
        self._step: Span | None = None
        self._tools: dict[str, Span] = {}
        self._hook_runs: dict[str, tuple[Span, tuple[str, str, int, int]]] = {}
        self._last = 0
        self._closed = False
        self._remove = (
            add_hook_variables(self._traceparent)
            if exporters.settings.propagate_traceparent and self._tracer is not None
            else None
        )

    # -- spans ------------------------------------------------------------------

    def _start(self, name: str, parent: Span | None, at: int, **attributes: Any) -> Span:
        assert self._tracer is not None
        context = trace.set_span_in_context(parent) if parent is not None else None
        attrs = {k.replace("__", "."): v for k, v in attributes.items() if v is not None}
        return self._tracer.start_span(name, context=context, start_time=at, attributes=attrs)

    def _traceparent(self, origin: Any) -> Mapping[str, str]:
        """``TRACEPARENT`` for a hook run from ``origin``: its span's, else the turn's."""
        key = (origin.source, origin.event, origin.group, origin.index)
        span = next((s for s, k in reversed(self._hook_runs.values()) if k == key), None)
        span = span or self._turn or self._session
        if span is None:
            return {}
        ctx = span.get_span_context()
        return {"TRACEPARENT": f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-01"}

    def observe(self, events: Iterable[SessionEvent]) -> None:
        for event in events:
            if self._closed:
                return
            at = _ns(event)
            if self._session is None and self._tracer is not None:
                self._session = self._start("dsh.session", None, at, session__id=self.session_id)
            if self._sessions is not None and self._last == 0:
                self._sessions.add(1, {"session.id": self.session_id})
            self._one(event, at)
            self._last = at

    def _one(self, event: SessionEvent, at: int) -> None:
        kind = event.type

        def get(name: str) -> Any:
            return getattr(event, name, None)

        if kind == "user/message":
            self._event("claude_code.user_prompt", at, self._prompt(event))
        elif kind == "assistant/message":
            self._model_reply(event, at)
        if self._tracer is None:
            self._logs_only(event, at)
            return
        if kind == "turn/start":
            self._end_step(at)
            self._turn = self._start("dsh.turn", self._session, at, turn__id=event.turn_id)
        elif kind == "turn/end" and self._turn is not None:
            self._end_step(at)
            self._turn.set_attribute("dsh.turn.end_reason", str(get("reason")))
            self._turn.end(end_time=at)
            self._turn = None
        elif kind == "tool/call":
            parent = self._step or self._turn or self._session
            name = str(get("tool_name"))
            self._tools[str(get("token"))] = self._start(
                "dsh.tool_call",
                parent,
                at,
                tool_name=name,
                dsh__tool__arguments=_json(get("arguments")),
            )
        elif kind == "tool/result":
            self._tool_result(event, at)
        elif kind == "hook/invocation":
            self._hook_started(event, at)
        elif kind == "hook/result":
            self._hook_result(event, at)

    def _end_step(self, at: int) -> None:
        if self._step is not None:
            for span in self._tools.values():
                span.end(end_time=at)
            self._tools.clear()
            self._step.end(end_time=at)
            self._step = None

    def _model_reply(self, event: SessionEvent, at: int) -> None:
        usage = getattr(event, "usage", None)
        model = str(getattr(event, "model", "") or "")
        tokens = {
            "input": getattr(usage, "input_tokens", 0) or 0,
            "output": getattr(usage, "output_tokens", 0) or 0,
        }
        if self._tokens is not None:
            for kind, count in tokens.items():
                if count:
                    self._tokens.add(count, {"type": kind, "model": model})
        duration_ms = max(0, (at - self._last) // 1_000_000) if self._last else 0
        self._event(
            "claude_code.api_request",
            at,
            {"model": model, "duration_ms": duration_ms, "input_tokens": tokens["input"],
             "output_tokens": tokens["output"]},
        )  # fmt: skip
        if self._tracer is None:
            return
        self._end_step(at)
        start = self._last or at
        self._step = self._start("dsh.step", self._turn or self._session, start)
        request = self._start("dsh.model_request", self._step, start, model=model)
        request.set_attribute("input_tokens", tokens["input"])
        request.set_attribute("output_tokens", tokens["output"])
        calls = getattr(event, "tool_calls", None) or ()
        request.set_attribute("dsh.reply.tool_calls", len(calls))
        request.end(end_time=at)

    def _tool_result(self, event: SessionEvent, at: int) -> None:
        span = self._tools.pop(str(getattr(event, "token", "")), None)
        info = getattr(event, "info", None)
        decided_by = info.get("decided_by") if isinstance(info, Mapping) else None
        attributes = {
            "tool_name": _tool_name(span),
            "success": not getattr(event, "is_error", False),
            "dsh.tool.code": getattr(event, "code", None),
            "dsh.tool.dispatched": getattr(event, "dispatched", True),
            "decision_source": decided_by,
        }
        self._event("claude_code.tool_result", at, attributes)
        if span is None:
            return
        for key, value in attributes.items():
            if value is not None:
                span.set_attribute(key, value)
        if getattr(event, "is_error", False):
            span.set_status(Status(StatusCode.ERROR, str(getattr(event, "code", ""))))
        span.end(end_time=at)

    def _hook_started(self, event: SessionEvent, at: int) -> None:
        hook_event = str(getattr(event, "hook_event", ""))
        group, index = getattr(event, "group", 0), getattr(event, "index", 0)
        parent = next(reversed(self._tools.values()), None) if self._tools else None
        parent = parent or self._step or self._turn or self._session
        span = self._start(
            "dsh.hook",
            parent,
            at,
            hook_event=hook_event,
            dsh__hook__phase=_PHASE.get(hook_event, "turn"),
            dsh__hook__source=getattr(event, "source", None),
            dsh__hook__plugin=getattr(event, "plugin", None),
            dsh__hook__place=f"{hook_event}[{group}][{index}]",
            dsh__hook__command=" ".join(getattr(event, "command", ()) or ()),
        )
        key = (
            str(getattr(event, "source", "")),
            hook_event,
            getattr(event, "group", 0),
            getattr(event, "index", 0),
        )
        self._hook_runs[event.id] = (span, key)

    def _hook_result(self, event: SessionEvent, at: int) -> None:
        found = self._hook_runs.pop(str(getattr(event, "invocation_id", "")), None)
        decision = getattr(event, "decision", None)
        why = getattr(event, "no_decision", None)
        attributes = {
            "hook_event": getattr(event, "hook_event", None),
            "dsh.hook.exit_code": getattr(event, "exit_code", None),
            "dsh.hook.timed_out": getattr(event, "timed_out", False),
            "dsh.hook.decision": _json(decision) if decision is not None else None,
            "dsh.hook.no_decision": str(why) if why is not None else None,
            "dsh.hook.reason": getattr(event, "reason", None),
            "dsh.hook.failed_closed": getattr(event, "failed_closed", False),
        }
        if self._hooks is not None:
            self._hooks.add(
                1, {"hook_event": str(attributes["hook_event"]), "decided": decision is not None}
            )
        self._event("dsh.hook_result", at, attributes)
        if found is None:
            return
        span = found[0]
        for key, value in attributes.items():
            if value is not None:
                span.set_attribute(key, value)
        span.end(end_time=at)

    # -- log events ---------------------------------------------------------------

    def _prompt(self, event: SessionEvent) -> dict[str, Any]:
        from dsh.messages import content_text

        text = content_text(getattr(event, "content", "") or "")
        attributes: dict[str, Any] = {"prompt_length": len(text)}
        if self.exporters.settings.log_user_prompts:
            attributes["prompt"] = text[:_TEXT_LIMIT]
        return attributes

    def _logs_only(self, event: SessionEvent, at: int) -> None:
        if event.type == "tool/result":
            self._tool_result(event, at)
        elif event.type == "hook/result":
            self._hook_result(event, at)

    def _event(self, name: str, at: int, attributes: Mapping[str, Any]) -> None:
        if self._logger is None:
            return
        attrs = {k: v for k, v in attributes.items() if v is not None}
        attrs.update({"event.name": name, "session.id": self.session_id})
        self._logger.emit(timestamp=at, body=name, attributes=attrs, event_name=name)

    def close(self) -> None:
        """End every open span at the last event's time and flush the exporters."""
        if self._closed:
            return
        self._closed = True
        if self._remove is not None:
            self._remove()
        at = self._last
        for span, _ in self._hook_runs.values():
            span.end(end_time=at)
        self._end_step(at)
        for span in self._tools.values():
            span.end(end_time=at)
        for last in (self._turn, self._session):
            if last is not None:
                last.end(end_time=at)
        self.exporters.flush()
