"""HTTP/1.1 response framing, pure and bounded: the head, chunked bodies, content codings.

Bytes go in as they arrive, cut anywhere; what they complete comes out. A
server is hostile until its bytes parse: a head is at most ``MAX_HEAD_BYTES``
and ``MAX_HEADERS`` fields, a chunk-size line at most ``MAX_LINE_BYTES`` and 16
hex digits, trailers are bounded as a head is, and a content coding never
gives more than ``PIECE_BYTES`` at a time. Anything else is a ``FramingError``
naming the problem. Lines end in CRLF or, as RFC 9112 lets a client accept, a
bare LF; a field folded onto the next line (obs-fold) is joined with a space.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Literal, final

from dsh._frozen import frozen

__all__ = [
    "MAX_HEADERS",
    "MAX_HEAD_BYTES",
    "ChunkedDecoder",
    "ContentDecoder",
    "FramingError",
    "HeadReader",
    "Headers",
    "ResponseHead",
    "body_framing",
]

MAX_HEAD_BYTES = 64 * 1024
MAX_HEADERS = 100
MAX_LINE_BYTES = 4096  # a chunk-size line, with its extensions
PIECE_BYTES = 256 * 1024  # the most a content coding expands to at once
_MAX_CODINGS = 4
_TOKEN = frozenset(b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_HEX = frozenset(b"0123456789abcdefABCDEF")
_EXCERPT = 60
_CONTROL = bytes(range(0x20)).replace(b"\t", b"") + b"\x7f"


class FramingError(ValueError):
    """The response broke HTTP/1.1's framing; the message says where."""


def _has_control(raw: bytes) -> bool:
    return len(raw.translate(None, _CONTROL)) != len(raw)


def _excerpt(raw: bytes) -> str:
    return repr(raw[:_EXCERPT]) + ("…" if len(raw) > _EXCERPT else "")


@final
class Headers(Mapping[str, str]):
    """A response's fields by lower-cased name; repeated fields read joined with ``", "``."""

    __slots__ = ("_fields", "items_in_order")

    def __init__(self, fields: Sequence[tuple[str, str]] = ()) -> None:
        self.items_in_order = tuple((name.lower(), value) for name, value in fields)
        joined: dict[str, str] = {}
        for name, value in self.items_in_order:
            joined[name] = f"{joined[name]}, {value}" if name in joined else value
        self._fields = joined

    def __getitem__(self, name: str) -> str:
        return self._fields[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._fields

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def tokens(self, name: str) -> list[str]:
        """A list-valued field's comma-separated members, lower-cased, empty ones dropped."""
        return [t.strip().lower() for t in self._fields.get(name, "").split(",") if t.strip()]

    def __repr__(self) -> str:
        return f"Headers({list(self.items_in_order)!r})"


@final
@frozen
class ResponseHead:
    """A status line and its fields: ``version`` is ``"HTTP/1.0"`` or ``"HTTP/1.1"``."""

    version: str
    status: int
    reason: str
    headers: Headers


def _field(line: bytes) -> tuple[str, str]:
    name, colon, value = line.partition(b":")
    if not colon or not name or not _TOKEN.issuperset(name):
        raise FramingError(f"a header line is not 'name: value': {_excerpt(line)}")
    value = value.strip(b" \t")
    if _has_control(value):
        raise FramingError(f"header {name.decode()!r} holds a control character")
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        text = value.decode("latin-1")
    return name.decode("ascii"), text


def _status_line(line: bytes) -> tuple[str, int, str]:
    version, _, rest = line.partition(b" ")
    code, _, reason = rest.partition(b" ")
    if version not in (b"HTTP/1.1", b"HTTP/1.0") or len(code) != 3 or not code.isdigit():
        raise FramingError(f"not an HTTP/1.1 status line: {_excerpt(line)}")
    if _has_control(reason):
        raise FramingError(f"the status line holds a control character: {_excerpt(line)}")
    return version.decode(), int(code), reason.decode("latin-1")


def _lines(block: bytes) -> list[bytes]:
    """A head's lines, LF or CRLF ended (a CR anywhere else is an error), folds joined."""
    lines: list[bytes] = []
    for raw in block.split(b"\n"):
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if b"\r" in line:
            raise FramingError(f"a bare CR in the head: {_excerpt(line)}")
        if line[:1] in (b" ", b"\t") and len(lines) > 1:
            lines[-1] += b" " + line.strip(b" \t")
        else:
            lines.append(line)
    return lines


def parse_head(block: bytes) -> ResponseHead:
    """A head (its lines, without the blank line that ends it). Raises ``FramingError``."""
    status, *fields = _lines(block)
    if len(fields) > MAX_HEADERS:
        raise FramingError(f"the head has over {MAX_HEADERS} header lines")
    if fields and fields[0][:1] in (b" ", b"\t"):
        raise FramingError("the first header line is folded onto the status line")
    version, code, reason = _status_line(status)
    return ResponseHead(version, code, reason, Headers([_field(f) for f in fields]))


@final
class HeadReader:
    """Finds the end of a head in the bytes fed; ``rest`` is what followed it."""

    __slots__ = ("_buf", "_scan", "rest")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._scan = 0
        self.rest = b""

    def feed(self, data: bytes) -> ResponseHead | None:
        """The head once ``data`` completes it, else None. Raises ``FramingError``."""
        buf = self._buf
        buf += data
        while (end := buf.find(b"\n", self._scan)) != -1:
            line_start = self._scan
            self._scan = end + 1
            if end == line_start or (end == line_start + 1 and buf[line_start] == 0x0D):
                if line_start == 0:  # no status line: a blank line before it
                    raise FramingError("the response starts with a blank line")
                self.rest = bytes(buf[self._scan :])
                return parse_head(bytes(buf[: line_start - 1]).removesuffix(b"\r"))
            if self._scan > MAX_HEAD_BYTES:
                break
        if len(buf) > MAX_HEAD_BYTES:
            raise FramingError(f"the response head is over {MAX_HEAD_BYTES // 1024} KiB")
        return None


Framing = Literal["none", "length", "chunked", "close"]


def body_framing(head: ResponseHead) -> tuple[Framing, int]:
    """How the body is delimited (RFC 9112 6.3) and its length when it has one."""
    if head.status < 200 or head.status in (204, 304):
        return "none", 0
    codings = head.headers.tokens("transfer-encoding")
    if codings:
        if codings != ["chunked"]:
            raise FramingError(f"unsupported Transfer-Encoding {', '.join(codings)!r}")
        return "chunked", 0
    lengths = {v.strip() for v in head.headers.get("content-length", "").split(",")} - {""}
    if not lengths:
        return "close", 0
    if len(lengths) > 1:
        raise FramingError(f"conflicting Content-Length values {sorted(lengths)}")
    (length,) = lengths
    if not length.isascii() or not length.isdigit() or len(length) > 18:
        raise FramingError(f"Content-Length {length[:_EXCERPT]!r} is not a byte count")
    return "length", int(length)


def keeps_alive(head: ResponseHead) -> bool:
    """Whether the server lets the connection carry another request after this one."""
    tokens = head.headers.tokens("connection")
    if head.version == "HTTP/1.1":
        return "close" not in tokens
    return "keep-alive" in tokens


_SIZE, _DATA, _DATA_END, _TRAILERS, _DONE = range(5)


@final
class ChunkedDecoder:
    """A chunked body's data from its wire bytes; ``done`` at the last chunk's trailers' end.

    ``rest`` is what followed the body (nothing, from a server that keeps to the
    protocol). Chunk extensions are ignored, trailers checked and dropped.
    """

    __slots__ = ("_buf", "_left", "_state", "_trailer_bytes", "_trailers", "rest")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._state = _SIZE
        self._left = 0
        self._trailers = 0
        self._trailer_bytes = 0
        self.rest = b""

    @property
    def done(self) -> bool:
        return self._state == _DONE

    def feed(self, data: bytes) -> list[bytes]:
        """The body data ``data`` completes, in order. Raises ``FramingError``."""
        if self._state == _DONE:
            self.rest += data
            return []
        self._buf += data
        out: list[bytes] = []
        while self._step(out):
            pass
        return out

    def _step(self, out: list[bytes]) -> bool:
        """One move of the state machine; False when it needs more bytes."""
        buf = self._buf
        if self._state == _DATA:
            if not buf:
                return False
            piece = bytes(buf[: self._left])
            del buf[: len(piece)]
            self._left -= len(piece)
            out.append(piece)
            if self._left == 0:
                self._state = _DATA_END
            return True
        if self._state == _DATA_END:
            return self._data_end(buf)
        if self._state == _DONE:
            return False
        line = self._line(buf)
        if line is None:
            return False
        if self._state == _SIZE:
            self._size(line)
        else:
            self._trailer(line)
        return True

    def _data_end(self, buf: bytearray) -> bool:
        if buf[:2] == b"\r\n" or buf[:1] == b"\n":
            del buf[: 2 if buf[:1] == b"\r" else 1]
            self._state = _SIZE
            return True
        if not buf or (len(buf) == 1 and buf[0] == 0x0D):
            return False
        raise FramingError(f"a chunk's data runs past its size: {_excerpt(bytes(buf))}")

    def _line(self, buf: bytearray) -> bytes | None:
        end = buf.find(b"\n")
        if end == -1:
            if len(buf) > MAX_LINE_BYTES:
                raise FramingError(f"a chunk line is over {MAX_LINE_BYTES} bytes")
            return None
        line = bytes(buf[:end])
        del buf[: end + 1]
        line = line.removesuffix(b"\r")
        if b"\r" in line:
            raise FramingError(f"a bare CR in a chunk line: {_excerpt(line)}")
        return line

    def _size(self, line: bytes) -> None:
        digits = line.split(b";", 1)[0].rstrip(b" \t")
        if not digits or not _HEX.issuperset(digits):
            raise FramingError(f"not a chunk size: {_excerpt(line)}")
        if len(digits.lstrip(b"0")) > 15:  # past 2**60: no server sends that much
            raise FramingError(f"chunk size overflow: {_excerpt(digits)}")
        self._left = int(digits, 16)
        self._state = _DATA if self._left else _TRAILERS

    def _trailer(self, line: bytes) -> None:
        if not line:
            self._state = _DONE
            self.rest = bytes(self._buf)
            self._buf.clear()
            return
        self._trailers += 1
        self._trailer_bytes += len(line)
        if self._trailers > MAX_HEADERS or self._trailer_bytes > MAX_HEAD_BYTES:
            raise FramingError("the chunked body's trailers are over the head's limits")
        _field(line)


@final
class ContentDecoder:
    """A ``Content-Encoding`` undone (gzip, deflate, or several), a bounded piece at a time."""

    __slots__ = ("_stages",)

    def __init__(self, codings: Sequence[str]) -> None:
        codings = [c for c in codings if c != "identity"]
        if len(codings) > _MAX_CODINGS:
            raise FramingError(f"over {_MAX_CODINGS} content codings")
        self._stages: list[_Inflate] = []
        for coding in reversed(codings):  # the last applied is the first to undo
            if coding not in ("gzip", "x-gzip", "deflate"):
                raise FramingError(f"unsupported Content-Encoding {coding!r}")
            self._stages.append(_Inflate(gzip=coding != "deflate"))

    @property
    def identity(self) -> bool:
        return not self._stages

    def decode(self, data: bytes) -> Iterator[bytes]:
        pieces: Iterator[bytes] = iter((data,))
        for stage in self._stages:
            pieces = stage.pieces(pieces)
        return (p for p in pieces if p)

    def flush(self) -> Iterator[bytes]:
        """What the codings still hold at the end of the body."""
        pieces: Iterator[bytes] = iter(())
        for stage in self._stages:
            pieces = stage.pieces(pieces, final=True)
        return (p for p in pieces if p)


@final
class _Inflate:
    """One coding undone; ``deflate`` is zlib-wrapped or raw, told apart by its first two bytes."""

    __slots__ = ("_lead", "_z")

    def __init__(self, *, gzip: bool) -> None:
        self._lead = b""  # deflate's first bytes, until there are two to tell by
        self._z = zlib.decompressobj(zlib.MAX_WBITS | 16) if gzip else None

    def pieces(self, data: Iterator[bytes], *, final: bool = False) -> Iterator[bytes]:
        for chunk in data:
            yield from self._inflate(chunk)
        if final:  # a truncated stream is the framing's to notice, as other clients do
            if self._z is None:  # under two bytes in all: raw deflate, or nothing
                lead, self._lead = self._lead, b""
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                yield from self._inflate(lead)
            try:
                yield self._z.flush()
            except zlib.error as e:
                raise FramingError(f"the body does not decompress: {e}") from None

    def _started(self, chunk: bytes) -> tuple[zlib._Decompress | None, bytes]:
        if self._z is not None:
            return self._z, chunk
        self._lead += chunk
        lead = self._lead
        if len(lead) < 2:
            return None, b""
        wrapped = lead[0] & 0x0F == 8 and (lead[0] << 8 | lead[1]) % 31 == 0
        self._z = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        return self._z, lead

    def _inflate(self, chunk: bytes) -> Iterator[bytes]:
        z, chunk = self._started(chunk)
        if z is None:
            return
        while True:
            try:
                out = z.decompress(chunk, PIECE_BYTES)
            except zlib.error as e:
                raise FramingError(f"the body does not decompress: {e}") from None
            yield out
            chunk = z.unconsumed_tail
            if not chunk:
                return
