"""Odd and hostile servers, over dsh's own HTTP/1.1 client and over httpx2, on the same raw mock.

Where the two differ it is said per case: dsh's client calls broken framing
malformed (not retried: the server is broken, not busy) where httpx2 calls it a
connection error, and it bounds what httpx2 does not (a head sent slowly, an
endless body or line), so those cases run over dsh's client only. Every case
ends with the server's script done: the client closed its connection.
"""

from __future__ import annotations

import asyncio
import gzip
import zlib
from collections.abc import Callable
from typing import Any

import pytest

from dsh.messages import UserMessage
from dsh.models import ModelBackend, ModelError, ModelRequest, OpenAICompatibleModel
from tests.models.raw_server import CHUNK_HI, COMPLETION_OK, RawConn, raw_serving, sse

SIMPLE = ModelRequest((UserMessage("hi"),))
STREAM = sse(CHUNK_HI, "[DONE]")
ours_and_httpx = pytest.mark.parametrize("backend", ["asyncio", "httpx"])
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DSH_API_KEY", "OPENAI_API_KEY", "DSH_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def model_for(url: str, backend: ModelBackend, **options: Any) -> OpenAICompatibleModel:
    options = {"max_retries": 0, "timeout": 2.0, "backoff_base": 0.001, **options}
    return OpenAICompatibleModel("m", url, api_key="k", backend=backend, **options)


async def outcome(
    script: Callable[[RawConn], None], backend: ModelBackend, **options: Any
) -> tuple[object, int]:
    """The reply's text or the error's (message, retryable); the connections the client made."""
    with raw_serving(script) as server:
        async with model_for(server.url, backend, **options) as model:
            try:
                result: object = (await model.complete(SIMPLE)).text
            except ModelError as e:
                result = (e.message.replace(server.url, "URL"), e.retryable)
        assert await asyncio.to_thread(server.closed.wait, 20), "the server's script ended"
    return result, server.connections


async def failure(
    script: Callable[[RawConn], None], backend: ModelBackend, **options: Any
) -> tuple[str, bool]:
    """The error's message and whether it is retryable (a reply fails the test)."""
    result, _ = await outcome(script, backend, **options)
    assert isinstance(result, tuple), result
    message, retryable = result
    return str(message), bool(retryable)


def raw(data: bytes, *, then: Callable[[RawConn], None] | None = None) -> Callable[[RawConn], None]:
    """A script: read the request, send ``data``, then ``then`` (default: wait for the close)."""

    def script(conn: RawConn) -> None:
        conn.request()
        conn.send(data)
        (then or RawConn.wait_for_close)(conn)

    return script


def response(*fields: bytes, body: bytes = b"", status: bytes = b"200 OK") -> bytes:
    return b"\r\n".join([b"HTTP/1.1 " + status, *fields]) + b"\r\n\r\n" + body


def chunked(body: bytes, size: int = 7) -> bytes:
    parts = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\nX-T: y\r\n\r\n"


def raw_deflate(data: bytes) -> bytes:
    squeeze = zlib.compressobj(wbits=-15)
    return squeeze.compress(data) + squeeze.flush()


EVENTS = b"Content-Type: text/event-stream"
WORKING = {
    "chunked, extensions, trailers": response(
        EVENTS, b"Transfer-Encoding: chunked", body=chunked(STREAM)
    ),
    "close-delimited": response(EVENTS, b"Connection: close", body=STREAM),
    "gzip": response(
        EVENTS,
        b"Content-Encoding: gzip",
        b"Content-Length: %d" % len(gzip.compress(STREAM)),
        body=gzip.compress(STREAM),
    ),
    "raw deflate, chunked": response(
        EVENTS,
        b"Content-Encoding: deflate",
        b"Transfer-Encoding: chunked",
        body=chunked(raw_deflate(STREAM)),
    ),
    "zlib deflate": response(
        EVENTS,
        b"Content-Encoding: deflate",
        b"Content-Length: %d" % len(zlib.compress(STREAM)),
        body=zlib.compress(STREAM),
    ),
    "100 Continue first, LF-only lines, a folded field": (
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\n"
        + b"Content-Type: text/event-stream\nX-Long: a\n b\nContent-Length: %d\n\n" % len(STREAM)
        + STREAM
    ),
}


@ours_and_httpx
@pytest.mark.parametrize("case", list(WORKING))
async def test_framings_and_codings_that_keep_to_the_protocol(
    case: str, backend: ModelBackend
) -> None:
    assert await outcome(raw(WORKING[case]), backend) == ("hi", 1)


@ours_and_httpx
async def test_a_gzip_json_reply(backend: ModelBackend) -> None:
    body = gzip.compress(COMPLETION_OK)
    reply = response(
        b"Content-Type: application/json",
        b"Content-Encoding: gzip",
        b"Content-Length: %d" % len(body),
        body=body,
    )
    assert await outcome(raw(reply), backend, stream=False) == ("ok", 1)


# --- broken framing: malformed over dsh's client, a connection error over httpx2 -----------------

BROKEN = {
    "a garbage status line": (b"SSH-2.0-OpenSSH_9.6\r\n\r\n", "not an HTTP/1.1 status line"),
    "a 10 MB header": (
        b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 10_000_000 + b"\r\n\r\n",
        "the response head is over 64 KiB",
    ),
    "chunk size overflow": (
        response(EVENTS, b"Transfer-Encoding: chunked", body=b"1" + b"0" * 20 + b"\r\nxx"),
        "chunk size overflow",
    ),
    "not a chunk size": (
        response(EVENTS, b"Transfer-Encoding: chunked", body=b"zz\r\n"),
        "not a chunk size",
    ),
    "chunk data past its size": (
        response(EVENTS, b"Transfer-Encoding: chunked", body=b"2\r\nabcdef\r\n"),
        "a chunk's data runs past its size",
    ),
    "conflicting Content-Length": (
        response(EVENTS, b"Content-Length: 5", b"Content-Length: 6", body=b"data:"),
        "conflicting Content-Length",
    ),
    "a header without a colon": (
        response(EVENTS, b"Content-Length 5", body=b"data:"),
        "a header line is not 'name: value'",
    ),
}


@ours_and_httpx
@pytest.mark.parametrize("case", list(BROKEN))
async def test_broken_framing_fails_cleanly(case: str, backend: ModelBackend) -> None:
    data, detail = BROKEN[case]
    message, retryable = await failure(raw(data), backend)
    if backend == "asyncio":
        assert "malformed reply from the server: the response's framing: " + detail in message
        assert retryable is False
    else:
        assert "cannot get a reply from the server: Connection error." in message
        assert retryable is True


# --- cut off: a connection error either way, retried as the model retries ---------------------


@ours_and_httpx
async def test_a_reset_mid_stream_is_a_connection_error_after_text_not_retried(
    backend: ModelBackend,
) -> None:
    head = response(EVENTS, b"Transfer-Encoding: chunked", body=chunked(sse(CHUNK_HI), 4096))
    script = raw(head.removesuffix(b"0\r\nX-T: y\r\n\r\n"), then=RawConn.reset)
    message, retryable = await failure(script, backend, max_retries=2)
    assert "Connection error." in message
    assert retryable is True
    assert "broke off after streaming began; not retried" in message


@ours_and_httpx
async def test_a_server_that_closes_without_answering_is_retried(backend: ModelBackend) -> None:
    def script(conn: RawConn) -> None:
        conn.request()
        if conn.index == 2:
            conn.send(response(b"Content-Length: %d" % len(STREAM), EVENTS, body=STREAM))
            conn.wait_for_close()

    assert await outcome(script, backend, max_retries=1) == ("hi", 2)


# --- bounds httpx2 does not have: dsh's client only -------------------------------------------


def forever(piece: bytes, head: bytes = b"") -> Callable[[RawConn], None]:
    def script(conn: RawConn) -> None:
        conn.request()
        conn.send(head)
        while True:
            conn.send(piece)

    return script


async def test_an_endless_chunked_json_body_is_cut_at_64_mib() -> None:
    head = response(b"Content-Type: application/json", b"Transfer-Encoding: chunked")
    script = forever(b"10000\r\n" + b" " * 0x10000 + b"\r\n", head)
    message, retryable = await failure(script, "asyncio", stream=False)
    assert "malformed reply from the server: the reply's body is over 64 MiB" in message
    assert retryable is False


async def test_an_endless_event_stream_line_is_cut_at_16_mib() -> None:
    head = response(EVENTS, b"Transfer-Encoding: chunked", body=b"6\r\ndata: \r\n")
    script = forever(b"10000\r\n" + b"x" * 0x10000 + b"\r\n", head)
    message, _ = await failure(script, "asyncio")
    assert "malformed reply from the server: an event-stream line is over 16 MiB" in message


async def test_a_slow_loris_head_times_out_as_a_whole() -> None:
    script = raw(b"", then=lambda conn: conn.trickle(b"HTTP/1.1 200 OK\r\n" * 1000, 0.02))
    message, retryable = await failure(script, "asyncio", timeout=0.5)
    assert "cannot get a reply from the server: Request timed out." in message
    assert retryable is True


async def test_a_slow_loris_line_in_a_stream_times_out() -> None:
    head = response(EVENTS, b"Connection: close", body=sse(CHUNK_HI) + b"data: ")
    script = raw(head, then=lambda conn: conn.trickle(b"x" * 10_000, 0.02))
    message, _ = await failure(script, "asyncio", timeout=0.5)
    assert "Request timed out." in message
    assert "broke off after streaming began; not retried" in message
