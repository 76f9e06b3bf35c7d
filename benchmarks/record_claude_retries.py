"""Record how the real Claude Code retries a failed API request (issue 28).

usage: python benchmarks/record_claude_retries.py CLAUDE OUT.json

Runs ``CLAUDE -p`` (2.1.332) once per case against a loopback server that answers every
main request (one offering tools) with the case's HTTP status and an Anthropic error body,
headless, in a private ``CLAUDE_CONFIG_DIR``, with the case's ``CLAUDE_CODE_MAX_RETRIES``
(and a ``retry-after`` header for one case). Keeps, per request, its time since the start,
its ``anthropic-beta`` header, how many tools it offered and its ``thinking``: a 400 is sent
six times at once with degraded requests whatever ``CLAUDE_CODE_MAX_RETRIES`` says, other
statuses (401 included) are retried with backoff up to ``CLAUDE_CODE_MAX_RETRIES``. Never
run by ``make test``; its output is the fixture ``tests/fixtures/claude_api_retries.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
# status, the case's environment, extra response headers
CASES: list[tuple[int, dict[str, str], dict[str, str]]] = [
    (400, {}, {}),
    (400, {"CLAUDE_CODE_MAX_RETRIES": "0"}, {}),
    (429, {"CLAUDE_CODE_MAX_RETRIES": "0"}, {}),
    (429, {"CLAUDE_CODE_MAX_RETRIES": "2"}, {}),
    (429, {"CLAUDE_CODE_MAX_RETRIES": "2"}, {"retry-after": "1"}),
    (500, {"CLAUDE_CODE_MAX_RETRIES": "1"}, {}),
    (401, {}, {}),
]


class _Server(ThreadingHTTPServer):
    def __init__(self, status: int, headers: dict[str, str]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.status, self.headers = status, headers
        self.log: list[dict[str, Any]] = []
        self.start = 0.0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, data: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.loads(raw or b"{}")
        if "count_tokens" in self.path:
            self._send(200, b'{"input_tokens": 10}', {})
            return
        server = self.server
        beta = self.headers.get("anthropic-beta") or ""
        server.log.append(
            {
                "t": round(time.time() - server.start, 2),
                "beta": beta.split(",") if beta else [],
                "tools": len(body.get("tools") or []),
                "thinking": body.get("thinking"),
            }
        )
        kind = _ERROR_TYPES.get(server.status, "api_error")
        error = {"type": "error", "error": {"type": kind, "message": f"CASE-MOCK-{server.status}"}}
        self._send(server.status, json.dumps(error).encode(), server.headers)

    def do_GET(self) -> None:
        self._send(404, b"{}", {})


def record(claude: str, status: int, env: dict[str, str], headers: dict[str, str]) -> Any:
    server = _Server(status, headers)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "p"
        home.mkdir()
        project.mkdir()
        environ = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
            "ANTHROPIC_API_KEY": "dummy",
            "IS_SANDBOX": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            **env,
        }
        server.start = time.time()
        argv = [claude, "-p", "Please run echo hi", "--output-format", "json"]
        done = subprocess.run(
            [*argv, "--dangerously-skip-permissions"],
            cwd=project,
            env=environ,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    server.shutdown()
    server.server_close()
    return {
        "status": status,
        "env": env,
        "headers": headers,
        "exit": done.returncode,
        "requests": server.log,
    }


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    claude, out = sys.argv[1], Path(sys.argv[2])
    cases = [record(claude, status, env, headers) for status, env, headers in CASES]
    out.write_text(json.dumps({"cli_version": "2.1.332 (Claude Code)", "cases": cases}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
