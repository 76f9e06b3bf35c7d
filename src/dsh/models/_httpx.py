"""The chat-completions transport over httpx2: behind a proxy, and as ``backend="httpx"``.

dsh's own client (``_http``) hands a request here when the environment names a
proxy for the endpoint, so requests behind a proxy go as they always have.
What the openai SDK does on the wire, without its ~0.5 s import: the same
headers that matter (``Authorization``, ``Accept``, ``Content-Type``, and
``OpenAI-Organization``/``OpenAI-Project`` from the SDK's variables), one
timeout for every phase, redirects followed, proxies and ``SSL_CERT_FILE``
from the environment, and the SDK's reading of error bodies and ``[DONE]``.
An ``http://`` endpoint (a local server) does not load the system's trust
store (~40 ms): its TLS context verifies against no roots, so a redirect to
``https://`` fails closed instead of going unverified.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any, final

import httpx2

from dsh.base import UnsafeJSONError, load_json
from dsh.models._chat_body import EncodedBody, compact_json
from dsh.models._sse import SSEDecoder
from dsh.models._wire import (
    DONE,
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

__all__ = ["HttpxChatTransport"]

_CONNECTION_ERRORS = (httpx2.RequestError, httpx2.InvalidURL)
_DRAIN_SECONDS = 0.1
_EXCERPT_CHARS = 200
_WHOLE_UP_TO = 1 << 20  # a longer body is sent a chunk at a time (Content-Length still set)


@final
class _Chunks:
    """An encoded body as request content: iterable again for a redirect's resend."""

    __slots__ = ("_body",)

    def __init__(self, body: EncodedBody) -> None:
        self._body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._body.chunks():
            yield chunk


@final
class HttpxChatTransport:
    """``ChatTransport`` over an ``httpx2.AsyncClient`` made on the first request."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float,
        path: str = "/chat/completions",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self._url = base_url.rstrip("/") + path
        self._timeout = timeout
        self._headers = request_headers(api_key) if headers is None else dict(headers)
        self._client: httpx2.AsyncClient | None = None

    def _http(self) -> httpx2.AsyncClient:
        if self._client is None:
            if self._url.startswith("http://"):
                verify = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            else:  # the trust dsh's own client has: CA variables named as in _http_conn
                from dsh.models._http_conn import tls_context

                try:
                    verify = tls_context()
                except ValueError as e:
                    raise Refused(f"the trust store for https: {e}") from None
            self._client = httpx2.AsyncClient(
                timeout=httpx2.Timeout(self._timeout), follow_redirects=True, verify=verify
            )
        return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    def _content(self, body: Mapping[str, Any]) -> tuple[bytes | _Chunks, dict[str, str]]:
        if isinstance(body, EncodedBody):
            if body.length <= _WHOLE_UP_TO:
                return body.data, self._headers
            # A long history goes out a chunk at a time, never joined whole.
            return _Chunks(body), {**self._headers, "Content-Length": str(body.length)}
        return compact_json(body), self._headers

    async def complete(self, body: Mapping[str, Any]) -> object:
        content, headers = self._content(body)
        try:
            response = await self._http().post(self._url, content=content, headers=headers)
        except httpx2.TimeoutException as e:
            raise Unreachable("Request timed out.", str(e)) from e
        except _CONNECTION_ERRORS as e:
            raise _connection_error(e) from e
        if response.is_error:
            raise _status_error(response)
        try:
            # Bounded: nesting past JSON_MAX_DEPTH, NaN or a 5000-digit number is malformed.
            return load_json(response.content)
        except UnsafeJSONError as e:
            excerpt = response.text[:_EXCERPT_CHARS]
            raise Malformed(f"the body is not JSON ({e}): {excerpt!r}") from None

    async def stream(self, body: Mapping[str, Any]) -> AsyncGenerator[object, None]:
        content, headers = self._content(body)
        try:
            async with self._http().stream(
                "POST", self._url, content=content, headers=headers
            ) as response:
                if response.is_error:
                    await response.aread()
                    raise _status_error(response)
                if response.headers.get("content-type", "").startswith("application/json"):
                    await response.aread()
                    raise Malformed(
                        "a JSON body, not an event stream, answered a streamed request:"
                        f" {response.text[:_EXCERPT_CHARS]!r}"
                    )
                decoder = SSEDecoder()
                pieces = response.aiter_bytes()
                async for piece in pieces:
                    for event in decoded_events(decoder, piece):
                        value = stream_value(event)
                        if value is DONE:
                            if response.http_version == "HTTP/1.1":
                                await _drain(pieces)
                            return
                        yield value
                decoded_events(decoder, None)
        except httpx2.TimeoutException as e:
            raise Unreachable("Request timed out.", str(e)) from e
        except _CONNECTION_ERRORS as e:
            raise _connection_error(e) from e


async def _drain(pieces: AsyncIterator[bytes]) -> None:
    """As the SDK: read what follows ``[DONE]`` for a while, so the connection can be reused."""
    with contextlib.suppress(TimeoutError, httpx2.RequestError, httpx2.StreamError):
        async with asyncio.timeout(_DRAIN_SECONDS):
            async for _ in pieces:
                pass


def _status_error(response: httpx2.Response) -> StatusError:
    text = response.text
    return StatusError(response.status_code, error_data(text.strip()), text, response.headers)


def _connection_error(e: Exception) -> Refused | Unreachable:
    """A failed connection: a certificate refused (not retried), else unreachable."""
    cause: BaseException | None = e
    for _ in range(4):  # httpx2's error, httpcore2's, then the ssl module's
        cause = cause.__cause__ or cause.__context__ if cause is not None else None
        if (refused := certificate_refused(cause)) is not None:
            return refused
    return Unreachable("Connection error.", str(e))
