"""A loopback chat-completions server for the benchmarks: one SSE body per request.

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
from typing import Any

__all__ = ["LoopbackServer"]


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
