"""One provider interface: a wire format (encoder + decoder) over the streaming transport.

A ``WireFormat`` says where a request goes (``path``, ``headers``), builds its body
from a ``ModelRequest`` and gives a fresh ``ReplyDecoder`` per attempt, which reads
the stream's events (plain JSON, as the transport hands them) into one
``AssistantMessage``. ``StreamingModel`` owns what every format shares: the
transport (dsh's own HTTP/1.1 client, httpx2 behind a proxy), retries with backoff
and ``Retry-After``, the reply bounds (``_reply_bounds``) and failures as
``ModelError``s worded by the format. The three formats: Anthropic Messages
(``_anthropic``), OpenAI Responses (``_responses``) and chat completions
(``_chat_format``; ``_openai.OpenAICompatibleModel`` is this model with chat completions'
set-up and its other transports).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import aclosing
from typing import Any, ClassVar, Protocol, TypeAlias, final, runtime_checkable

from dsh._frozen import frozen
from dsh.messages import AssistantMessage
from dsh.models._chat_reply import retry_after
from dsh.models._reply_bounds import (
    DEFAULT_MAX_REPLY_CHARS,
    DEFAULT_REPLY_TIMEOUT,
    MAX_REPLY_CHARS_ENV_VAR,
    REPLY_TIMEOUT_ENV_VAR,
    reply_bound,
)
from dsh.models._types import ModelError, ModelRequest, TextCallback
from dsh.models._wire import (
    ChatTransport,
    Malformed,
    Refused,
    ReplyError,
    StatusError,
    Unreachable,
)

__all__ = [
    "Backoff",
    "Degrading",
    "PrefixedFailures",
    "ReplyDecoder",
    "Resend",
    "RetryNotice",
    "StreamingModel",
    "TokenCounting",
    "WireFormat",
]


@final
@frozen
class RetryNotice:
    """A failed attempt that will be retried after ``delay`` seconds."""

    attempt: int
    delay: float
    error: ModelError


class ReplyDecoder(Protocol):
    """One streamed reply, read event by event."""

    size: int
    """The characters of text, thinking, tool names and arguments read so far."""

    def feed(self, event: object) -> str:
        """One event's JSON; the assistant text it adds (``""``: none).

        Raises ``ValueError``/``TypeError`` for an event that is not the format's, and
        ``ModelError`` for an error the server reports in the stream.
        """
        ...

    def finish(self) -> AssistantMessage:
        """The reply, once the stream has ended; ``ValueError`` if it ended early."""
        ...


class WireFormat(Protocol):
    """A wire format: where its requests go, their body, their reply, their failures."""

    label: str
    """Its name in messages (``Anthropic Messages``, ``OpenAI Responses``)."""
    path: str
    streamed: bool
    """Whether a reply is a stream of events (else one whole JSON body, fed once)."""

    def headers(self) -> dict[str, str]: ...

    def body(self, request: ModelRequest) -> Mapping[str, Any]: ...

    def decoder(self) -> ReplyDecoder: ...

    def status_error(self, e: StatusError) -> ModelError:
        """The ``ModelError`` an HTTP error status is (its wording, whether it retries)."""
        ...

    def failure(self, message: str) -> ModelError:
        """A failure without a status (a broken stream, an error event), worded by the format."""
        ...

    def unreachable(self, message: str, detail: str | None, base_url: str) -> ModelError:
        """No reply from ``base_url`` (``message``: what failed, ``detail``: the socket's
        words); retried."""
        ...

    def given_up(self, error: ModelError, attempts: int, streamed: bool) -> ModelError:
        """The error that ends a call after ``attempts`` (``streamed``: text had reached the
        caller), worded by the format."""
        ...

    def resends(self, status: int) -> int:
        """How many times a request that failed with ``status`` (and is not retried) is sent
        again at once, before the failure stands (0: none)."""
        ...


class PrefixedFailures:
    """``failure``, ``unreachable`` and ``given_up`` for a format whose failures without a
    status are its ``failure_prefix`` and the message (retried when nothing answered) and
    whose last error stands as it is: Anthropic Messages' and OpenAI Responses'."""

    __slots__ = ()
    failure_prefix: ClassVar[str]

    def failure(self, message: str) -> ModelError:
        return ModelError(f"{self.failure_prefix}{message}", status=None, retryable=False)

    def unreachable(self, message: str, detail: str | None, base_url: str) -> ModelError:
        said = f" ({detail})" if detail and detail != message else ""
        error = self.failure(f"{message}{said} [{base_url}]")
        error.retryable = True
        return error

    def given_up(self, error: ModelError, attempts: int, streamed: bool) -> ModelError:
        return error


Resend: TypeAlias = tuple[Mapping[str, Any], dict[str, str] | None]
"""A resend's body and headers (``None``: the wire format's usual ones)."""


@runtime_checkable
class Degrading(WireFormat, Protocol):
    """A wire format whose resends of a refused request differ from it (Claude Code's:
    ``_anthropic``); ``resends`` then only counts them for a scripted model's replay."""

    def resent(self, request: ModelRequest, n: int, error: ModelError) -> Resend | None:
        """The ``n``-th resend (from 1) of ``request`` after ``error``; ``None``: the failure
        stands."""
        ...


@runtime_checkable
class TokenCounting(WireFormat, Protocol):
    """A wire format with a call that counts a request's input tokens (``count_tokens``)."""

    count_path: str

    def count_body(self, request: ModelRequest) -> Mapping[str, Any]: ...

    def counted(self, reply: object) -> int | None: ...


@frozen  # observably dataclass(frozen=True, slots=True), without its ~0.5 ms to declare
class Backoff:
    """Retries: how many, the first wait, the longest, and the longest ``Retry-After`` obeyed.

    The wait before retry ``n`` (1-based) is ``base * 2**(n-1)`` capped at ``most``,
    plus up to ``jitter`` of it (Claude Code's: 0.5 s doubling to 32 s, +25 %); a negative
    ``jitter`` takes up to that much off instead (chat completions': -50 %).
    """

    retries: int = 10
    base: float = 0.5
    most: float = 32.0
    jitter: float = 0.25
    retry_after_most: float = 60.0

    def delay(self, attempt: int) -> float:
        import random  # only a retry waits (a run whose requests succeed never imports it)

        wait: float = min(self.most, self.base * 2.0 ** (attempt - 1))
        return wait * (1.0 + random.uniform(0.0, self.jitter))


class _Failure(Exception):
    def __init__(self, error: ModelError, wait: float | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.wait = wait


class StreamingModel:
    """A ``Model`` speaking ``wire`` to ``base_url`` (always streamed).

    ``on_retry`` hears of each retry (a ``RetryNotice``) before its wait; a reply that
    fails after text reached ``on_text`` is not retried. ``timeout`` bounds each phase
    of a request; ``reply_timeout`` and ``max_reply_chars`` a whole reply.
    """

    def __init__(
        self,
        name: str,
        wire: WireFormat,
        base_url: str,
        *,
        backoff: Backoff | None = None,
        timeout: float = 600.0,
        on_retry: Callable[[Any], None] | None = None,
        max_reply_chars: int | None = None,
        reply_timeout: float | None = None,
    ) -> None:
        self._name = name
        self.wire = wire
        self.base_url = base_url.rstrip("/")
        self.backoff = backoff or Backoff()
        self.timeout = timeout
        self.on_retry = on_retry
        self.max_reply_chars = int(
            reply_bound(max_reply_chars, MAX_REPLY_CHARS_ENV_VAR, DEFAULT_MAX_REPLY_CHARS)
        )
        self.reply_timeout = reply_bound(
            reply_timeout, REPLY_TIMEOUT_ENV_VAR, DEFAULT_REPLY_TIMEOUT
        )
        self._transport: ChatTransport | None = None
        self._others: dict[tuple[tuple[str, str], ...], ChatTransport] = {}

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"StreamingModel({self._name!r}, {self.wire.label}, base_url={self.base_url!r})"

    async def aclose(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None:
            await transport.aclose()
        others, self._others = self._others, {}
        for other in others.values():
            await other.aclose()

    def _get_transport(self) -> ChatTransport:
        if self._transport is None:
            self._transport = self._new_transport()
        return self._transport

    def _transport_with(self, headers: dict[str, str]) -> ChatTransport:
        """A transport sending ``headers`` in place of the format's (a degraded resend's),
        kept for the next request that sends them."""
        key = tuple(sorted(headers.items()))
        if key not in self._others:
            from dsh.models._http import HttpChatTransport

            self._others[key] = HttpChatTransport(
                self.base_url, "", timeout=self.timeout, path=self.wire.path, headers=headers
            )
        return self._others[key]

    def _new_transport(self) -> ChatTransport:
        """dsh's own HTTP/1.1 client (httpx2 behind a proxy), the format's path and headers."""
        from dsh.models._http import HttpChatTransport

        wire = self.wire
        return HttpChatTransport(
            self.base_url, "", timeout=self.timeout, path=wire.path, headers=wire.headers()
        )

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        body: Mapping[str, Any] = self.wire.body(request)
        headers: dict[str, str] | None = None
        attempt = resent = 0
        while True:
            attempt += 1
            streamed: list[bool] = [False]
            try:
                return await self._attempt(body, on_text, streamed, headers)
            except _Failure as failure:
                error = failure.error
                resend = not (error.retryable or streamed[0]) and error.status is not None
                again = self._resend(request, body, resent + 1, error) if resend else None
                if again is not None:
                    (body, headers), resent, attempt = again, resent + 1, attempt - 1
                    continue  # sent again at once, not a retry (no wait, no notice)
                last = attempt > self.backoff.retries
                if not error.retryable or last or streamed[0]:
                    raise self.wire.given_up(error, attempt, streamed[0]) from failure.__cause__
                delay = failure.wait if failure.wait is not None else self.backoff.delay(attempt)
                if self.on_retry is not None:
                    self.on_retry(RetryNotice(attempt=attempt, delay=delay, error=error))
                await asyncio.sleep(delay)

    def _resend(
        self, request: ModelRequest, body: Mapping[str, Any], n: int, error: ModelError
    ) -> Resend | None:
        """The ``n``-th resend of a request refused with ``error`` (the same body unless the
        wire format degrades it), or ``None``."""
        wire = self.wire
        if isinstance(wire, Degrading):
            return wire.resent(request, n, error)
        return (body, None) if n <= wire.resends(error.status or 0) else None

    async def count_tokens(self, request: ModelRequest) -> int | None:
        """The input tokens ``request`` would take, as the API counts them (the Messages
        API's ``count_tokens``); ``None`` when the wire format has no such call. Raises
        ``ModelError`` as a request does."""
        wire = self.wire
        if not isinstance(wire, TokenCounting):
            return None
        from dsh.models._http import HttpChatTransport

        transport = HttpChatTransport(
            self.base_url, "", timeout=self.timeout, path=wire.count_path, headers=wire.headers()
        )
        try:
            reply = await transport.complete(wire.count_body(request))
        except StatusError as e:
            raise wire.status_error(e) from e
        except (Unreachable, Malformed, Refused) as e:
            raise wire.failure(f"{e} [{self.base_url}]") from e
        finally:
            await transport.aclose()
        counted = wire.counted(reply)
        if counted is None:
            raise wire.failure("count_tokens answered without input_tokens")
        return counted

    async def _attempt(
        self,
        body: Mapping[str, Any],
        on_text: TextCallback | None,
        streamed: list[bool],
        headers: dict[str, str] | None = None,
    ) -> AssistantMessage:
        try:
            transport = self._get_transport()
            if not self.wire.streamed:
                return await self._read_whole(transport, body, on_text)
            if headers is not None:
                transport = self._transport_with(headers)
            return await self._read(transport.stream(body), on_text, streamed)
        except StatusError as e:
            error = self.wire.status_error(e)
            wait = (
                retry_after(e.headers, self.backoff.retry_after_most) if error.retryable else None
            )
            raise _Failure(error, wait) from e
        except Unreachable as e:
            raise _Failure(self.wire.unreachable(e.message, e.detail, self.base_url)) from e
        except (ReplyError, Refused) as e:
            raise _Failure(self.wire.failure(e.message)) from e
        except Malformed as e:
            raise _Failure(self.wire.failure(f"malformed reply from the server: {e.detail}")) from e

    async def _read(
        self,
        stream: AsyncGenerator[object, None],
        on_text: TextCallback | None,
        streamed: list[bool],
    ) -> AssistantMessage:
        decoder = self.wire.decoder()
        try:
            async with asyncio.timeout(self.reply_timeout), aclosing(stream) as events:
                async for event in events:
                    try:
                        text = decoder.feed(event)
                    except (TypeError, ValueError) as e:
                        raise _Failure(self.wire.failure(f"malformed streamed event: {e}")) from e
                    except ModelError as e:
                        raise _Failure(e) from e
                    if decoder.size > self.max_reply_chars:
                        raise self._cut(f"is over {self.max_reply_chars:,} characters")
                    if text:
                        streamed[0] = True
                        if on_text is not None:
                            on_text(text)
        except TimeoutError as e:
            if not isinstance(e.__cause__, asyncio.CancelledError):
                raise _Failure(self.wire.failure("Request timed out."), None) from e
            raise self._cut(f"took over {self.reply_timeout:g} seconds") from None
        try:
            return decoder.finish()
        except (TypeError, ValueError) as e:
            raise _Failure(self.wire.failure(f"malformed reply from the server: {e}")) from e

    async def _read_whole(
        self, transport: ChatTransport, body: Mapping[str, Any], on_text: TextCallback | None
    ) -> AssistantMessage:
        """A reply that is one JSON body (a format that does not stream), fed once."""
        decoder = self.wire.decoder()
        try:
            async with asyncio.timeout(self.reply_timeout):
                reply = await transport.complete(body)
        except TimeoutError as e:
            if not isinstance(e.__cause__, asyncio.CancelledError):
                raise _Failure(self.wire.failure("Request timed out."), None) from e
            raise self._cut(f"took over {self.reply_timeout:g} seconds") from None
        try:
            text = decoder.feed(reply)
        except (TypeError, ValueError) as e:
            raise _Failure(self.wire.failure(f"malformed reply from the server: {e}")) from e
        except ModelError as e:
            raise _Failure(e) from e
        if decoder.size > self.max_reply_chars:
            raise self._cut(f"is over {self.max_reply_chars:,} characters")
        try:
            message = decoder.finish()
        except (TypeError, ValueError) as e:
            raise _Failure(self.wire.failure(f"malformed reply from the server: {e}")) from e
        if text and on_text is not None:
            on_text(text)
        return message

    def _cut(self, why: str) -> _Failure:
        return _Failure(self.wire.failure(f"the reply {why}; it was cut off"))
