"""What dsh's own HTTP/1.1 client does beyond one exchange, beside httpx2 on the same servers:
redirects, kept connections (and one the server closed), TLS trust, proxies, closing."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dsh.messages import AssistantMessage, UserMessage
from dsh.models import ModelBackend, ModelError, ModelRequest, OpenAICompatibleModel, RetryNotice
from tests.models.raw_server import CHUNK_HI, RawConn, RawServer, raw_serving, sse

SIMPLE = ModelRequest((UserMessage("hi"),))
STREAM = sse(CHUNK_HI, "[DONE]")
OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s" % (
    len(STREAM),
    STREAM,
)
ours_and_httpx = pytest.mark.parametrize("backend", ["asyncio", "httpx"])


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DSH_API_KEY", "OPENAI_API_KEY", "DSH_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "SSL_CERT_FILE"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)


def model_for(url: str, backend: ModelBackend, **options: Any) -> OpenAICompatibleModel:
    options = {"max_retries": 0, "timeout": 5.0, "backoff_base": 0.001, **options}
    return OpenAICompatibleModel("m", url, api_key="k", backend=backend, **options)


async def ask(url: str, backend: ModelBackend, times: int = 1, **options: Any) -> list[object]:
    """Each call's text or error message, then the retry notices (as attempt numbers)."""
    notices: list[RetryNotice] = []
    results: list[object] = []
    async with model_for(url, backend, on_retry=notices.append, **options) as model:
        for _ in range(times):
            try:
                results.append((await model.complete(SIMPLE)).text)
            except ModelError as e:
                results.append(e.message)
    return [*results, [n.attempt for n in notices]]


def redirect(status: int, location: str) -> bytes:
    return b"HTTP/1.1 %d Moved\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n" % (
        status,
        location.encode(),
    )


# --- redirects ----------------------------------------------------------------------------------


@ours_and_httpx
@pytest.mark.parametrize(("status", "method"), [(307, "POST"), (308, "POST"), (303, "GET")])
async def test_a_redirect_is_followed_with_its_method_and_body(
    backend: ModelBackend, status: int, method: str
) -> None:
    def script(conn: RawConn) -> None:
        while (request := conn.request()) is not None:
            moved = request.line.startswith("POST /v1/")
            conn.send(redirect(status, "/v2/chat/completions") if moved else OK)

    with raw_serving(script) as server:
        assert await ask(server.url, backend) == ["hi", []]
    first, second = server.requests
    assert second.line == f"{method} /v2/chat/completions HTTP/1.1"
    assert second.body == (first.body if method == "POST" else b"")
    assert second.headers["authorization"] == "Bearer k"


@ours_and_httpx
async def test_a_redirect_loop_stops(backend: ModelBackend) -> None:
    def script(conn: RawConn) -> None:
        while conn.request() is not None:
            conn.send(redirect(307, "/v1/chat/completions"))

    with raw_serving(script) as server:
        (message, _) = await ask(server.url, backend)
    assert "Connection error. (Exceeded maximum allowed redirects.)" in str(message)
    assert len(server.requests) == 21


@ours_and_httpx
async def test_the_key_does_not_follow_a_redirect_to_another_origin(backend: ModelBackend) -> None:
    def there(conn: RawConn) -> None:
        conn.request()
        conn.send(OK)

    with raw_serving(there) as other:

        def here(conn: RawConn) -> None:
            conn.request()
            conn.send(redirect(308, other.url + "/chat/completions"))

        with raw_serving(here) as server:
            assert await ask(server.url, backend) == ["hi", []]
    assert "authorization" not in other.requests[0].headers
    assert other.requests[0].body == server.requests[0].body


# --- kept connections ---------------------------------------------------------------------------


def keep(*plans: Callable[[RawConn], bool]) -> Callable[[RawConn], None]:
    """Connection n answers requests with ``plans[n]`` while it returns True."""

    def script(conn: RawConn) -> None:
        plan = plans[min(conn.index, len(plans)) - 1]
        while conn.request() is not None and plan(conn):
            pass

    return script


def answer_ok(conn: RawConn) -> bool:
    conn.send(OK)
    return True


@ours_and_httpx
async def test_a_session_reuses_one_connection(backend: ModelBackend) -> None:
    with raw_serving(keep(answer_ok)) as server:
        assert await ask(server.url, backend, times=3) == ["hi", "hi", "hi", []]
    assert server.connections == 1


@ours_and_httpx
async def test_a_connection_the_server_closed_while_idle_is_not_reused(
    backend: ModelBackend,
) -> None:
    def once(conn: RawConn) -> bool:
        conn.send(OK)
        return False  # then closed: the next request must open another

    with raw_serving(keep(once)) as server:
        model = model_for(server.url, backend)
        async with model:
            assert (await model.complete(SIMPLE)).text == "hi"
            await asyncio.to_thread(server.closed.wait, 5)
            await asyncio.sleep(0.05)  # the FIN reaches the client's loop
            assert (await model.complete(SIMPLE)).text == "hi"
    assert (server.connections, len(server.requests)) == (2, 2)


@ours_and_httpx
async def test_a_request_lost_on_a_kept_connection_is_resent_once_by_dsh(
    backend: ModelBackend,
) -> None:
    # The server takes the second request and closes without a byte of answer (the
    # race of an idle timeout): dsh's client sends it again on a new connection at
    # once; over httpx2 the model retries it, after a backoff and a notice.
    answered = 0

    def first(conn: RawConn) -> bool:
        nonlocal answered
        answered += 1
        if answered > 1:
            return False
        conn.send(OK)
        return True

    with raw_serving(keep(first, answer_ok)) as server:
        results = await ask(server.url, backend, times=2, max_retries=1)
    assert results == ["hi", "hi", [] if backend == "asyncio" else [1]]
    assert (server.connections, len(server.requests)) == (2, 3)


@ours_and_httpx
async def test_nothing_is_resent_once_part_of_the_answer_came(backend: ModelBackend) -> None:
    served = 0

    def first(conn: RawConn) -> bool:
        nonlocal served
        served += 1
        conn.send(OK if served == 1 else b"HTTP/1.1 200 OK\r\nContent-")
        return served == 1

    with raw_serving(keep(first)) as server:
        results = await ask(server.url, backend, times=2)
    assert results[0] == "hi"
    assert "Connection error." in str(results[1])
    assert len(server.requests) == 2


@ours_and_httpx
async def test_closing_the_model_closes_its_kept_connection_and_leaves_no_task(
    backend: ModelBackend,
) -> None:
    with raw_serving(keep(answer_ok)) as server:
        async with model_for(server.url, backend) as model:
            await model.complete(SIMPLE)
            assert not server.closed.is_set()  # kept for the next request
        # Closed by the time aclose is through (the wait blocks the loop on purpose).
        assert server.closed.wait(5)
        assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []


# --- TLS ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs the openssl command to make a test certificate")
    where = tmp_path_factory.mktemp("tls")
    command = [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"]
    command += ["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"]
    command += ["-keyout", str(where / "key.pem"), "-out", str(where / "cert.pem")]
    subprocess.run(command, check=True, capture_output=True)
    return where


def tls_server(certificate: Path, script: Callable[[RawConn], None]) -> Any:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate / "cert.pem", certificate / "key.pem")
    return raw_serving(script, tls=context)


@ours_and_httpx
async def test_https_trusts_ssl_cert_file_and_keeps_the_connection(
    backend: ModelBackend, certificate: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate / "cert.pem"))
    with tls_server(certificate, keep(answer_ok)) as server:
        assert await ask(server.url, backend, times=2) == ["hi", "hi", []]
    assert server.connections == 1


@ours_and_httpx
async def test_https_with_an_unknown_certificate_fails(
    backend: ModelBackend, certificate: Path
) -> None:
    with tls_server(certificate, keep(answer_ok)) as server:
        (message, _) = await ask(server.url, backend)
    assert "Connection error." in str(message)
    assert "CERTIFICATE_VERIFY_FAILED" in str(message)
    assert server.requests == []


@ours_and_httpx
async def test_a_redirect_from_http_to_https_fails_closed(
    backend: ModelBackend, certificate: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Even with the certificate trusted: an http:// endpoint's client verifies nothing.
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate / "cert.pem"))
    with tls_server(certificate, keep(answer_ok)) as secure:

        def script(conn: RawConn) -> None:
            conn.request()
            conn.send(redirect(307, secure.url + "/chat/completions"))

        with raw_serving(script) as server:
            (message, _) = await ask(server.url, backend)
    assert "Connection error." in str(message)
    if backend == "asyncio":
        assert "an http:// endpoint is not followed to https://" in str(message)
    assert secure.requests == []


# --- proxies ------------------------------------------------------------------------------------


def relay(conn: RawConn) -> None:
    """A proxy's end: whatever is asked (an absolute URL, from a proxied client), answered."""
    while conn.request() is not None:
        conn.send(OK)


@ours_and_httpx
@pytest.mark.parametrize("bypass", [False, True])
async def test_behind_a_proxy_requests_go_through_it_unless_no_proxy(
    backend: ModelBackend, bypass: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    with raw_serving(relay) as proxy, raw_serving(relay) as server:
        monkeypatch.setenv("HTTP_PROXY", proxy.url.removesuffix("/v1"))
        if bypass:
            monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
        assert await ask(server.url, backend) == ["hi", []]
    through: RawServer = server if bypass else proxy
    assert [r.line for r in through.requests] == [
        "POST /v1/chat/completions HTTP/1.1"
        if bypass
        else f"POST {server.url}/chat/completions HTTP/1.1"
    ]


# --- the request on the wire --------------------------------------------------------------------


@pytest.mark.parametrize("turns", [1, 600], ids=["short", "over 1 MiB"])
async def test_the_request_is_httpx2s_byte_for_byte(
    turns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-1")
    request = ModelRequest(tuple(UserMessage(f"{i}: " + "x" * 2000) for i in range(turns)))
    sent = []
    for backend in ("asyncio", "httpx"):
        with raw_serving(keep(answer_ok)) as server:
            async with model_for(server.url, backend) as model:
                assert (await model.complete(request)).text == "hi"
        (seen,) = server.requests
        sent.append((seen.head.replace(str(server.port).encode(), b"PORT"), seen.body))
    assert sent[0] == sent[1]
    assert b"\r\nOpenAI-Project: proj-1\r\n" in sent[0][0]


@ours_and_httpx
async def test_a_long_request_over_tls_is_the_bodys_bytes(
    backend: ModelBackend, certificate: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # TLS never takes the plain socket's vectored write: the history goes through the TLS layer.
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate / "cert.pem"))
    turns = ((UserMessage(f"{i}: " + "x" * 2000), AssistantMessage("ok")) for i in range(600))
    request = ModelRequest((*(m for turn in turns for m in turn), UserMessage("go")))
    with tls_server(certificate, keep(answer_ok)) as server:
        async with model_for(server.url, backend) as model:
            assert (await model.complete(request)).text == "hi"
            assert (await model.complete(request)).text == "hi"
    first, second = server.requests
    assert len(first.body) > 1 << 20
    assert first.body == second.body
    sent = [m["content"] for m in json.loads(first.body)["messages"] if m["role"] == "user"]
    assert sent == [*(f"{i}: " + "x" * 2000 for i in range(600)), "go"]


async def test_what_the_socket_does_not_take_at_once_is_queued_and_sent_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dsh.models._chat_body import EncodedBody
    from dsh.models._http_conn import Connection, Origin

    taken: list[int] = []
    writev = os.writev

    def recording(fd: int, lines: Any) -> int:
        taken.append(writev(fd, lines))
        return taken[-1]

    monkeypatch.setattr(os, "writev", recording)  # the module calls it through os
    pieces = tuple(b'"' + bytes([65 + i % 26]) * 100_000 + b'"' for i in range(40))
    body = EncodedBody(b'{"m":[', (), b"]}", settled=bytearray(b",".join(pieces)))

    def slow(conn: RawConn) -> None:
        time.sleep(0.3)  # the client's buffers fill before a byte is read
        if conn.request() is not None:
            conn.send(OK)

    with raw_serving(slow) as server:
        conn = await Connection.open(Origin("http", "127.0.0.1", server.port), None)
        sock = conn._writer.transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        head = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % body.length
        await conn.send_parts(head, body.parts(), 10.0)
        assert (await conn.read_head()).status == 200
        await conn.aclose()
    (seen,) = server.requests
    assert seen.body == body.data
    if sys.version_info < (3, 12):  # 3.12+ writes vectored in the transport itself
        assert taken
        assert taken[0] < body.length


class Writes:
    """A stream writer that keeps what is written, to see how a request is cut into writes."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.drains = 0
        self.transport = self  # as the writer's transport: every write still queued

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def get_write_buffer_size(self) -> int:
        return len(self.writes[-1]) if self.writes else 0

    async def drain(self) -> None:
        self.drains += 1


async def test_a_small_body_rides_in_one_write_and_a_long_one_is_never_joined() -> None:
    from dsh.models._chat_body import EncodedBody
    from dsh.models._http_conn import Connection, Origin

    writer = Writes()
    conn = Connection(asyncio.StreamReader(), writer, Origin("http", "h", 80))  # type: ignore[arg-type]
    await conn.send(b"HEAD\r\n\r\n", b"{}", 1.0)
    assert writer.writes == [b"HEAD\r\n\r\n{}"]
    pieces = tuple(b'"' + b"x" * 100_000 + b'"' for _ in range(40))
    body = EncodedBody(b'{"messages":[', pieces, b"]}")
    writer.writes.clear()
    writer.drains = 0
    await conn.send(b"HEAD\r\n\r\n", body.chunks(), 1.0)
    head, *chunks = writer.writes
    assert head == b"HEAD\r\n\r\n"
    assert b"".join(chunks) == body.data
    assert len(chunks) > 1
    assert max(map(len, chunks)) < body.length // 4
    assert writer.drains == len(chunks) + 1  # each write still queued is drained, then the end


async def test_a_redirect_to_a_proxied_origin_fails_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The one place dsh's client and httpx2 differ behind a proxy (documented): the endpoint
    # is exempt (NO_PROXY), the redirect's target is not; httpx2 would go through the proxy.
    with raw_serving(relay) as proxy, raw_serving(relay) as other:

        def script(conn: RawConn) -> None:
            conn.request()
            conn.send(redirect(307, other.url.replace("127.0.0.1", "localhost")))

        with raw_serving(script) as server:
            monkeypatch.setenv("HTTP_PROXY", proxy.url.removesuffix("/v1"))
            monkeypatch.setenv("NO_PROXY", "127.0.0.1")
            (message, _) = await ask(server.url, "asyncio")
    assert "Connection error." in str(message)
    assert "which the environment's proxy settings send through a proxy" in str(message)
    assert proxy.requests == other.requests == []


async def test_an_http_endpoint_never_loads_the_trust_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse() -> ssl.SSLContext:
        raise AssertionError("the trust store was loaded for an http:// endpoint")

    monkeypatch.setattr("dsh.models._http.tls_context", refuse)

    def script(conn: RawConn) -> None:
        request = conn.request()
        conn.send(OK)
        request = conn.request()
        if request is not None:
            conn.send(redirect(307, "https://localhost:1/v1/chat/completions"))

    with raw_serving(script) as server:
        (ok, refused, _) = await ask(server.url, "asyncio", times=2)
    assert ok == "hi"
    assert "an http:// endpoint is not followed to https://" in str(refused)


@ours_and_httpx
async def test_a_key_that_would_split_a_header_is_refused_unsent(backend: ModelBackend) -> None:
    with raw_serving(keep(answer_ok)) as server:
        async with OpenAICompatibleModel(
            "m", server.url, api_key="k\r\nX-Injected: 1", backend=backend, max_retries=0
        ) as model:
            with pytest.raises(ModelError, match="Connection error"):
                await model.complete(SIMPLE)
    assert server.requests == []
