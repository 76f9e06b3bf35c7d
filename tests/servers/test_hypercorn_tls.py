"""The model client against hypercorn over TLS, its certificate from a test CA (trustme).

Every wire format verifies the server against the CA named by ``SSL_CERT_FILE``, or added
to the system's by the variables Claude Code (``NODE_EXTRA_CA_CERTS``) and Codex
(``CODEX_CA_CERTIFICATE``) read; a host the certificate does not name, and a CA file that
cannot be loaded, fail at once (not retried) with a message saying which and why.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from dsh.models import ModelError
from tests.servers.app import PIECES, App, hypercorn_server
from tests.servers.formats import FORMATS, REQUEST, Format, model_for

_CA_FILE_VARIABLES = ("SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "CODEX_CA_CERTIFICATE")
_CA_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "CODEX_CA_CERTIFICATE", "NODE_EXTRA_CA_CERTS")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[App, str, Path]]:
    where = tmp_path_factory.mktemp("tls")
    ca = trustme.CA()
    ca.cert_pem.write_to_path(where / "ca.pem")
    issued = ca.issue_cert("localhost")
    issued.cert_chain_pems[0].write_to_path(where / "cert.pem")
    issued.private_key_pem.write_to_path(where / "key.pem")
    app = App()
    with hypercorn_server(app, cert=where / "cert.pem", key=where / "key.pem") as root:
        yield app, root, where / "ca.pem"


@pytest.fixture(autouse=True)
def no_ca_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _CA_VARIABLES:
        monkeypatch.delenv(name, raising=False)


async def _ask(model_args: tuple[Format, str], **options: object) -> str:
    model = model_for(*model_args, **options)  # type: ignore[arg-type]
    try:
        return (await model.complete(REQUEST)).text
    finally:
        await model.aclose()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "variable", ["SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "CODEX_CA_CERTIFICATE"]
)
async def test_the_test_cas_certificate_is_verified(
    fmt: Format, variable: str, served: tuple[App, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, root, ca = served
    monkeypatch.setenv(variable, str(ca))
    assert await _ask((fmt, root)) == "".join(PIECES)


@pytest.mark.parametrize("fmt", FORMATS)
async def test_without_the_ca_the_server_is_refused_at_once(
    fmt: Format, served: tuple[App, str, Path]
) -> None:
    app, root, _ = served
    seen = len(app.clients)
    model = model_for(fmt, root, retries=3)
    notices: list[object] = []
    model.on_retry = notices.append
    try:
        with pytest.raises(ModelError, match="The server's certificate was refused: ") as caught:
            await model.complete(REQUEST)
    finally:
        await model.aclose()
    assert "unable to get local issuer certificate" in caught.value.message
    assert notices == []
    assert len(app.clients) == seen


@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_host_the_certificate_does_not_name_is_refused(
    fmt: Format, served: tuple[App, str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, root, ca = served
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    with pytest.raises(ModelError) as caught:
        await _ask((fmt, root.replace("localhost", "127.0.0.1")), retries=3)
    message = caught.value.message
    assert "The server's certificate was refused: " in message
    assert "IP address mismatch, certificate is not valid for '127.0.0.1'" in message


@pytest.mark.parametrize(
    "variable", ["SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "CODEX_CA_CERTIFICATE"]
)
async def test_a_ca_file_that_cannot_be_loaded_is_named(
    variable: str, served: tuple[App, str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _, root, _ = served
    bad = tmp_path / "not-a-ca.pem"
    bad.write_text("no certificate here\n")
    monkeypatch.setenv(variable, str(bad))
    with pytest.raises(ModelError) as caught:
        await _ask(("anthropic", root), retries=3)
    message = caught.value.message
    assert message.startswith(f"API Error: the trust store for https: ${variable} ({bad}): ")
    assert "cannot load its certificates" in message
