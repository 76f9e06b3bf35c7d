"""The model client through a real forward proxy: proxy.py, as a user's ``HTTPS_PROXY``.

squid is what the issue names, but it comes from Debian's archive (root and apt-get) and
``make test`` installs only Python packages, so a fresh clone would skip it; proxy.py is a
real, maintained forward proxy from the dev extras, run as its own process. Each wire
format goes through it over a CONNECT tunnel to a TLS server whose certificate comes from a
test CA (trustme, ``SSL_CERT_FILE``): the tunnel, the verification through it and the
streamed reply. With the proxy gone the request fails with a clear connection error.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from dsh.models import ModelError
from tests.servers.app import PIECES, App, uvicorn_server
from tests.servers.formats import FORMATS, REQUEST, Format, model_for

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[App, str, Path, str]]:
    where = tmp_path_factory.mktemp("proxied")
    ca = trustme.CA()
    ca.cert_pem.write_to_path(where / "ca.pem")
    issued = ca.issue_cert("localhost")
    issued.cert_chain_pems[0].write_to_path(where / "cert.pem")
    issued.private_key_pem.write_to_path(where / "key.pem")
    port = _free_port()
    command = [sys.executable, "-m", "proxy", "--hostname", "127.0.0.1", "--port", str(port)]
    command += ["--num-workers", "1", "--num-acceptors", "1", "--log-level", "ERROR"]
    proxy = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        _wait_listening(port, proxy)
        app = App()
        with uvicorn_server(app, cert=where / "cert.pem", key=where / "key.pem") as root:
            yield app, root, where / "ca.pem", f"http://127.0.0.1:{port}"
    finally:
        os.killpg(proxy.pid, signal.SIGTERM)
        proxy.wait(10)


def _wait_listening(port: int, proxy: subprocess.Popen[bytes]) -> None:
    for _ in range(1000):
        if proxy.poll() is not None:
            raise RuntimeError("proxy.py exited at start")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.01)
    raise RuntimeError("proxy.py did not listen")


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    for name in ("SSL_CERT_DIR", "CODEX_CA_CERTIFICATE", "NODE_EXTRA_CA_CERTS"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("fmt", FORMATS)
async def test_each_format_tunnels_through_the_proxy_to_a_verified_server(
    fmt: Format, served: tuple[App, str, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, root, ca, proxy = served
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    monkeypatch.setenv("HTTPS_PROXY", proxy)
    seen = len(app.clients)
    model = model_for(fmt, root)
    pieces: list[str] = []
    try:
        reply = await model.complete(REQUEST, on_text=pieces.append)
    finally:
        await model.aclose()
    assert reply.text == "".join(PIECES)
    assert pieces == list(PIECES)
    assert len(app.clients) == seen + 1


async def test_a_proxy_that_is_not_there_is_a_clear_connection_error(
    served: tuple[App, str, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, root, ca, _ = served
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{_free_port()}")
    model = model_for("anthropic", root)
    try:
        with pytest.raises(ModelError) as caught:
            await model.complete(REQUEST)
    finally:
        await model.aclose()
    assert caught.value.message.startswith("API Error: Connection error.")
    assert f"[{root}]" in caught.value.message
