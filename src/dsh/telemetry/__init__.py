"""OpenTelemetry export of a session: traces, metrics and log events, off unless asked for.

As Claude Code's: ``CLAUDE_CODE_ENABLE_TELEMETRY=1`` turns it on, and the
standard ``OTEL_*`` variables choose what goes where (``OTEL_TRACES_EXPORTER``,
``OTEL_METRICS_EXPORTER``, ``OTEL_LOGS_EXPORTER``: ``otlp``, ``console`` or
``none``; ``OTEL_EXPORTER_OTLP_ENDPOINT`` and the per-signal endpoints,
``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_METRIC_EXPORT_INTERVAL``,
``OTEL_LOGS_EXPORT_INTERVAL``, ``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_LOG_USER_PROMPTS``),
over OTLP/HTTP (``http/protobuf``). ``telemetry_settings`` reads them
(no OpenTelemetry import); ``observed_store`` wraps a session store so each
session's log feeds the exporters (``_export``, which imports the SDK, only then).

Everything is derived from the session log as it is written: a span per
session, turn, step, model request, tool call and hook run (with its decision,
who made it and why), the metrics and events Claude Code names
(``claude_code.session.count``, ``claude_code.token.usage``,
``claude_code.user_prompt``, ``claude_code.api_request``,
``claude_code.tool_result``) and dsh's own (``dsh.hook.count``,
``dsh.hook_result``). A hook run gets ``TRACEPARENT`` naming its span, as
Claude Code 2.1.332 passes it when tracing is on.

Under the Codex bridge, Codex's ``[otel]`` settings in ``config.toml`` do the same when the
environment asks for nothing (``codex_telemetry``: ``exporter`` for the log events,
``trace_exporter`` for the spans, ``metrics_exporter``, their ``otlp-http`` endpoint and
headers, ``environment`` and ``log_user_prompt``).
"""

from dsh._public import publish
from dsh.telemetry._settings import TelemetrySettings, codex_telemetry, telemetry_settings

__all__ = ["TelemetrySettings", "codex_telemetry", "observed_store", "telemetry_settings"]


def observed_store(store: object, settings: TelemetrySettings) -> object:
    """``store`` (a ``SessionStore``) whose sessions' logs feed the exporters ``settings``
    turn on; the OpenTelemetry SDK is imported here, the first time."""
    from dsh.telemetry._store import ObservedStore

    return ObservedStore(store, settings)  # type: ignore[arg-type]


publish(globals())
