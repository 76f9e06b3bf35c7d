"""A real chat-completions HTTP server on loopback, answering from a queue of canned replies."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One canned answer: a JSON body, or SSE chunks (then ``data: [DONE]`` unless ``cut``).

    ``stream`` is a raw event-stream body instead of ``chunks``. ``hold`` keeps the
    connection open after the body until the client closes it; ``stall`` sends
    nothing at all until then. Either way the server's ``disconnected`` is set.
    """

    status: int = 200
    body: Any = None
    chunks: Sequence[Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    cut: bool = False  # stop mid-body: promise more bytes than are sent, then close
    stream: bytes | None = None
    hold: bool = False
    stall: bool = False


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any
    peer: tuple[str, int] = ("", 0)  # the client's address: the same for a reused connection


class ChatServer:
    def __init__(self, replies: Sequence[Reply], *, keep_alive: bool = False) -> None:
        self.replies = list(replies)
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self.disconnected = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            # HTTP/1.1 keeps the connection open for the next request (Content-Length is sent).
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                with server._lock:
                    server.seen.append(
                        Seen(
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            json.loads(raw),
                            self.client_address[:2],
                        )
                    )
                    reply = (
                        server.replies.pop(0)
                        if server.replies
                        else Reply(500, {"error": {"message": "test server: no reply left"}})
                    )
                if reply.stall:
                    self._wait_for_close()
                    return
                if reply.stream is not None:
                    payload = reply.stream
                    content_type = "text/event-stream"
                elif reply.chunks is not None:
                    payload = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in reply.chunks)
                    if not (reply.cut or reply.hold):
                        payload += b"data: [DONE]\n\n"
                    content_type = "text/event-stream"
                else:
                    payload = json.dumps(reply.body).encode()
                    content_type = "application/json"
                self.send_response(reply.status)
                self.send_header("Content-Type", content_type)
                if not reply.hold:
                    length = len(payload) + (1000 if reply.cut else 0)
                    self.send_header("Content-Length", str(length))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()
                if reply.hold:
                    self._wait_for_close()

            def _wait_for_close(self) -> None:
                # The client sends nothing more on this connection: EOF is its close.
                try:
                    self.rfile.read(1)
                finally:
                    server.disconnected.set()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


@contextmanager
def serving(*replies: Reply, keep_alive: bool = False) -> Iterator[ChatServer]:
    server = ChatServer(replies, keep_alive=keep_alive)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def completion(
    content: str | None = None, tool_calls: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
    }


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def error_body(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "test_error", "code": None}}
