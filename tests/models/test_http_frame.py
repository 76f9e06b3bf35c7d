"""The response-head reader, the chunked decoder and the content codings, fed cut anywhere.

Hypothesis: whatever the cuts, the same head, the same body; whatever the bytes,
an answer or a ``FramingError``, never another exception or unbounded holding.
"""

from __future__ import annotations

import gzip
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.models._http_frame import (
    MAX_HEAD_BYTES,
    PIECE_BYTES,
    ChunkedDecoder,
    ContentDecoder,
    FramingError,
    Headers,
    HeadReader,
    ResponseHead,
    body_framing,
    keeps_alive,
)

TOKEN = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!#$", min_size=1)
VALUE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40).map(str.strip)
FIELDS = st.lists(st.tuples(TOKEN, VALUE), max_size=20)


def cut(data: bytes, points: list[int]) -> list[bytes]:
    marks = sorted({p % (len(data) + 1) for p in points})
    return [data[a:b] for a, b in zip([0, *marks], [*marks, len(data)], strict=True)]


def read_head(pieces: list[bytes]) -> tuple[ResponseHead | None, bytes]:
    reader = HeadReader()
    for n, piece in enumerate(pieces):
        head = reader.feed(piece)
        if head is not None:
            return head, reader.rest + b"".join(pieces[n + 1 :])
    return None, b""


@given(
    status=st.integers(100, 599),
    reason=VALUE,
    fields=FIELDS,
    newline=st.sampled_from([b"\r\n", b"\n"]),
    after=st.binary(max_size=50),
    points=st.lists(st.integers(0, 5000), max_size=12),
)
def test_a_head_cut_anywhere_reads_as_it_was_sent(
    status: int,
    reason: str,
    fields: list[tuple[str, str]],
    newline: bytes,
    after: bytes,
    points: list[int],
) -> None:
    lines = [f"HTTP/1.1 {status} {reason}".encode()]
    lines += [f"{name}: {value}".encode() for name, value in fields]
    wire = newline.join(lines) + newline + newline + after
    head, rest = read_head(cut(wire, points))
    assert head == ResponseHead("HTTP/1.1", status, reason, Headers(fields))
    assert rest == after


@settings(max_examples=300)
@given(st.lists(st.binary(max_size=300), max_size=8))
def test_any_bytes_give_a_head_nothing_yet_or_a_framing_error(pieces: list[bytes]) -> None:
    reader = HeadReader()
    try:
        for piece in pieces:
            if reader.feed(piece) is not None:
                break
    except FramingError:
        pass


def test_a_head_is_bounded_whatever_its_lines() -> None:
    for line in (b"X: " + b"a" * 100 + b"\r\n", b"a" * 1000):
        reader = HeadReader()
        for _ in range(MAX_HEAD_BYTES // len(line)):
            assert reader.feed(line) is None
        with pytest.raises(FramingError, match="over 64 KiB"):
            reader.feed(line * 2)
    many = b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 101 + b"\r\n"
    with pytest.raises(FramingError, match="over 100 header lines"):
        HeadReader().feed(many)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ([("Content-Length", "12")], ("length", 12)),
        ([("Content-Length", "12, 12")], ("length", 12)),
        ([("Transfer-Encoding", "chunked"), ("Content-Length", "3")], ("chunked", 0)),
        ([], ("close", 0)),
    ],
)
def test_the_body_framing(fields: list[tuple[str, str]], expected: tuple[str, int]) -> None:
    assert body_framing(ResponseHead("HTTP/1.1", 200, "OK", Headers(fields))) == expected
    assert body_framing(ResponseHead("HTTP/1.1", 204, "", Headers(fields))) == ("none", 0)


@pytest.mark.parametrize(
    "fields",
    [
        [("Content-Length", "-1")],
        [("Content-Length", "1e3")],
        [("Content-Length", "9" * 19)],
        [("Content-Length", "1"), ("Content-Length", "2")],
        [("Transfer-Encoding", "gzip, chunked")],
        [("Transfer-Encoding", "identity")],
    ],
)
def test_a_body_framing_that_cannot_be_trusted(fields: list[tuple[str, str]]) -> None:
    with pytest.raises(FramingError):
        body_framing(ResponseHead("HTTP/1.1", 200, "OK", Headers(fields)))


def test_keep_alive_by_version_and_connection() -> None:
    def head(version: str, *fields: tuple[str, str]) -> ResponseHead:
        return ResponseHead(version, 200, "OK", Headers(fields))

    assert keeps_alive(head("HTTP/1.1"))
    assert not keeps_alive(head("HTTP/1.1", ("Connection", "Close")))
    assert not keeps_alive(head("HTTP/1.0"))
    assert keeps_alive(head("HTTP/1.0", ("Connection", "keep-alive")))


def chunked_wire(
    body: bytes, sizes: list[int], extensions: bool, trailers: list[tuple[str, str]]
) -> bytes:
    out, at = [], 0
    for size in [*sizes, len(body)]:
        piece = body[at : at + max(size, 1)]
        if not piece:
            break
        at += len(piece)
        out.append(b"%X%s\r\n%s\r\n" % (len(piece), b";a=b" if extensions else b"", piece))
    fields = b"".join(f"{n}: {v}\r\n".encode() for n, v in trailers)
    return b"".join(out) + b"0\r\n" + fields + b"\r\n"


@given(
    body=st.binary(max_size=2000),
    sizes=st.lists(st.integers(1, 300), max_size=10),
    extensions=st.booleans(),
    trailers=FIELDS,
    after=st.binary(max_size=20),
    points=st.lists(st.integers(0, 5000), max_size=12),
)
def test_a_chunked_body_cut_anywhere_decodes_to_what_was_sent(
    body: bytes,
    sizes: list[int],
    extensions: bool,
    trailers: list[tuple[str, str]],
    after: bytes,
    points: list[int],
) -> None:
    decoder = ChunkedDecoder()
    got = b""
    for piece in cut(chunked_wire(body, sizes, extensions, trailers) + after, points):
        got += b"".join(decoder.feed(piece))
    assert (got, decoder.done, decoder.rest) == (body, True, after)


@settings(max_examples=300)
@given(st.lists(st.binary(max_size=200), max_size=8))
def test_any_bytes_give_body_data_or_a_framing_error(pieces: list[bytes]) -> None:
    decoder = ChunkedDecoder()
    try:
        for piece in pieces:
            decoder.feed(piece)
    except FramingError:
        pass


@pytest.mark.parametrize(
    ("wire", "problem"),
    [
        (b"1" + b"0" * 16 + b"\r\n", "chunk size overflow"),
        (b"FFFFFFFFFFFFFFFF\r\n", "chunk size overflow"),
        (b"x\r\n", "not a chunk size"),
        (b"\r\n", "not a chunk size"),
        (b"1 2\r\n", "not a chunk size"),
        (b"2\r\nabc", "runs past its size"),
        (b"2\r\nab\r\n0\r\nbad trailer\r\n", "not 'name: value'"),
        (b"1" * 5000, "over 4096 bytes"),
    ],
)
def test_a_broken_chunked_body(wire: bytes, problem: str) -> None:
    with pytest.raises(FramingError, match=problem):
        ChunkedDecoder().feed(wire)


def test_leading_zeros_are_not_an_overflow() -> None:
    assert ChunkedDecoder().feed(b"0000000000000000000001\r\nx\r\n") == [b"x"]


def squeeze(coding: str, data: bytes) -> bytes:
    if coding == "gzip":
        return gzip.compress(data)
    if coding == "deflate":
        return zlib.compress(data)
    raw = zlib.compressobj(wbits=-15)
    return raw.compress(data) + raw.flush()


@given(
    data=st.binary(max_size=3000),
    coding=st.sampled_from(["gzip", "deflate", "raw deflate"]),
    points=st.lists(st.integers(0, 5000), max_size=8),
)
def test_content_codings_cut_anywhere_decode(data: bytes, coding: str, points: list[int]) -> None:
    decoder = ContentDecoder([coding.removeprefix("raw ")])
    got = b"".join(p for piece in cut(squeeze(coding, data), points) for p in decoder.decode(piece))
    assert got + b"".join(decoder.flush()) == data


def test_a_bomb_comes_out_a_bounded_piece_at_a_time() -> None:
    decoder = ContentDecoder(["gzip"])
    pieces = list(decoder.decode(gzip.compress(b"\n" * (8 * PIECE_BYTES))))
    assert max(map(len, pieces)) <= PIECE_BYTES
    assert sum(map(len, pieces)) == 8 * PIECE_BYTES


def test_unknown_or_broken_codings_are_framing_errors() -> None:
    with pytest.raises(FramingError, match="unsupported Content-Encoding 'br'"):
        ContentDecoder(["br"])
    with pytest.raises(FramingError, match="does not decompress"):
        list(ContentDecoder(["gzip"]).decode(b"not gzip at all"))
    assert ContentDecoder(["identity"]).identity
