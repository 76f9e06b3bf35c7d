"""A real HTTP server for HTTP hooks' tests: answers per path as a test says, records requests.

One per test module (a fixture of module scope), on loopback, in a thread. ``answer(path,
*answers)`` sets what the next calls to ``path`` get (the last one repeats): a status, a body
(a JSON value, or text as it is), headers, and a delay in seconds before the answer (for the
timeout test; ``hold`` keeps the request open until the test ends it). Requests come back
from ``requests()`` as the recording's ``http_hook_requests`` hold them: method, path,
headers as received (``Host`` and ``Content-Length`` dropped), body (JSON when it parses).
A request in absolute form (``POST http://host/path``: sent to a proxy) keeps its full URL
as its path.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class HookServer:
    def __init__(self) -> None:
        self._answers: dict[str, list[dict[str, Any]]] = {}
        self._requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def handle(self) -> None:
                # A client that gave up (a timeout, a body cut at the cap) is no error.
                with contextlib.suppress(ConnectionError):
                    super().handle()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                headers = {
                    k: v for k, v in self.headers.items() if k not in ("Host", "Content-Length")
                }
                answer = server._record(
                    self.path,
                    {"method": "POST", "path": self.path, "headers": headers, "body": body},
                )
                if answer.get("hold"):
                    server.release.wait(30)
                    return
                status = answer.get("status", 200)
                data = answer.get("body", "")
                out = data.encode() if isinstance(data, str) else json.dumps(data).encode()
                if "size" in answer:
                    out = b"x" * answer["size"]
                self.send_response(status)
                for name, value in answer.get("headers", {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _record(self, path: str, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._requests.append(request)
            queue = self._answers.get(path.split("?")[0]) or [{}]
            return queue.pop(0) if len(queue) > 1 else queue[0]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def answer(self, path: str, *answers: dict[str, Any]) -> None:
        with self._lock:
            self._answers[path] = list(answers)

    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._requests)

    def reset(self) -> None:
        with self._lock:
            self._answers.clear()
            self._requests.clear()
        self.release.set()
        self.release = threading.Event()


def serve() -> Iterator[HookServer]:
    """The server for a module's tests: started, then shut down."""
    server = HookServer()
    server.thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.httpd.shutdown()
        server.httpd.server_close()
