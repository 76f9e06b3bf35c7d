"""Which signals to export and how: from the environment, as Claude Code reads it, or from
Codex's ``[otel]`` settings in its ``config.toml`` (``codex_telemetry``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, final

from dsh._frozen import frozen

__all__ = ["Exporter", "TelemetrySettings", "codex_telemetry", "telemetry_settings"]

Exporter: TypeAlias = Literal["otlp", "console", "none"]

logger = logging.getLogger(__name__)


@final
@frozen(kw_only=True)
class TelemetrySettings:
    """The exporter of each signal, the intervals (ms), whether prompts are logged, and
    whether hooks get ``TRACEPARENT`` (on with traces, or ``CLAUDE_CODE_PROPAGATE_TRACEPARENT``)."""

    traces: Exporter = "none"
    metrics: Exporter = "none"
    logs: Exporter = "none"
    metric_interval_ms: int = 60000
    logs_interval_ms: int = 5000
    log_user_prompts: bool = False
    propagate_traceparent: bool = False
    traces_endpoint: str | None = None
    """Where each signal goes, as given (``None``: the ``OTEL_*`` variables' or the default)."""
    metrics_endpoint: str | None = None
    logs_endpoint: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    """Headers of every export request (Codex's ``headers``; else ``OTEL_*_HEADERS``')."""
    attributes: tuple[tuple[str, str], ...] = ()
    """Resource attributes besides dsh's own (Codex's ``environment`` as ``env``)."""

    @property
    def on(self) -> bool:
        return "otlp" in (self.traces, self.metrics, self.logs) or "console" in (
            self.traces,
            self.metrics,
            self.logs,
        )


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _exporter(env: Mapping[str, str], name: str) -> Exporter:
    value = env.get(name, "none").strip().lower() or "none"
    first = value.split(",")[0].strip()
    if first in ("otlp", "console", "none"):
        return first  # type: ignore[return-value]
    logger.warning("%s=%s: dsh exports otlp, console or none; not exported", name, value)
    return "none"


def _interval(env: Mapping[str, str], name: str, default: int) -> int:
    try:
        return max(1, int(env.get(name, default)))
    except ValueError:
        return default


def telemetry_settings(env: Mapping[str, str]) -> TelemetrySettings | None:
    """The settings ``env`` asks for, or ``None`` when export is off (the common case:
    ``CLAUDE_CODE_ENABLE_TELEMETRY`` not set, or no signal with an exporter)."""
    if not _truthy(env.get("CLAUDE_CODE_ENABLE_TELEMETRY")):
        return None
    protocol = env.get("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    if protocol != "http/protobuf":
        logger.warning("OTEL_EXPORTER_OTLP_PROTOCOL=%s: dsh exports http/protobuf", protocol)
    traces = _exporter(env, "OTEL_TRACES_EXPORTER")
    settings = TelemetrySettings(
        traces=traces,
        metrics=_exporter(env, "OTEL_METRICS_EXPORTER"),
        logs=_exporter(env, "OTEL_LOGS_EXPORTER"),
        metric_interval_ms=_interval(env, "OTEL_METRIC_EXPORT_INTERVAL", 60000),
        logs_interval_ms=_interval(env, "OTEL_LOGS_EXPORT_INTERVAL", 5000),
        log_user_prompts=_truthy(env.get("OTEL_LOG_USER_PROMPTS")),
        propagate_traceparent=traces != "none"
        or _truthy(env.get("CLAUDE_CODE_PROPAGATE_TRACEPARENT")),
    )
    return settings if settings.on else None


_CODEX_SIGNALS: dict[str, str] = {
    "trace_exporter": "traces",
    "metrics_exporter": "metrics",
    "exporter": "logs",
}


def _codex_exporter(key: str, value: object) -> tuple[Exporter, str | None, dict[str, str]]:
    """One of Codex's exporter values: ``"none"`` or ``{otlp-http = {endpoint, protocol,
    headers}}``; what dsh cannot export so (``otlp-grpc``, ``protocol = "json"``, another
    name) is warned about and not exported."""
    if value is None or value == "none":
        return "none", None, {}
    http = value.get("otlp-http") if isinstance(value, Mapping) and len(value) == 1 else None
    if not isinstance(http, Mapping) or not isinstance(http.get("endpoint"), str):
        logger.warning("[otel] %s = %r: dsh exports otlp-http with an endpoint; not exported",
                       key, value)  # fmt: skip
        return "none", None, {}
    protocol = http.get("protocol", "binary")
    if protocol != "binary":
        logger.warning("[otel] %s: protocol %r: dsh sends binary; not exported", key, protocol)
        return "none", None, {}
    headers = http.get("headers") or {}
    if not isinstance(headers, Mapping):
        headers = {}
    return "otlp", http["endpoint"], {str(k): str(v) for k, v in headers.items()}


def codex_telemetry(table: Mapping[str, Any]) -> TelemetrySettings | None:
    """What Codex's ``[otel]`` table asks for (``exporter``: the log events;
    ``trace_exporter``: the spans; ``metrics_exporter``: the metrics; ``environment``: the
    ``env`` resource attribute, ``dev`` by default; ``log_user_prompt``), or ``None`` when
    it exports nothing."""
    chosen: dict[str, Any] = {}
    headers: dict[str, str] = {}
    for key, signal in _CODEX_SIGNALS.items():
        exporter, endpoint, more = _codex_exporter(key, table.get(key))
        chosen[signal] = exporter
        chosen[f"{signal}_endpoint"] = endpoint
        headers.update(more)
    environment = table.get("environment", "dev")
    settings = TelemetrySettings(
        **chosen,
        log_user_prompts=table.get("log_user_prompt") is True,
        propagate_traceparent=chosen["traces"] != "none",
        headers=tuple(sorted(headers.items())),
        attributes=(("env", str(environment)),),
    )
    return settings if settings.on else None
