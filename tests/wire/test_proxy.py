"""The Anthropic and Responses formats behind a forward proxy: the same request, through it.

A loopback forward proxy (absolute-form requests, relayed to the mock) stands between
the model and the mock; the environment names it as a user's would (``HTTP_PROXY``), so
the request goes over httpx2 with the format's own path and headers.
"""

from __future__ import annotations

import asyncio
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from _anthropic_mock import AnthropicMock
from _responses_mock import ResponsesMock
from _side_cases import Reply, SideCase

from dsh.models._anthropic import anthropic_model
from dsh.models._codex_setup import codex_model
from tests.wire.streams import REQUEST


class Proxy:
    """A forward proxy for plain HTTP that records what it relayed."""

    def __init__(self) -> None:
        self.relayed: list[tuple[str, dict[str, str]]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                proxy.relayed.append((self.path, {k.lower(): v for k, v in headers.items()}))
                request = urllib.request.Request(self.path, body, headers, method="POST")
                opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
                with opener.open(request, timeout=10) as answer:
                    data = answer.read()
                    self.send_response(answer.status)
                    self.send_header("Content-Type", answer.headers["Content-Type"])
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Proxy]:
    for name in ("no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    server = Proxy()
    monkeypatch.setenv("HTTP_PROXY", server.url)
    monkeypatch.setenv("http_proxy", server.url)
    yield server
    server.close()


def test_the_messages_api_goes_through_the_proxy(
    proxy: Proxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    with AnthropicMock() as mock:
        mock.load(SideCase("t", "p", (Reply(text="via the proxy"),), {}))
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-proxied")
        model = anthropic_model("sonnet", base_url=mock.url)
        reply = asyncio.run(model.complete(REQUEST))
        assert mock.main_requests == 1
    assert reply.text == "via the proxy"
    [(url, headers)] = proxy.relayed
    assert url == f"{mock.url}/v1/messages"
    assert headers["x-api-key"] == "sk-proxied"
    assert headers["anthropic-version"] == "2023-06-01"


def test_the_responses_api_goes_through_the_proxy(proxy: Proxy, tmp_path: Any) -> None:
    with ResponsesMock() as mock:
        mock.load_script({"rules": [{"responses": [[{"type": "text", "text": "proxied"}]]}]})
        (tmp_path / "config.toml").write_text(
            f'model_provider = "m"\n[model_providers.m]\nbase_url = "{mock.url}"\n'
            'env_key = "K"\nquery_params = { v = "1" }\n'
        )
        environ = {"CODEX_HOME": str(tmp_path), "K": "sk-r"}
        model = codex_model("mock-model", environ=environ)
        reply = asyncio.run(model.complete(REQUEST))
    assert reply.text == "proxied"
    [(url, headers)] = proxy.relayed
    assert url == f"{mock.url}/responses?v=1"
    assert headers["authorization"] == "Bearer sk-r"
