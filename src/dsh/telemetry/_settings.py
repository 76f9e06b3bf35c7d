"""Which signals to export and how, from the environment, as Claude Code reads it."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Literal, TypeAlias, final

from dsh._frozen import frozen

__all__ = ["Exporter", "TelemetrySettings", "telemetry_settings"]

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
