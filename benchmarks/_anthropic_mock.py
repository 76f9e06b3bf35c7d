"""A loopback Anthropic Messages API for the side-by-side benchmark: Claude Code's model.

``AnthropicMock`` (a context manager, like ``_codex_side.ResponsesMock``) serves
on a free port in a daemon thread. ``load(case)`` sets the script: a main-loop
request (one that offers the Bash tool) with ``i`` assistant turns in its
``messages`` gets reply ``i`` (past the end, the last), streamed as Server-Sent
Events the way the real API streams, or as one JSON message when the request
does not ask for a stream. Any other request to ``/v1/messages`` (Claude Code's
side requests: a title, a quota probe) gets a short text and is counted apart,
so it never shifts the script. Every other endpoint (token counting, model
lists, telemetry) gets a harmless JSON answer.

``main_requests`` and ``side_requests`` count what came in since ``load``
(``bodies``: the main-loop requests as sent; ``headers``: each one's request headers);
``fail_with`` (a status and an error body) makes the main-loop requests fail so;
``unknown`` lists the paths of requests the mock had no real answer for.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

from _loopback import Served
from _side_cases import Reply, SideCase

__all__ = ["AnthropicMock", "assistant_turns", "is_main_loop", "message_body", "sse_body"]

MODEL = "claude-bench"


def assistant_turns(body: dict[str, Any]) -> int:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return 0
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


def is_main_loop(body: dict[str, Any]) -> bool:
    """The agent loop's requests offer Bash; side requests offer no tools (or others)."""
    tools = body.get("tools")
    if not isinstance(tools, list):
        return False
    return any(isinstance(t, dict) and t.get("name") == "Bash" for t in tools)


def _blocks(reply: Reply, turn: int) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text or not reply.bash:
        blocks.append({"type": "text", "text": reply.text})
    for j, command in enumerate(reply.bash):
        tool_input = {"command": command, "description": f"step {turn}.{j}"}
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_{turn:02d}_{j:02d}",
                "name": "Bash",
                "input": tool_input,
            }
        )
    return blocks


def _usage(output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": 10,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _stop_reason(reply: Reply) -> str:
    return "tool_use" if reply.bash else "end_turn"


def message_body(reply: Reply, turn: int) -> dict[str, Any]:
    """The whole message, for a request without ``stream: true``."""
    return {
        "id": f"msg_{turn:04d}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": _blocks(reply, turn),
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": _usage(5),
    }


def _events(reply: Reply, turn: int) -> Iterator[tuple[str, dict[str, Any]]]:
    start = {**message_body(reply, turn), "content": [], "stop_reason": None, "usage": _usage(1)}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(_blocks(reply, turn)):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": opening},
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    stop = {"stop_reason": _stop_reason(reply), "stop_sequence": None}
    yield "message_delta", {"type": "message_delta", "delta": stop, "usage": {"output_tokens": 5}}
    yield "message_stop", {"type": "message_stop"}


def sse_body(reply: Reply, turn: int) -> bytes:
    """The event stream the Messages API sends for ``reply``."""
    return b"".join(
        f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
        for name, data in _events(reply, turn)
    )


class AnthropicMock(Served):
    def __init__(self) -> None:
        self.replies: tuple[Reply, ...] = (Reply(text="done"),)
        self.main_requests = 0
        self.side_requests = 0
        self.bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.fail_with: tuple[int, dict[str, Any]] | None = None
        self.unknown: list[str] = []
        self._lock = threading.Lock()
        super().__init__(self._handler())

    def load(self, case: SideCase) -> None:
        with self._lock:
            self.replies = case.replies
            self.main_requests = 0
            self.side_requests = 0
            self.bodies = []
            self.headers = []
            self.unknown = []

    def answer(
        self, path: str, raw: bytes, headers: dict[str, str] | None = None
    ) -> tuple[str, bytes]:
        """The content type and body for a POST to ``path``."""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        if path.endswith("/v1/messages/count_tokens"):
            return "application/json", b'{"input_tokens": 10}'
        if not path.endswith("/v1/messages"):
            with self._lock:
                self.unknown.append(path)
            return "application/json", b"{}"
        if is_main_loop(body):
            turn = assistant_turns(body)
            with self._lock:
                self.main_requests += 1
                self.bodies.append(raw)
                self.headers.append(dict(headers or {}))
                reply = self.replies[min(turn, len(self.replies) - 1)]
        else:
            turn = 99
            with self._lock:
                self.side_requests += 1
            reply = Reply(text="ok")
        if body.get("stream"):
            return "text/event-stream", sse_body(reply, turn)
        return "application/json", json.dumps(message_body(reply, turn)).encode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, kind: str, data: bytes, status: int = 200) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", "req_bench")
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = self.path.split("?", 1)[0]
                failing = mock.fail_with
                if failing is not None and path.endswith("/v1/messages"):
                    with mock._lock:
                        mock.main_requests += 1
                        mock.headers.append({k.lower(): v for k, v in self.headers.items()})
                    self._send("application/json", json.dumps(failing[1]).encode(), failing[0])
                    return
                seen = {k.lower(): v for k, v in self.headers.items()}
                self._send(*mock.answer(path, raw, seen))

            def do_GET(self) -> None:
                with mock._lock:
                    mock.unknown.append(self.path)
                data = b'{"data": [], "has_more": false}' if "/models" in self.path else b"{}"
                self._send("application/json", data)

            def do_HEAD(self) -> None:
                self._send("application/json", b"")

        return Handler
