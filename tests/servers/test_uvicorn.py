"""The model client against uvicorn (HTTP/1.1 over h11): every wire format, one server.

A streamed reply in chunked framing arrives piece by piece with its usage; two requests
share one kept-alive connection; a stream the server breaks off mid-body and one that
stalls end in a ``ModelError`` naming the problem, not retried (text had streamed).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dsh.models import ModelError
from tests.servers.app import PIECES, App, uvicorn_server
from tests.servers.formats import FORMATS, REQUEST, Format, model_for


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[App, str]]:
    app = App()
    with uvicorn_server(app) as root:
        yield app, root


@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_chunked_stream_arrives_piece_by_piece_on_one_connection(
    fmt: Format, served: tuple[App, str]
) -> None:
    app, root = served
    seen = len(app.clients)
    model = model_for(fmt, root)
    pieces: list[str] = []
    try:
        for _ in range(2):
            reply = await model.complete(REQUEST, on_text=pieces.append)
            assert reply.text == "".join(PIECES)
            assert reply.usage is not None
            assert (reply.usage.input_tokens, reply.usage.output_tokens) == (7, 3)
    finally:
        await model.aclose()
    assert pieces == [*PIECES, *PIECES]
    assert len(app.clients) == seen + 2
    assert len(set(app.clients[seen:])) == 1  # kept alive: one client port for both


@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_stream_broken_off_by_the_server_fails_clearly(
    fmt: Format, served: tuple[App, str]
) -> None:
    _, root = served
    model = model_for(fmt, root, "broken", retries=3)
    notices: list[object] = []
    model.on_retry = notices.append
    pieces: list[str] = []
    try:
        with pytest.raises(ModelError) as caught:
            await model.complete(REQUEST, on_text=pieces.append)
    finally:
        await model.aclose()
    message = caught.value.message
    assert pieces == [PIECES[0]]
    assert notices == []  # text had streamed: not retried
    cut = "peer closed connection without sending complete message body (incomplete chunked read)"
    assert f"Connection error. ({cut})" in message
    assert message.startswith(
        {"chat": "model 'broken' at ", "anthropic": "API Error: ", "responses": "stream error: "}[
            fmt
        ]
    )


@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_stalled_stream_is_cut_at_the_reply_bound(
    fmt: Format, served: tuple[App, str]
) -> None:
    _, root = served
    model = model_for(fmt, root, "stall", reply_timeout=0.3)
    try:
        with pytest.raises(ModelError, match=r"took over 0\.3 seconds; it was cut off"):
            await model.complete(REQUEST)
    finally:
        await model.aclose()
