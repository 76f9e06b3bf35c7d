"""Loopback HTTP servers for the benchmarks and recordings.

``Served``: a server of any handler on a free loopback port, served in a daemon thread while
entered (the mocks of ``_anthropic_mock`` and ``_claude_recording`` are ones).

A loopback chat-completions server for the benchmarks: one SSE body per request.

``LoopbackServer(answer)`` serves on a free port in a daemon thread; ``answer``
gets each request's raw body and returns the event-stream bytes to send back.
Nagle is off (a header write then a body write would otherwise wait out a
delayed ACK: ~40 ms a request). ``arrivals`` holds when each request came in.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

__all__ = ["LoopbackServer", "Served"]


class Served:
    """``handler`` served on a free loopback port (``url``) in a daemon thread while entered."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class LoopbackServer:
    def __init__(self, answer: Callable[[bytes], bytes]) -> None:
        self.arrivals: list[float] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                server.arrivals.append(time.perf_counter())
                data = answer(self.rfile.read(int(self.headers["Content-Length"])))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
