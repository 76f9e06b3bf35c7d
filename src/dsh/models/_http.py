"""The default transport: dsh's own HTTP/1.1 client on asyncio's streams.

Every wire format rides on it (chat completions by default; a format's ``path`` and
``headers`` otherwise: Anthropic's Messages, OpenAI's Responses).

What httpx2 did for dsh (``_httpx``), without its import (httpx2, httpcore2,
anyio, h11 and ``importlib.metadata``: ~45-100 ms of each start-up). On the
wire the same request: ``POST <base>/chat/completions`` with the headers of
``request_headers``, ``Accept-Encoding: gzip, deflate``, keep-alive, and a
``Content-Length`` body (a long history sent chunk by chunk, never joined).
Back: a JSON body or an event stream, framed by length, chunks or the close
(``_http_frame``, bounded), errors as httpx2 gave them to the model.

Timeouts, each ``timeout`` long: connecting (TLS included), each write, the
whole head, a whole JSON or error body, and in a stream the reading of each
line (a server trickling one endless line times out; one still sending lines
does not). Redirects as httpx2 follows them (up to 20; 307/308 resend the
body; the ``Authorization`` stays with its origin). An ``http://`` endpoint
never loads the trust store, so a redirect from it to ``https://`` fails
closed. Behind a proxy (``_http_proxy.direct`` says when) every request goes
over httpx2 instead, exactly as before.

One connection is kept between requests. A request that fails on a kept
connection before any byte of its response arrived (the server closed it
while idle) is sent once more on a new one: the model would retry it anyway,
after a backoff; this only spares that wait. Nothing else is resent.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
from collections.abc import AsyncGenerator, Iterator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, final
from urllib.parse import quote, urljoin, urlsplit

from dsh.base import UnsafeJSONError, load_json
from dsh.models._chat_body import EncodedBody, compact_json
from dsh.models._http_conn import Connection, Origin, tls_context
from dsh.models._http_frame import FramingError, ResponseHead
from dsh.models._http_proxy import direct
from dsh.models._sse import SSEDecoder
from dsh.models._wire import (
    DONE,
    ChatTransport,
    Malformed,
    Refused,
    StatusError,
    Unreachable,
    certificate_refused,
    decoded_events,
    error_data,
    request_headers,
    stream_value,
)

if TYPE_CHECKING:
    import ssl

__all__ = ["HttpChatTransport"]

_DRAIN_SECONDS = 0.1
_EXCERPT_CHARS = 200
# A body up to this rides in the head's write; a longer one is sent in parts, its history a
# view of the encoder's buffer (never joined: see ``Connection.send_parts``).
_WHOLE_UP_TO = 1 << 16
_MAX_BODY = 64 << 20  # a JSON reply
_MAX_ERROR_BODY = 1 << 20  # an error's or a redirect's body: the rest is not read
_MAX_LINE = 16 << 20  # an event-stream line
_MAX_REDIRECTS = 20
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@final
class _Target:
    """One request's URL, split for the wire; ``ValueError`` for a URL that is not one."""

    __slots__ = ("origin", "path", "url")

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        host = parts.hostname
        if not host.isascii():
            host = host.encode("idna").decode("ascii")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        self.url = url
        self.origin = Origin(parts.scheme, host, port)
        path = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
        self.path = f"{path}?{parts.query}" if parts.query else path


@contextlib.contextmanager
def _wire_errors() -> Iterator[None]:
    """The socket's and the framing's failures as the seam's ``WireError``s."""
    try:
        yield
    except TimeoutError:
        raise Unreachable("Request timed out.", None) from None
    except FramingError as e:
        raise Malformed(f"the response's framing: {e}") from None
    except OSError as e:
        refused = certificate_refused(e)
        if refused is not None:
            raise refused from None
        raise Unreachable("Connection error.", str(e) or type(e).__name__) from e


@final
class HttpChatTransport:
    """``ChatTransport`` over one kept-alive HTTP/1.1 connection (httpx2 behind a proxy)."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float,
        path: str = "/chat/completions",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """``path`` and ``headers`` are a wire format's (default: chat completions' own)."""
        self._base_url = base_url.rstrip("/")
        self._path = path
        self._url = self._base_url + path
        self._api_key = api_key
        self._timeout = timeout
        self._given_headers = headers
        self._headers = {
            "Accept-Encoding": "gzip, deflate",
            "Connection": "keep-alive",
            **(request_headers(api_key) if headers is None else headers),
        }
        self._idle: Connection | None = None
        self._tls: ssl.SSLContext | None = None
        self._proxied: ChatTransport | None = None
        self._checked_proxy = False

    def _proxy_transport(self) -> ChatTransport | None:
        if not self._checked_proxy:
            self._checked_proxy = True
            parts = urlsplit(self._url)
            if not direct(parts.scheme, parts.hostname or ""):
                from dsh.models._httpx import HttpxChatTransport

                self._proxied = HttpxChatTransport(
                    self._base_url,
                    self._api_key,
                    timeout=self._timeout,
                    path=self._path,
                    headers=self._given_headers,
                )
        return self._proxied

    async def aclose(self) -> None:
        idle, self._idle = self._idle, None
        proxied, self._proxied, self._checked_proxy = self._proxied, None, False
        if idle is not None:
            await idle.aclose()
        if proxied is not None:
            await proxied.aclose()

    async def complete(self, body: Mapping[str, Any]) -> object:
        if (proxied := self._proxy_transport()) is not None:
            return await proxied.complete(body)
        conn, head = await self._respond(body)
        try:
            data = await self._read_all(conn, error=head.status >= 400)
        finally:
            await self._release(conn)
        if head.status >= 400:
            raise _status_error(head, data)
        try:
            return load_json(data)
        except UnsafeJSONError as e:
            excerpt = _text(head, data)[:_EXCERPT_CHARS]
            raise Malformed(f"the body is not JSON ({e}): {excerpt!r}") from None

    async def stream(self, body: Mapping[str, Any]) -> AsyncGenerator[object, None]:
        if (proxied := self._proxy_transport()) is not None:
            async with aclosing(proxied.stream(body)) as values:
                async for value in values:
                    yield value
            return
        conn, head = await self._respond(body)
        try:
            if head.status >= 400:
                raise _status_error(head, await self._read_all(conn, error=True))
            if head.headers.get("content-type", "").startswith("application/json"):
                text = _text(head, await self._read_all(conn, error=True))
                raise Malformed(
                    f"a JSON body, not an event stream, answered a streamed request: "
                    f"{text[:_EXCERPT_CHARS]!r}"
                )
            async with aclosing(self._events(conn)) as values:
                async for value in values:
                    yield value
        finally:
            await self._release(conn)

    async def _events(self, conn: Connection) -> AsyncGenerator[object, None]:
        """The stream's values until ``[DONE]`` (then drained, as the SDK does) or its end."""
        decoder, loop = SSEDecoder(), asyncio.get_running_loop()
        waited, unended = 0.0, 0  # read time and bytes since the last line's end
        while True:
            started = loop.time()
            with _wire_errors():
                async with asyncio.timeout(self._timeout - waited):
                    pieces = await conn.read_body()
            waited += loop.time() - started
            if pieces is None:
                decoded_events(decoder, None)
                return
            for piece in pieces:
                ends = max(piece.rfind(b"\n"), piece.rfind(b"\r"))
                if ends >= 0:
                    waited, unended = 0.0, len(piece) - ends - 1
                else:
                    unended += len(piece)
                if unended > _MAX_LINE:
                    raise Malformed(f"an event-stream line is over {_MAX_LINE >> 20} MiB")
                for event in decoded_events(decoder, piece):
                    value = stream_value(event)
                    if value is DONE:
                        await _drain(conn)
                        return
                    yield value

    async def _read_all(self, conn: Connection, *, error: bool = False) -> bytes:
        """The whole body within one timeout: a reply's up to 64 MiB, an error's cut at 1 MiB."""
        limit = _MAX_ERROR_BODY if error else _MAX_BODY
        data = bytearray()
        with _wire_errors():
            async with asyncio.timeout(self._timeout):
                while (pieces := await conn.read_body()) is not None:
                    for piece in pieces:
                        data += piece
                    if len(data) > limit:
                        if error:  # the connection is closed with the rest unread
                            return bytes(data[:limit])
                        raise Malformed(f"the reply's body is over {limit >> 20} MiB")
        return bytes(data)

    async def _release(self, conn: Connection) -> None:
        """Keep ``conn`` for the next request when it can carry one, else close it."""
        if conn.reusable and self._idle is None:
            conn.reused = True
            self._idle = conn
        elif conn is not self._idle:
            await conn.aclose()

    async def _respond(self, body: Mapping[str, Any]) -> tuple[Connection, ResponseHead]:
        """The final response's connection and head (its body unread), redirects followed."""
        headers = dict(self._headers)
        content: bytes | EncodedBody | None = _content(body)
        target = self._target(self._url)
        method = "POST"
        for _ in range(_MAX_REDIRECTS + 1):
            conn, head = await self._round_trip(target, method, headers, content)
            location = head.headers.get("location")
            if head.status not in _REDIRECTS or location is None:
                return conn, head
            try:
                with contextlib.suppress(Malformed, Unreachable):
                    await self._read_all(conn, error=True)
            finally:
                await self._release(conn)
            following = self._redirect_target(target, location)
            if following.origin != target.origin and not _upgrade(target, following):
                headers.pop("Authorization", None)
            if head.status in (301, 302, 303):  # as browsers and httpx2: the POST becomes a GET
                method, content = "GET", None
            target = following
        raise Unreachable("Connection error.", "Exceeded maximum allowed redirects.")

    def _target(self, url: str) -> _Target:
        try:
            return _Target(url)
        except (ValueError, UnicodeError) as e:
            raise Unreachable("Connection error.", f"invalid URL: {e}") from None

    def _redirect_target(self, target: _Target, location: str) -> _Target:
        following = self._target(urljoin(target.url, location.strip()))
        scheme = following.origin.scheme
        if scheme == "https" and self._url.startswith("http://"):
            raise Unreachable(
                "Connection error.",
                f"redirected to {following.url}: an http:// endpoint is not followed to https://"
                " (its client loads no trust store to verify it)",
            )
        if not direct(scheme, following.origin.host):
            raise Unreachable(
                "Connection error.",
                f"redirected to {following.url}, which the environment's proxy settings send"
                " through a proxy: dsh's own client does not follow it there",
            )
        return following

    async def _round_trip(
        self,
        target: _Target,
        method: str,
        headers: dict[str, str],
        content: bytes | EncodedBody | None,
    ) -> tuple[Connection, ResponseHead]:
        """One request and its response's head; resent once on a new connection (see above)."""
        request = _request_head(method, target, headers, content)
        conn = await self._connection(target.origin)
        try:
            return conn, await self._exchange(conn, request, content)
        except Unreachable as e:
            await conn.aclose()
            if not conn.reused or conn.received or e.message != "Connection error.":
                raise
        except BaseException:
            await conn.aclose()
            raise
        conn = await self._open(target.origin)
        try:
            return conn, await self._exchange(conn, request, content)
        except BaseException:
            await conn.aclose()
            raise

    async def _exchange(
        self, conn: Connection, request: bytes, content: bytes | EncodedBody | None
    ) -> ResponseHead:
        with _wire_errors():
            if isinstance(content, EncodedBody):
                await conn.send_parts(request, content.parts(), self._timeout)
            else:
                await conn.send(request, content or b"", self._timeout)
            async with asyncio.timeout(self._timeout):
                return await conn.read_head()

    async def _connection(self, origin: Origin) -> Connection:
        idle, self._idle = self._idle, None
        if idle is not None:
            if idle.origin == origin and idle.usable:
                return idle
            await idle.aclose()
        return await self._open(origin)

    async def _open(self, origin: Origin) -> Connection:
        tls = None
        if origin.scheme == "https":
            if self._tls is None:
                try:
                    self._tls = tls_context()
                except ValueError as e:
                    raise Refused(f"the trust store for https: {e}") from None
            tls = self._tls
        with _wire_errors():
            async with asyncio.timeout(self._timeout):
                return await Connection.open(origin, tls)


def _content(body: Mapping[str, Any]) -> bytes | EncodedBody:
    if isinstance(body, EncodedBody):
        return body.data if body.length <= _WHOLE_UP_TO else body
    return compact_json(body)


def _upgrade(source: _Target, following: _Target) -> bool:
    """http to https on the same host and default ports: httpx2 keeps the key for it."""
    a, b = source.origin, following.origin
    return (a.scheme, b.scheme) == ("http", "https") and a.host == b.host and a.port == 80


def _request_head(
    method: str, target: _Target, headers: dict[str, str], content: bytes | EncodedBody | None
) -> bytes:
    lines = [f"{method} {target.path} HTTP/1.1", f"Host: {target.origin.authority}"]
    for name, value in headers.items():
        if any(c in value for c in "\r\n\0"):
            raise Unreachable("Connection error.", f"Illegal header value for {name}")
        lines.append(f"{name}: {value}")
    if content is not None:
        length = content.length if isinstance(content, EncodedBody) else len(content)
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _drain(conn: Connection) -> None:
    """As the SDK: read what follows ``[DONE]`` for a while, so the connection can be reused."""
    if not conn.may_carry_another:
        return
    with contextlib.suppress(TimeoutError, OSError, FramingError, Unreachable):
        async with asyncio.timeout(_DRAIN_SECONDS):
            while await conn.read_body() is not None:
                pass


def _text(head: ResponseHead, data: bytes) -> str:
    """The body as text: the charset the server names when Python knows it, else UTF-8."""
    encoding = "utf-8"
    for param in head.headers.get("content-type", "").split(";")[1:]:
        name, _, value = param.strip().partition("=")
        if name.lower() == "charset":
            with contextlib.suppress(LookupError):
                encoding = codecs.lookup(value.strip().strip('"')).name
    return data.decode(encoding, errors="replace")


def _status_error(head: ResponseHead, data: bytes) -> StatusError:
    text = _text(head, data)
    return StatusError(head.status, error_data(text.strip()), text, head.headers)
