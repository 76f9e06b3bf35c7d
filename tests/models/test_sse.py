"""The SSE decoder: the same events however the bytes are cut, and malformed lines named."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.models._sse import ServerSentEvent, SSEDecoder, SSEError

_TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r\n\0"))
_ENDINGS = st.sampled_from([b"\n", b"\r\n", b"\r"])


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[ServerSentEvent]]:
    """A well-formed stream with mixed line endings, and the events it holds."""
    lines: list[str] = []
    expected: list[ServerSentEvent] = []
    last_id = ""
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            lines.append(":" + draw(_TEXT))  # a comment, as keep-alives are
        event = draw(st.sampled_from(["", "message", "delta", "error"]))
        if event:
            lines.append(f"event: {event}")
        if draw(st.booleans()):
            last_id = draw(_TEXT)
            lines.append(f"id: {last_id}")
        if draw(st.booleans()):
            lines.append("retry: 1000")
        data = draw(st.lists(_TEXT, max_size=3))
        lines.extend(f"data: {d}" for d in data)
        lines.append("")
        if data:
            expected.append(ServerSentEvent(event or "message", "\n".join(data), last_id))
    blob = b"\xef\xbb\xbf" if draw(st.booleans()) else b""
    ending = b""
    for line in lines:
        if not line and ending == b"\r":  # a bare LF here would make the CR before it a CRLF
            ending = draw(st.sampled_from([b"\r\n", b"\r"]))
        else:
            ending = draw(_ENDINGS)
        blob += line.encode() + ending
    return blob, expected


def cut(blob: bytes, points: list[int]) -> list[bytes]:
    bounds = sorted({0, len(blob), *(p % (len(blob) + 1) for p in points)})
    return [blob[a:b] for a, b in itertools.pairwise(bounds)]


def outcome(pieces: list[bytes]) -> tuple[list[ServerSentEvent], str | None]:
    """The events decoded before any error, and the error's message."""
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    try:
        for piece in pieces:
            events.extend(decoder.feed(piece))
        decoder.close()
    except SSEError as e:
        return events, str(e)
    return events, None


@given(streams(), st.lists(st.integers(0, 10_000)))
def test_a_stream_cut_anywhere_gives_its_events(
    stream: tuple[bytes, list[ServerSentEvent]], points: list[int]
) -> None:
    blob, expected = stream
    assert outcome([blob]) == (expected, None)
    assert outcome(cut(blob, points)) == (expected, None)


@given(st.binary(max_size=300), st.lists(st.integers(0, 10_000)))
def test_any_bytes_give_events_or_a_named_error_the_same_however_cut(
    blob: bytes, points: list[int]
) -> None:
    whole = outcome([blob])
    assert outcome(cut(blob, points)) == whole
    assert outcome([bytes([b]) for b in blob]) == whole
    _, error = whole
    if error is not None:
        assert error.startswith("line ")


@given(streams(), _TEXT)
def test_an_event_the_stream_does_not_finish_is_dropped(
    stream: tuple[bytes, list[ServerSentEvent]], data: str
) -> None:
    blob, expected = stream
    assert outcome([blob + f"data: {data}\n".encode()]) == (expected, None)


def test_a_crlf_cut_between_its_cr_and_lf_is_one_line_end() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\n") == []
    assert decoder.feed(b"\r\n") == [ServerSentEvent("message", "a")]


def test_lines_that_are_not_utf8_are_named() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: ok\n\n")
    with pytest.raises(SSEError, match=r"line 3 is not UTF-8 \(byte 6: b'\\xff'\)"):
        decoder.feed(b"data: \xff\n")


def test_an_unknown_field_is_named_with_the_line() -> None:
    decoder = SSEDecoder()
    with pytest.raises(SSEError) as caught:
        decoder.feed(b': keep-alive\n{"error": {"message": "overloaded"}}\n')
    message = str(caught.value)
    assert message.startswith("line 2 has an unknown field '{\"error\"'")
    assert "overloaded" in message


def test_an_unterminated_last_line_is_still_checked() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\n\nbogus") == [ServerSentEvent("message", "x")]
    with pytest.raises(SSEError, match="line 3 has an unknown field 'bogus'"):
        decoder.close()
