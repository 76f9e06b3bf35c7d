"""When dsh's own client connects directly, and when a request goes over httpx2 and its proxy.

The rule that matters: dsh's client goes direct only where httpx2 would too (it
is asked here, on the same environment), so behind a proxy nothing changes.
"""

from __future__ import annotations

import asyncio

import httpx2
import pytest

from dsh.models._http_proxy import direct

CASES = [
    # (environment, scheme, host, direct)
    ({}, "https", "api.openai.com", True),
    ({"HTTPS_PROXY": "http://p:3128"}, "https", "api.openai.com", False),
    ({"HTTPS_PROXY": "http://p:3128"}, "http", "localhost", True),
    ({"http_proxy": "p:3128"}, "http", "localhost", False),
    ({"ALL_PROXY": "socks5://p:1080"}, "http", "127.0.0.1", False),
    ({"HTTPS_PROXY": "http://p", "https_proxy": ""}, "https", "h", True),  # lower case "" unsets
    ({"HTTPS_PROXY": "http://p", "NO_PROXY": "*"}, "https", "api.openai.com", True),
    ({"HTTPS_PROXY": "http://p", "NO_PROXY": "openai.com"}, "https", "api.openai.com", True),
    ({"HTTPS_PROXY": "http://p", "NO_PROXY": "openai.com"}, "https", "openai.com", True),
    ({"HTTPS_PROXY": "http://p", "NO_PROXY": "openai.com"}, "https", "notopenai.com", False),
    ({"HTTPS_PROXY": "http://p", "NO_PROXY": ".openai.com"}, "https", "openai.com", False),
    ({"HTTPS_PROXY": "http://p", "NO_PROXY": "*.openai.com"}, "https", "api.openai.com", True),
    ({"HTTP_PROXY": "http://p", "NO_PROXY": "localhost"}, "http", "localhost", True),
    ({"HTTP_PROXY": "http://p", "NO_PROXY": "localhost"}, "http", "x.localhost", False),
    ({"HTTP_PROXY": "http://p", "NO_PROXY": "a, 127.0.0.1"}, "http", "127.0.0.1", True),
    ({"HTTP_PROXY": "http://p", "NO_PROXY": "127.0.0.1"}, "http", "127.0.0.10", False),
    ({"HTTP_PROXY": "http://p", "NO_PROXY": "::1"}, "http", "::1", True),
    ({"HTTP_PROXY": "http://p", "NO_PROXY": "[::1]"}, "http", "::1", True),
    # Left to httpx2 (a port, a network, a scheme): not direct, whatever httpx2 decides.
    ({"HTTP_PROXY": "http://p", "NO_PROXY": "localhost:8000"}, "http", "localhost", False),
    ({"HTTP_PROXY": "http://p", "NO_PROXY": "127.0.0.0/8"}, "http", "127.0.0.1", False),
    ({"HTTP_PROXY": "http://p", "NO_PROXY": "http://localhost"}, "http", "localhost", False),
]
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "REQUEST_METHOD")


@pytest.fixture(autouse=True)
def _no_ambient_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def httpx2_goes_direct(scheme: str, host: str) -> bool:
    client = httpx2.AsyncClient()
    try:
        bracketed = f"[{host}]" if ":" in host else host
        return (
            client._transport_for_url(httpx2.URL(f"{scheme}://{bracketed}/")) is client._transport
        )
    finally:
        asyncio.run(client.aclose())


@pytest.mark.parametrize(("environment", "scheme", "host", "expected"), CASES)
def test_direct_only_where_httpx2_goes_direct(
    environment: dict[str, str],
    scheme: str,
    host: str,
    expected: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert direct(scheme, host) is expected
    if expected:
        assert httpx2_goes_direct(scheme, host)


def test_a_cgi_request_method_ignores_the_upper_case_http_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://from-a-client-header")
    monkeypatch.setenv("REQUEST_METHOD", "GET")
    assert direct("http", "example.com")
    assert httpx2_goes_direct("http", "example.com")
