"""OpenTelemetry export against a real OTLP/HTTP receiver the test starts.

``dsh run`` with Claude Code's variables (``CLAUDE_CODE_ENABLE_TELEMETRY=1``, the three
``OTEL_*_EXPORTER=otlp``, ``OTEL_EXPORTER_OTLP_ENDPOINT``) and hooks that record their
``TRACEPARENT``: the receiver decodes what arrives with ``opentelemetry-proto``. A span per
hook run (as many as the log's ``hook/result`` events), nested session > turn > step >
tool call > hook, each hook's ``TRACEPARENT`` its own span; the metrics and the events
Claude Code names; nothing exported, and no OpenTelemetry imported, when export is off.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.cli.support import run_dsh


class Receiver:
    """An OTLP/HTTP receiver on loopback: every request's decoded body, by signal."""

    def __init__(self) -> None:
        self.spans: list[Any] = []
        self.metrics: list[Any] = []
        self.logs: list[Any] = []
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path == "/v1/traces":
                    request = ExportTraceServiceRequest.FromString(body)
                    for rs in request.resource_spans:
                        for ss in rs.scope_spans:
                            received.spans.extend(ss.spans)
                elif self.path == "/v1/metrics":
                    request_m = ExportMetricsServiceRequest.FromString(body)
                    for rm in request_m.resource_metrics:
                        for sm in rm.scope_metrics:
                            received.metrics.extend(sm.metrics)
                elif self.path == "/v1/logs":
                    request_l = ExportLogsServiceRequest.FromString(body)
                    for rl in request_l.resource_logs:
                        for sl in rl.scope_logs:
                            received.logs.extend(sl.log_records)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


RECORD = """
import json, os, sys
payload = json.load(sys.stdin)
with open(os.environ["TRACE_LOG"], "a") as f:
    f.write(json.dumps([payload["hook_event_name"], os.environ.get("TRACEPARENT")]) + "\\n")
"""


def run_session(tmp_path: Path, env: dict[str, str]) -> tuple[Path, Path]:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (tmp_path / "record.py").write_text(RECORD)
    command = {"type": "command", "command": f"{sys.executable} {tmp_path / 'record.py'}"}
    hooks = {
        event: [{"hooks": [command]}]
        for event in ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
    }
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    script = tmp_path / "script.json"
    replies = [
        [{"type": "tool_use", "name": "Bash", "input": {"command": "echo one"}}],
        [{"type": "tool_use", "name": "Bash", "input": {"command": "echo two"}}],
        [{"type": "text", "text": "done"}],
    ]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": replies}]}}))
    sessions = tmp_path / "sessions"
    trace_log = tmp_path / "traceparents.jsonl"
    done = run_dsh(
        "run", "go", "--model", f"scripted:{script}", "--project", str(project),
        "--session-dir", str(sessions), "--trust-project",
        "--permission-mode", "bypassPermissions", cwd=tmp_path,
        env={"HOME": str(tmp_path), "TRACE_LOG": str(trace_log), **env},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (log,) = sessions.glob("*.jsonl")
    return log, trace_log


def test_a_span_per_hook_run_nested_in_the_session_with_traceparent(
    receiver: Receiver, tmp_path: Path
) -> None:
    env = {
        "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_LOGS_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
    }
    log, trace_log = run_session(tmp_path, env)
    events = [json.loads(line) for line in log.read_text().splitlines()]
    results = [e for e in events if e["type"] == "hook/result"]
    spans = list(receiver.spans)
    hooks = [s for s in spans if s.name == "dsh.hook"]
    assert len(results) == 6  # UserPromptSubmit, 2 x (PreToolUse, PostToolUse), Stop
    assert len(hooks) == len(results)
    by_id = {s.span_id: s for s in spans}
    (session,) = [s for s in spans if s.name == "dsh.session"]
    assert len({s.trace_id for s in spans}) == 1

    def chain(span: Any) -> list[str]:
        names = [span.name]
        while span.parent_span_id:
            span = by_id[span.parent_span_id]
            names.append(span.name)
        return names

    assert [s.name for s in spans if s.name == "dsh.turn"] == ["dsh.turn"]
    assert len([s for s in spans if s.name == "dsh.model_request"]) == 3
    assert len([s for s in spans if s.name == "dsh.tool_call"]) == 2
    chains = sorted({tuple(chain(s)) for s in hooks})
    assert ("dsh.hook", "dsh.turn", "dsh.session") in chains  # UserPromptSubmit, Stop
    assert ("dsh.hook", "dsh.tool_call", "dsh.step", "dsh.turn", "dsh.session") in chains
    attributes = {kv.key: kv.value.string_value or kv.value.int_value for kv in hooks[0].attributes}
    assert attributes["hook_event"] == "UserPromptSubmit"
    assert attributes["dsh.hook.exit_code"] == 0 or "dsh.hook.decision" in attributes
    # Each hook's TRACEPARENT names its own span, in the session's trace.
    seen = [json.loads(line) for line in trace_log.read_text().splitlines()]
    assert len(seen) == len(hooks)
    hook_ids = {(s.trace_id.hex(), s.span_id.hex()) for s in hooks}
    for _, parent in seen:
        version, trace_id, span_id, flags = parent.split("-")
        assert (version, flags) == ("00", "01")
        assert (trace_id, span_id) in hook_ids
    assert session.trace_id.hex() == seen[0][1].split("-")[1]
    metric_names = {m.name for m in receiver.metrics}
    assert {"claude_code.session.count", "dsh.hook.count"} <= metric_names
    log_names = {r.event_name or r.body.string_value for r in receiver.logs}
    assert {"claude_code.user_prompt", "claude_code.api_request", "claude_code.tool_result",
            "dsh.hook_result"} <= log_names  # fmt: skip


def test_off_by_default_nothing_is_sent_and_hooks_get_no_traceparent(
    receiver: Receiver, tmp_path: Path
) -> None:
    before = len(receiver.spans)
    _, trace_log = run_session(tmp_path, {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint})
    assert len(receiver.spans) == before
    assert all(parent is None for _, parent in map(json.loads, trace_log.read_text().splitlines()))
