"""One ASGI app speaking the three wire formats, and real servers to run it on.

The app answers ``POST /v1/chat/completions``, ``/v1/messages`` and ``/v1/responses``
with a streamed reply in each format's own events, sent as the server frames a body of
unknown length (chunked on HTTP/1.1). The request's ``model`` picks the behaviour:
``ok`` (the reply in three pieces), ``stall`` (one piece, then nothing for a minute) and
``broken`` (one piece, then the app fails: the server drops the connection mid-body).
``App.clients`` records each request's client address (so: how many connections),
``App.via`` its ``Via`` header ("" without one: a forward proxy adds one to plain HTTP).

``uvicorn_server`` and ``hypercorn_server`` run it on a loopback port in a thread of the
test process (HTTP/1.1 over h11; TLS when given a certificate), as a context manager
giving the root URL.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

PIECES = ("hel", "lo ", "there")


def _sse(data: object, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def chat_events(pieces: tuple[str, ...]) -> list[bytes]:
    out = [_sse({"choices": [{"index": 0, "delta": {"content": p}}]}) for p in pieces]
    usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    return [*out, _sse({"choices": [], "usage": usage}), b"data: [DONE]\n\n"]


def anthropic_events(pieces: tuple[str, ...]) -> list[bytes]:
    start: dict[str, Any] = {"type": "message_start", "message": {"usage": {"input_tokens": 7}}}
    block = {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}
    deltas = [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
        for p in pieces
    ]
    end: list[dict[str, Any]] = [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    ]
    events: list[dict[str, Any]] = [start, block, *deltas, *end]
    return [_sse(e, str(e["type"])) for e in events]


def responses_events(pieces: tuple[str, ...]) -> list[bytes]:
    deltas: list[dict[str, Any]] = [
        {"type": "response.output_text.delta", "delta": p} for p in pieces
    ]
    text = {"type": "output_text", "text": "".join(pieces), "annotations": []}
    item = {"type": "message", "role": "assistant", "content": [text]}
    usage = {"input_tokens": 7, "output_tokens": 3, "input_tokens_details": {"cached_tokens": 0}}
    done: list[dict[str, Any]] = [
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"usage": usage}},
    ]
    events: list[dict[str, Any]] = [*deltas, *done]
    return [_sse(e, str(e["type"])) for e in events]


EVENTS = {
    "/v1/chat/completions": chat_events,
    "/v1/messages": anthropic_events,
    "/v1/responses": responses_events,
}


class App:
    """The ASGI app (see the module)."""

    def __init__(self) -> None:
        self.clients: list[tuple[str, int]] = []
        self.via: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        host, port = scope["client"]
        self.clients.append((str(host), int(port)))
        via = [value for name, value in scope["headers"] if name.lower() == b"via"]
        self.via.append(b", ".join(via).decode("latin-1"))
        events = EVENTS.get(scope["path"])
        if events is None:
            await _answer(send, 404, b'{"error": {"message": "no such path"}}')
            return
        behaviour = json.loads(body).get("model")
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        sent = events(PIECES)
        if behaviour in ("stall", "broken"):  # up to the first piece of text
            sent = sent[: next(i for i, e in enumerate(sent) if PIECES[0].encode() in e) + 1]
        for event in sent:
            await send({"type": "http.response.body", "body": event, "more_body": True})
        if behaviour == "stall":
            await asyncio.sleep(60)
        if behaviour == "broken":
            raise RuntimeError("the app broke off its reply")
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _answer(send: Send, status: int, data: bytes) -> None:
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def _free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@contextmanager
def uvicorn_server(app: App, *, cert: Path | None = None, key: Path | None = None) -> Iterator[str]:
    """``app`` on uvicorn (h11), in a thread; yields ``http(s)://localhost:PORT``."""
    import uvicorn

    sock = _free_socket()
    config = uvicorn.Config(
        app,
        http="h11",
        lifespan="off",
        log_level="critical",
        ssl_certfile=str(cert) if cert else None,
        ssl_keyfile=str(key) if key else None,
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            threading.Event().wait(0.01)
        scheme = "https" if cert else "http"
        yield f"{scheme}://localhost:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@contextmanager
def hypercorn_server(
    app: App, *, cert: Path | None = None, key: Path | None = None
) -> Iterator[str]:
    """``app`` on hypercorn (h11 for HTTP/1.1), in a thread; yields ``http(s)://localhost:PORT``."""
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    sock = _free_socket()
    config = Config()
    config.bind = [f"fd://{os.dup(sock.fileno())}"]  # hypercorn closes the one it is given
    config.loglevel = "CRITICAL"
    config.graceful_timeout = 1
    config.alpn_protocols = ["http/1.1"]
    if cert and key:
        config.certfile, config.keyfile = str(cert), str(key)
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    ready = threading.Event()

    async def main() -> None:
        ready.set()
        await serve(app, config, shutdown_trigger=stop.wait)  # type: ignore[arg-type]

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    ready.wait(10)
    try:
        _wait_listening(sock.getsockname()[1])
        scheme = "https" if cert else "http"
        yield f"{scheme}://localhost:{sock.getsockname()[1]}"
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()
        sock.close()


def _wait_listening(port: int) -> None:
    for _ in range(500):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            threading.Event().wait(0.01)
    raise RuntimeError(f"nothing listens on {port}")
