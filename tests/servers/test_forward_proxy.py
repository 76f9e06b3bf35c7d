"""The model client through real forward proxies, as a user's ``HTTPS_PROXY``/``HTTP_PROXY``.

Two proxies, each run as its own process, one per module: proxy.py (a maintained Python
forward proxy from the dev extras, so always) and squid (from Debian's archive: ``.ci/run``
installs it when it runs as root; skipped, with the reason, where it is not installed).
Through each, every wire format goes over a CONNECT tunnel to a TLS server whose
certificate comes from a test CA (trustme, ``SSL_CERT_FILE``): the tunnel, the verification
through it and the streamed reply; and as plain HTTP, the request in absolute form, the
proxy adding its ``Via`` header (how the server tells a proxied request from a direct one).
``HTTP_PROXY`` applies to ``http://`` only, ``HTTPS_PROXY`` to ``https://`` only, and
``NO_PROXY`` sends its hosts direct, with either proxy. With the proxy gone the request
fails with a clear connection error.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trustme

from dsh.models import ModelError
from tests.servers.app import PIECES, App, uvicorn_server
from tests.servers.formats import FORMATS, REQUEST, Format, model_for

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
_PROXIES = ("proxy.py", "squid")

# squid's smallest useful set-up: loopback only, no cache, no files written (as root it
# runs as the user ``proxy``, who cannot write to pytest's temp folders), CONNECT to any
# port (the default configuration's Safe_ports/SSL_ports rules are left out on purpose).
_SQUID_CONF = """\
http_port 127.0.0.1:{port}
http_access allow localhost
http_access deny all
cache deny all
cache_mem 0 MB
pid_filename none
access_log none
cache_store_log none
cache_log /dev/null
shutdown_lifetime 0 seconds
"""


@dataclass(frozen=True)
class Served:
    """The app, its roots over TLS and plain HTTP, the test CA's file."""

    app: App
    tls_root: str
    plain_root: str
    ca: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    where = tmp_path_factory.mktemp("served")
    ca = trustme.CA()
    ca.cert_pem.write_to_path(where / "ca.pem")
    issued = ca.issue_cert("localhost")
    issued.cert_chain_pems[0].write_to_path(where / "cert.pem")
    issued.private_key_pem.write_to_path(where / "key.pem")
    app = App()
    with (
        uvicorn_server(app, cert=where / "cert.pem", key=where / "key.pem") as tls_root,
        uvicorn_server(app) as plain_root,
    ):
        yield Served(app, tls_root, plain_root, where / "ca.pem")


def _squid() -> str | None:
    search = os.pathsep.join(["/usr/sbin", "/usr/local/sbin", os.environ.get("PATH", "")])
    return shutil.which("squid", path=search)


@pytest.fixture(scope="module", params=_PROXIES)
def proxy(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A running forward proxy's URL; the process group is stopped on every path."""
    port = _free_port()
    # squid names its shared-memory segments after its service name: one of its own per
    # instance, so that two test runs at once do not share (or refuse) them.
    service = f"dshtest{port}"
    if request.param == "squid":
        squid = _squid()
        if squid is None:
            pytest.skip("squid is not installed (.ci/run installs it from Debian's archive)")
        conf = tmp_path_factory.mktemp("squid") / "squid.conf"
        conf.write_text(_SQUID_CONF.format(port=port))
        command = [squid, "-N", "-n", service, "-f", str(conf)]
    else:
        command = [sys.executable, "-m", "proxy", "--hostname", "127.0.0.1", "--port", str(port)]
        command += ["--num-workers", "1", "--num-acceptors", "1", "--log-level", "ERROR"]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        _wait_listening(port, process, request.param)
        yield f"http://127.0.0.1:{port}"
    finally:
        if request.param == "squid":
            # squid keeps no state here but takes seconds to stop on SIGTERM even with
            # shutdown_lifetime 0: it is killed outright, and its segments removed.
            _stop(process, signal.SIGKILL)
            for segment in Path("/dev/shm").glob(f"{service}-*"):
                segment.unlink(missing_ok=True)
        else:
            _stop(process, signal.SIGTERM)


def _stop(process: subprocess.Popen[bytes], stop: signal.Signals) -> None:
    try:
        os.killpg(process.pid, stop)
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
    except ProcessLookupError:  # already gone (it failed to start)
        process.wait(10)


def _wait_listening(port: int, process: subprocess.Popen[bytes], name: str) -> None:
    for _ in range(1000):
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited at start ({process.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.01)
    raise RuntimeError(f"{name} did not listen")


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    for name in ("SSL_CERT_DIR", "CODEX_CA_CERTIFICATE", "NODE_EXTRA_CA_CERTS"):
        monkeypatch.delenv(name, raising=False)


async def _streams(fmt: Format, root: str) -> None:
    """One request of ``fmt`` to ``root``, its reply streamed in the app's three pieces."""
    model = model_for(fmt, root)
    pieces: list[str] = []
    try:
        reply = await model.complete(REQUEST, on_text=pieces.append)
    finally:
        await model.aclose()
    assert reply.text == "".join(PIECES)
    assert pieces == list(PIECES)


@pytest.mark.parametrize("fmt", FORMATS)
async def test_each_format_tunnels_through_the_proxy_to_a_verified_server(
    fmt: Format, served: Served, proxy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(served.ca))
    monkeypatch.setenv("HTTPS_PROXY", proxy)
    seen = len(served.app.clients)
    await _streams(fmt, served.tls_root)
    assert len(served.app.clients) == seen + 1


@pytest.mark.parametrize("fmt", FORMATS)
async def test_each_format_streams_plain_http_through_the_proxy(
    fmt: Format, served: Served, proxy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy)
    seen = len(served.app.via)
    await _streams(fmt, served.plain_root)
    assert len(served.app.via) == seen + 1
    assert served.app.via[-1] != ""  # the proxy's own Via: it went through


@pytest.mark.parametrize(
    "variables",
    [
        pytest.param({"HTTPS_PROXY": "{proxy}"}, id="https-proxy-is-not-for-http"),
        pytest.param({"HTTP_PROXY": "{proxy}", "NO_PROXY": "localhost"}, id="no-proxy"),
        pytest.param({"ALL_PROXY": "{proxy}", "NO_PROXY": "*"}, id="no-proxy-star"),
    ],
)
async def test_what_the_variables_exempt_goes_direct(
    variables: dict[str, str], served: Served, proxy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value.format(proxy=proxy))
    seen = len(served.app.via)
    await _streams("anthropic", served.plain_root)
    assert served.app.via[seen:] == [""]  # no proxy's Via: it came direct


async def test_a_proxy_that_is_not_there_is_a_clear_connection_error(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(served.ca))
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{_free_port()}")
    model = model_for("anthropic", served.tls_root)
    try:
        with pytest.raises(ModelError) as caught:
            await model.complete(REQUEST)
    finally:
        await model.aclose()
    assert caught.value.message.startswith("API Error: Connection error.")
    assert f"[{served.tls_root}]" in caught.value.message
