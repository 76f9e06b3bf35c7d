"""Codex's ``[otel]`` settings in ``config.toml`` honoured under the Codex bridge: the
session's spans and log events go where ``trace_exporter`` and ``exporter`` say, with their
headers, the ``env`` resource attribute from ``environment`` and the prompt's text only
with ``log_user_prompt``; a real OTLP/HTTP receiver decodes what arrives. Codex 0.171's
keys: ``environment``, ``exporter``, ``trace_exporter``, ``metrics_exporter``,
``log_user_prompt``; an ``otlp-http`` exporter has ``endpoint``, ``protocol``, ``headers``."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from dsh.telemetry import codex_telemetry
from tests.cli.support import run_dsh


class Receiver:
    """Each request's path, headers and decoded resources with their items."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                decoded: Any = None
                if self.path == "/codex/traces":
                    decoded = ExportTraceServiceRequest.FromString(body)
                elif self.path == "/codex/logs":
                    decoded = ExportLogsServiceRequest.FromString(body)
                received.requests.append((self.path, dict(self.headers), decoded))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()
    r.server.server_close()


def config(url: str, *, log_user_prompt: bool) -> str:
    return f"""
[otel]
environment = "staging"
log_user_prompt = {str(log_user_prompt).lower()}
trace_exporter = {{ otlp-http = {{ endpoint = "{url}/codex/traces" }} }}

[otel.exporter.otlp-http]
endpoint = "{url}/codex/logs"
protocol = "binary"
headers = {{ "x-otlp-key" = "k1" }}
"""


def run(tmp_path: Path, toml: str, prompt: str) -> None:
    home = tmp_path / "codex-home"
    (tmp_path / "project" / ".codex").mkdir(parents=True)
    home.mkdir()
    (home / "config.toml").write_text(toml)
    script = tmp_path / "script.json"
    replies = [[{"type": "tool_use", "name": "Bash", "input": {"command": "echo one"}}],
               [{"type": "text", "text": "done"}]]  # fmt: skip
    script.write_text(json.dumps({"openai": {"rules": [{"responses": replies}]}}))
    done = run_dsh(
        "run", prompt, "--model", f"scripted:{script}", "--hooks", "codex",
        "--project", str(tmp_path / "project"), "--session-dir", str(tmp_path / "s"),
        cwd=tmp_path, env={"HOME": str(tmp_path), "CODEX_HOME": str(home)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def resource_attributes(request: Any) -> dict[str, str]:
    groups = getattr(request, "resource_spans", None) or request.resource_logs
    return {a.key: a.value.string_value for a in groups[0].resource.attributes}


def test_otel_settings_send_spans_and_events_where_they_say(
    tmp_path: Path, receiver: Receiver
) -> None:
    receiver.requests.clear()
    run(tmp_path, config(receiver.url, log_user_prompt=True), "the secret prompt")
    paths = {path for path, _, _ in receiver.requests}
    assert paths == {"/codex/traces", "/codex/logs"}  # no metrics: metrics_exporter unset
    for _path, headers, request in receiver.requests:
        assert headers.get("x-otlp-key") == "k1"
        assert resource_attributes(request)["env"] == "staging"
    spans = [
        span.name
        for path, _, request in receiver.requests
        if path == "/codex/traces"
        for rs in request.resource_spans
        for ss in rs.scope_spans
        for span in ss.spans
    ]
    assert {"dsh.session", "dsh.turn", "dsh.tool_call"} <= set(spans)
    logs = [
        record
        for path, _, request in receiver.requests
        if path == "/codex/logs"
        for rl in request.resource_logs
        for sl in rl.scope_logs
        for record in sl.log_records
    ]
    assert "the secret prompt" in str(logs)


def test_without_log_user_prompt_the_prompt_is_not_sent(tmp_path: Path, receiver: Receiver) -> None:
    receiver.requests.clear()
    run(tmp_path, config(receiver.url, log_user_prompt=False), "the secret prompt")
    assert receiver.requests
    assert not any("the secret prompt" in str(request) for _, _, request in receiver.requests)


def test_what_dsh_cannot_export_so_is_not_exported() -> None:
    assert codex_telemetry({}) is None
    assert codex_telemetry({"exporter": "none"}) is None
    grpc = {"otlp-grpc": {"endpoint": "http://127.0.0.1:4317"}}
    assert codex_telemetry({"exporter": grpc}) is None
    json_http = {"otlp-http": {"endpoint": "http://127.0.0.1:1/v1/logs", "protocol": "json"}}
    assert codex_telemetry({"exporter": json_http}) is None
    settings = codex_telemetry({"exporter": {"otlp-http": {"endpoint": "http://h/v1/logs"}}})
    assert settings is not None
    assert (settings.logs, settings.traces, settings.metrics) == ("otlp", "none", "none")
    assert settings.attributes == (("env", "dev"),)
    assert not settings.propagate_traceparent


def test_the_layers_otel_tables_merge_key_by_key_and_a_bad_one_is_named() -> None:
    from dsh.hooks.codex import CodexDiagnostic
    from dsh.hooks.codex.config._layer_keys import layer_keys

    diagnostics: list[CodexDiagnostic] = []
    configs: list[tuple[Path, dict[str, Any] | None]] = [
        (Path("/u/config.toml"), {"otel": {"environment": "prod", "log_user_prompt": True}}),
        (Path("/p/config.toml"), {"otel": {"environment": "ci"}}),
        (Path("/q/config.toml"), {"otel": "on"}),
    ]
    keys = layer_keys(configs, diagnostics)
    assert dict(keys.otel) == {"environment": "ci", "log_user_prompt": True}
    assert [(d.source, d.reason) for d in diagnostics] == [
        ("/q/config.toml", "otel: not a table: 'on'; not used")
    ]
