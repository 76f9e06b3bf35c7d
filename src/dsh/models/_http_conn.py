"""One HTTP/1.1 connection over asyncio's streams: a request out, a response's head and body in.

No timing here: the caller bounds each call (``asyncio.timeout``), and maps
``OSError`` (``ssl.SSLError`` is one) and ``FramingError`` to the wire's
errors. A response that ends early is ``Unreachable("Connection error.")``,
worded as httpx2 words it. ``aclose`` aborts the socket (no TLS goodbye a
hostile server could stall) and waits until it is closed, so a cancelled
request has closed its connection by the time the cancellation is through.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, final

from dsh._frozen import frozen
from dsh.models._http_frame import (
    ChunkedDecoder,
    ContentDecoder,
    FramingError,
    HeadReader,
    ResponseHead,
    body_framing,
    keeps_alive,
)
from dsh.models._wire import Unreachable

if TYPE_CHECKING:
    import ssl

__all__ = ["Connection", "Origin", "tls_context"]

_READ_BYTES = 64 * 1024
_MAX_INTERIM = 16  # 1xx heads before the response's own
_WRITES_VECTORED = sys.version_info >= (3, 12)  # the selector transport's writelines: sendmsg
_IOV_MAX = 1024
_QUEUED_CHUNK = 64 * 1024  # what a write queues at a time when the socket is full
# Where httpx2 (httpcore2) looks when OpenSSL's compiled-in paths name no file.
_CA_FILES = (
    "/etc/ssl/cert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/pki/tls/cert.pem",
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/ssl/ca-bundle.pem",
)


@final
@frozen
class Origin:
    """Where a connection goes: ``host`` as connected to (an IPv6 address unbracketed)."""

    scheme: str
    host: str
    port: int

    @property
    def authority(self) -> str:
        """The ``Host`` header: the port only when it is not the scheme's own."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


def _write_vectored(
    writer: asyncio.StreamWriter, lines: Sequence[bytes | memoryview]
) -> list[memoryview]:
    """As 3.12's transport does: one ``writev`` on the plain socket; what it did not take."""
    transport = writer.transport
    sent = 0
    sock = transport.get_extra_info("socket")
    if sock is not None and not transport.get_write_buffer_size() and not transport.is_closing():
        # Nothing queued, so nothing can be written ahead of these bytes.
        with contextlib.suppress(BlockingIOError, InterruptedError):
            sent = os.writev(sock.fileno(), lines[:_IOV_MAX])
    rest: list[memoryview] = []
    for line in lines:
        if sent >= len(line):
            sent -= len(line)
        else:
            rest.append(memoryview(line)[sent:])
            sent = 0
    return rest


EXTRA_CA_ENV_VARS = ("CODEX_CA_CERTIFICATE", "NODE_EXTRA_CA_CERTS")
"""Certificates Codex 0.171 and Claude Code 2.1.332 trust besides the usual ones."""


def tls_context() -> ssl.SSLContext:
    """httpx2's trust for ``https://``: ``SSL_CERT_FILE``, ``SSL_CERT_DIR``, else the system's;
    plus the certificates of ``$CODEX_CA_CERTIFICATE`` and ``$NODE_EXTRA_CA_CERTS`` (as
    Codex and Claude Code add theirs). ``ValueError`` naming the variable and the file for
    one that cannot be loaded."""
    import ssl

    cafile = os.environ.get("SSL_CERT_FILE")
    capath = None if cafile else os.environ.get("SSL_CERT_DIR")
    try:
        if cafile or capath:
            context = ssl.create_default_context(cafile=cafile or None, capath=capath)
        elif sys.platform in ("darwin", "win32"):  # the platform's own verifier
            import truststore

            context = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        else:
            context = _system_context(ssl)
    except (OSError, ssl.SSLError) as e:
        name, value = ("SSL_CERT_FILE", cafile) if cafile else ("SSL_CERT_DIR", capath)
        raise ValueError(f"${name} ({value}): cannot load its certificates: {e}") from None
    for name in EXTRA_CA_ENV_VARS:
        if extra := os.environ.get(name):
            try:
                context.load_verify_locations(cafile=extra)
            except (OSError, ssl.SSLError) as e:
                raise ValueError(f"${name} ({extra}): cannot load its certificates: {e}") from None
    context.set_alpn_protocols(["http/1.1"])
    return context


def _system_context(ssl: Any) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    paths = ssl.get_default_verify_paths()
    cafile = paths.openssl_cafile if os.path.isfile(paths.openssl_cafile) else None
    capath = paths.openssl_capath if os.path.isdir(paths.openssl_capath) else None
    if not cafile and not capath:
        cafile = next(filter(os.path.isfile, _CA_FILES), None)
    if cafile or capath:
        context.load_verify_locations(cafile, capath)
    return context  # type: ignore[no-any-return]


@final
class Connection:
    """A socket to ``origin``, one request at a time; ``reused`` once it served one before."""

    __slots__ = (
        "_chunked",
        "_content",
        "_done",
        "_framing",
        "_got",
        "_head",
        "_junk",
        "_left",
        "_reader",
        "_rest",
        "_writer",
        "origin",
        "received",
        "reused",
    )

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, origin: Origin
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.origin = origin
        self.reused = False
        self._begin()

    def _begin(self) -> None:
        self.received = 0  # response bytes read for the current request
        self._rest = b""
        self._head: ResponseHead | None = None
        self._framing = "none"
        self._left = self._got = 0
        self._chunked: ChunkedDecoder | None = None
        self._content = ContentDecoder(())
        self._done = False
        self._junk = False

    @classmethod
    async def open(cls, origin: Origin, tls: ssl.SSLContext | None) -> Connection:
        reader, writer = await asyncio.open_connection(
            origin.host,
            origin.port,
            ssl=tls,
            server_hostname=origin.host if tls is not None else None,
            limit=_READ_BYTES,
        )
        return cls(reader, writer, origin)

    @property
    def usable(self) -> bool:
        """Still open at both ends (an idle connection the server closed has seen EOF)."""
        return not self._writer.is_closing() and not self._reader.at_eof()

    @property
    def may_carry_another(self) -> bool:
        """The response is framed and the server keeps the connection open after it."""
        head = self._head
        return head is not None and self._framing != "close" and keeps_alive(head)

    @property
    def reusable(self) -> bool:
        """The response read to its framed end, nothing after it, and the server keeps it open."""
        return self.may_carry_another and self._done and not self._junk and self.usable

    async def send(self, head: bytes, body: bytes | Iterable[bytes], timeout: float) -> None:
        """The request: a small body rides in the head's write, a long one goes chunk by chunk."""
        self._begin()
        if isinstance(body, bytes):
            self._writer.write(head + body)
        else:
            self._writer.write(head)
            await self._write_paced(body, timeout)
        async with asyncio.timeout(timeout):
            await self._writer.drain()

    async def send_parts(
        self, head: bytes, parts: Sequence[bytes | memoryview], timeout: float
    ) -> None:
        """The request in one vectored write where the socket takes it: no part copied or joined.

        The kernel takes what fits; the rest is queued 64 KiB at a time (a long
        history is never copied whole). On 3.12+ the transport writes vectored
        itself, keeping views; on 3.11 it joins, so a plain connection with
        nothing queued writes to its socket first.
        """
        self._begin()
        writer = self._writer
        lines: Sequence[bytes | memoryview] = [head, *parts]
        if _WRITES_VECTORED:
            writer.writelines(lines)
        else:
            if self.origin.scheme == "http":
                lines = _write_vectored(writer, lines)
            chunks = (
                line[start : start + _QUEUED_CHUNK]
                for line in lines
                for start in range(0, len(line), _QUEUED_CHUNK)
            )
            await self._write_paced(chunks, timeout)
        async with asyncio.timeout(timeout):
            await writer.drain()

    async def _write_paced(self, chunks: Iterable[bytes | memoryview], timeout: float) -> None:
        """Each chunk written once the one before has left the transport's queue."""
        writer = self._writer
        for chunk in chunks:
            # A timeout scope per chunk cost more than the chunk's send: only a
            # write still queued can make this wait.
            if writer.transport.get_write_buffer_size():
                async with asyncio.timeout(timeout):
                    await writer.drain()
            writer.write(chunk)

    async def _recv(self) -> bytes:
        if self._rest:
            data, self._rest = self._rest, b""
            return data
        data = await self._reader.read(_READ_BYTES)
        self.received += len(data)
        return data

    async def read_head(self) -> ResponseHead:
        """The response's head (1xx interim heads skipped). Raises ``FramingError``."""
        reader, pending, interim = HeadReader(), b"", 0
        while True:
            data = pending or await self._recv()
            pending = b""
            if not data:
                raise Unreachable("Connection error.", self._ended_in_head())
            head = reader.feed(data)
            if head is None:
                continue
            if 100 <= head.status < 200 and head.status != 101:
                interim += 1
                if interim > _MAX_INTERIM:
                    raise FramingError(f"over {_MAX_INTERIM} interim (1xx) responses")
                reader, pending = HeadReader(), reader.rest
                continue
            self._rest = reader.rest
            self._start_body(head)
            return head

    def _ended_in_head(self) -> str:
        if self.received == 0:
            return "Server disconnected without sending a response."
        return "peer closed connection in the middle of the response head"

    def _start_body(self, head: ResponseHead) -> None:
        self._head = head
        self._framing, self._left = body_framing(head)
        if self._framing == "length" and self._left == 0:
            self._framing = "none"
        if self._framing == "chunked":
            self._chunked = ChunkedDecoder()
        self._content = ContentDecoder(head.headers.tokens("content-encoding"))

    async def read_body(self) -> list[bytes] | None:
        """The next decoded pieces of the body (maybe none yet); None after its end."""
        if self._done:
            return None
        raw: list[bytes] = []
        if self._framing != "none":
            data = await self._recv()
            raw = self._framed(data)
        else:
            self._done = True
        pieces = [p for r in raw for p in self._content.decode(r)]
        if self._done:
            pieces += self._content.flush()
        return pieces

    def _framed(self, data: bytes) -> list[bytes]:
        if self._framing == "close":
            self._done = not data
            return [data] if data else []
        if not data:
            raise Unreachable("Connection error.", self._ended_in_body())
        if self._framing == "length":
            take = data[: self._left]
            self._left -= len(take)
            self._got += len(take)
            self._junk |= len(take) < len(data)
            self._done = self._left == 0
            return [take]
        chunked = self._chunked
        assert chunked is not None
        pieces = chunked.feed(data)
        if chunked.done:
            self._done = True
            self._junk |= bool(chunked.rest)
        return pieces

    def _ended_in_body(self) -> str:
        detail = "peer closed connection without sending complete message body"
        if self._framing == "length":
            return f"{detail} (received {self._got} bytes, expected {self._got + self._left})"
        return f"{detail} (incomplete chunked read)"

    async def aclose(self) -> None:
        writer = self._writer
        if not writer.is_closing():
            writer.transport.abort()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
