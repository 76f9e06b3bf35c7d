"""MCP over HTTP: the sample server (the official SDK) on streamable HTTP and HTTP+SSE, and a
server that asks for OAuth, through ``dsh.mcp``'s connection."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from dsh.mcp import McpServer
from dsh.mcp._connection import McpConnection

SERVER = str(Path(__file__).with_name("sample_server.py"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def http_server(request: pytest.FixtureRequest) -> Iterator[int]:
    port = _free_port()
    mode = request.param
    proc = subprocess.Popen(
        [sys.executable, SERVER, mode, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield port
    finally:
        proc.kill()
        proc.wait()


async def _echo(server: McpServer) -> tuple[McpConnection, Any]:
    connection = McpConnection(server, env=dict(os.environ), cwd=".")
    connection.start()
    await connection.ready()
    assert connection.state == "connected", connection.error
    result = await connection.call("echo", {"message": "over http"})
    return connection, result


@pytest.mark.parametrize(
    ("http_server", "transport", "path"),
    [("http", "http", "/mcp"), ("sse", "sse", "/sse")],
    indirect=["http_server"],
)
async def test_remote_transports(http_server: int, transport: str, path: str) -> None:
    server = McpServer(
        name="remote",
        transport=transport,  # type: ignore[arg-type]
        source="dynamic",
        where="test",
        url=f"http://127.0.0.1:{http_server}{path}",
        headers={"X-Test": "1"},
    )
    connection, result = await _echo(server)
    assert result.content[0]["text"] == "Echo: over http"
    assert "echo" in [t.name for t in connection.tools]
    await connection.close()
    assert str(connection.state) == "closed"


async def test_a_server_asking_for_oauth_is_a_clear_error() -> None:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Bearer resource_metadata="http://x/"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        server = McpServer(
            name="oauth",
            transport="http",
            source="dynamic",
            where="test",
            url=f"http://127.0.0.1:{httpd.server_address[1]}/mcp",
            startup_timeout_sec=10,
        )
        connection = McpConnection(server, env={}, cwd=".")
        connection.start()
        await asyncio.wait_for(connection.ready(), 20)
        assert connection.state == "failed"
        assert "asks for OAuth authorization, which dsh does not support yet" in (
            connection.error or ""
        )
        await connection.close()
    finally:
        httpd.shutdown()


@pytest.mark.parametrize("http_server", ["http"], indirect=True)
async def test_an_elicitation_complete_over_http_is_told_as_over_stdio(http_server: int) -> None:
    """The SDK's client (HTTP and SSE servers) tells ``on_completed`` the id of a
    ``notifications/elicitation/complete``, as dsh's stdio client does (Notification's
    ``elicitation_complete``)."""
    server = McpServer(
        name="remote",
        transport="http",
        source="dynamic",
        where="test",
        url=f"http://127.0.0.1:{http_server}/mcp",
    )

    async def decline(connection: McpConnection, params: Any) -> dict[str, Any]:
        return {"action": "decline"}

    connection = McpConnection(server, env=dict(os.environ), cwd=".", elicit=decline)
    completed: list[str] = []
    connection.on_completed = lambda _, ident: completed.append(ident)
    connection.start()
    await connection.ready()
    assert connection.state == "connected", connection.error
    result = await connection.call("ask-then-complete", {})
    assert result.content[0]["text"] == "action: decline"
    for _ in range(200):  # the notification follows the result on its own stream
        if completed:
            break
        await asyncio.sleep(0.01)
    assert completed == ["elic-7"]
    await connection.close()
