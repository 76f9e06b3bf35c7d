"""The OpenAI-compatible chat-completions model (OpenAI, DeepSeek, vLLM, Ollama, llama.cpp servers).

Owns the streaming assembly of text and tool-call deltas, the retry policy
(backoff is ours, observable and tested: no transport retries on its own) and the
wording of failures. The request body comes from ``_chat_request`` (the message
mapping is described there); a ``ChatTransport`` sends it: by default dsh's own
HTTP/1.1 client on asyncio's streams (``_http``; over httpx2 behind a proxy), else
the httpx2 one (``backend="httpx"``, ``_httpx``) or the openai SDK's
(``backend="openai-sdk"``, kept to compare behaviour), all giving back plain JSON.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import field
from typing import Any, Literal, final, get_args

from dsh._frozen import frozen, slotted
from dsh.base import UnsafeJSONError, freeze_json, load_json
from dsh.messages import AssistantMessage, ToolUse, Usage
from dsh.models._chat_body import ChatBodyEncoder
from dsh.models._chat_reply import (
    chunk_parts,
    completion_parts,
    refusal_text,
    retry_after,
    server_message,
)
from dsh.models._chat_request import SUMMARY_PREFIX, to_chat_messages
from dsh.models._reply_bounds import (
    DEFAULT_MAX_REPLY_CHARS,
    DEFAULT_REPLY_TIMEOUT,
    MAX_REPLY_CHARS_ENV_VAR,
    REPLY_TIMEOUT_ENV_VAR,
    ReplyMeter,
    reply_bound,
)
from dsh.models._types import ModelError, ModelRefusal, ModelRequest, TextCallback
from dsh.models._usage import chat_usage
from dsh.models._wire import (
    ChatTransport,
    Malformed,
    ReplyError,
    StatusError,
    Unreachable,
)

__all__ = [
    "API_KEY_ENV_VARS",
    "BACKEND_ENV_VAR",
    "BASE_URL_ENV_VARS",
    "DEFAULT_BASE_URL",
    "SUMMARY_PREFIX",
    "ModelBackend",
    "OpenAICompatibleModel",
    "RetryNotice",
    "to_chat_messages",
]

API_KEY_ENV_VARS = ("DSH_API_KEY", "OPENAI_API_KEY")
"""Where the key comes from when none is passed, first found wins."""
BASE_URL_ENV_VARS = ("DSH_BASE_URL", "OPENAI_BASE_URL")
DEFAULT_BASE_URL = "https://api.openai.com/v1"
BACKEND_ENV_VAR = "DSH_MODEL_BACKEND"
"""Picks the transport when none is passed: ``asyncio`` (the default), ``httpx``, ``openai-sdk``."""

ModelBackend = Literal["asyncio", "httpx", "openai-sdk"]
"""How requests are sent: dsh's own HTTP/1.1 client, dsh's client over httpx2, or the openai SDK."""

# Sent when there is no key: local servers accept anything, and the SDK insists on one.
_NO_KEY = "dsh-no-api-key"
_RETRYABLE_STATUSES = frozenset({408, 409, 429})
_MAX_BODY_CHARS = 500
_MAX_RAW_ARGUMENTS = 10_000


@final
@frozen
class RetryNotice:
    """A failed attempt that will be retried after ``delay`` seconds."""

    attempt: int
    delay: float
    error: ModelError


# --- reply assembly -----------------------------------------------------------------------------


def _parse_arguments(raw: str) -> Any:
    """Frozen JSON arguments; text that is not JSON stays a raw string (the registry rejects it).

    Arguments nested past ``JSON_MAX_DEPTH``, or holding ``NaN`` or a huge number, are not
    JSON dsh carries: they stay text too, cut at ``_MAX_RAW_ARGUMENTS`` characters.
    """
    if not raw.strip():
        return freeze_json({})
    try:
        return freeze_json(load_json(raw))
    except (UnsafeJSONError, TypeError, ValueError, RecursionError):
        if len(raw) > _MAX_RAW_ARGUMENTS:
            return f"{raw[:_MAX_RAW_ARGUMENTS]}... [{len(raw):,} characters, cut]"
        return raw


@slotted  # dataclass(slots=True), declared without compiling its methods (start-up)
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@slotted
class _Attempt:
    """What one attempt has done that a retry could not undo."""

    streamed: bool = False


class OpenAICompatibleModel:
    """A chat-completions model for any OpenAI-compatible server.

    ``base_url`` defaults to ``$DSH_BASE_URL``, then ``$OPENAI_BASE_URL``, then
    OpenAI's; ``api_key`` to ``$DSH_API_KEY``, then ``$OPENAI_API_KEY`` (a server
    that needs no key, like a local Ollama, works without one).

    A call is retried up to ``max_retries`` times on 408, 409, 429, 5xx and
    connection errors, waiting ``backoff_base * 2**n`` seconds (capped at
    ``backoff_max``, with jitter down to half of it), or what the server's
    ``Retry-After`` asks, capped at ``retry_after_max``. A streamed reply that fails
    after text was already passed to ``on_text`` is not retried (the text cannot be
    taken back). ``on_retry`` hears of every retry before the wait.

    ``backend`` picks the transport (default ``$DSH_MODEL_BACKEND``, then
    ``asyncio``): ``"asyncio"`` is dsh's own HTTP/1.1 client (httpx2's behind a
    proxy), ``"httpx"`` dsh's client over httpx2, ``"openai-sdk"`` the openai
    SDK's, with the same requests, replies and errors. ``timeout`` bounds each phase of a
    request (connecting, sending, each read), as the SDK's does; ``reply_timeout`` a whole
    streamed reply and ``max_reply_chars`` what one reply may hold (``_reply_bounds``):
    past either, the reply is cut and the call fails with a ``ModelError``, not retried.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        max_retries: int = 4,
        stream: bool = True,
        timeout: float = 600.0,
        backoff_base: float = 1.0,
        backoff_max: float = 30.0,
        retry_after_max: float = 60.0,
        max_tokens: int | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
        backend: ModelBackend | None = None,
        max_reply_chars: int | None = None,
        reply_timeout: float | None = None,
    ) -> None:
        if not model:
            raise ValueError("an OpenAI-compatible model needs a model name")
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, not {max_retries}")
        self._model = model
        url, self._url_source = _resolve_setting(base_url, BASE_URL_ENV_VARS)
        self.base_url = (url or DEFAULT_BASE_URL).rstrip("/")
        self._api_key, self._key_source = _resolve_setting(api_key, API_KEY_ENV_VARS)
        self.max_retries = max_retries
        self.stream = stream
        self.timeout = timeout
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self.max_tokens = max_tokens
        self.on_retry = on_retry
        self.backend = _resolve_backend(backend)
        self.max_reply_chars = int(
            reply_bound(max_reply_chars, MAX_REPLY_CHARS_ENV_VAR, DEFAULT_MAX_REPLY_CHARS)
        )
        self.reply_timeout = reply_bound(
            reply_timeout, REPLY_TIMEOUT_ENV_VAR, DEFAULT_REPLY_TIMEOUT
        )
        self._transport: ChatTransport | None = None
        self._encoder: ChatBodyEncoder | None = None  # the history's JSON, kept across requests

    @property
    def name(self) -> str:
        return self._model

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel({self._model!r}, base_url={self.base_url!r})"

    async def aclose(self) -> None:
        """Close the HTTP connections (a later call opens new ones)."""
        transport, self._transport = self._transport, None
        if transport is not None:
            await transport.aclose()

    async def __aenter__(self) -> OpenAICompatibleModel:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    def _get_transport(self) -> ChatTransport:
        if self._transport is None:
            # Imported here: scripted runs never need an HTTP client.
            key = self._api_key or _NO_KEY
            if self.backend == "openai-sdk":
                from dsh.models._sdk import OpenAISDKChatTransport

                self._transport = OpenAISDKChatTransport(self.base_url, key, timeout=self.timeout)
            elif self.backend == "httpx":
                from dsh.models._httpx import HttpxChatTransport

                self._transport = HttpxChatTransport(self.base_url, key, timeout=self.timeout)
            else:
                from dsh.models._http import HttpChatTransport

                self._transport = HttpChatTransport(self.base_url, key, timeout=self.timeout)
        return self._transport

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        if self._encoder is None:
            self._encoder = ChatBodyEncoder(self._model)
        body = self._encoder.encode(request, stream=self.stream, max_tokens=self.max_tokens)
        attempt = 0
        while True:
            attempt += 1
            state = _Attempt()
            try:
                return await self._attempt(body, on_text, state)
            except _Failure as failure:
                error = failure.error
                if not error.retryable or attempt > self.max_retries or state.streamed:
                    if state.streamed and error.retryable:
                        error.message += " (the reply broke off after streaming began; not retried)"
                    elif attempt > 1:
                        error.message += f" (gave up after {attempt} attempts)"
                    error.args = (error.message,)
                    raise error from failure.__cause__
                delay = failure.retry_after
                if delay is None:
                    delay = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
                    delay *= random.uniform(0.5, 1.0)
                if self.on_retry is not None:
                    self.on_retry(RetryNotice(attempt=attempt, delay=delay, error=error))
                await asyncio.sleep(delay)

    async def _attempt(
        self, body: Mapping[str, Any], on_text: TextCallback | None, state: _Attempt
    ) -> AssistantMessage:
        transport = self._get_transport()
        try:
            if self.stream:
                return await self._streamed(transport.stream(body), on_text, state)
            return self._whole(await transport.complete(body), on_text)
        except StatusError as e:
            raise self._status_failure(e) from e
        except Unreachable as e:
            message = f"{self._where()}: cannot get a reply from the server: {e.message}"
            if e.detail is not None and e.detail != e.message:
                message += f" ({e.detail})"
            raise _Failure(ModelError(message, status=None, retryable=True)) from e
        except ReplyError as e:
            raise _Failure(
                ModelError(f"{self._where()}: {e.message}", status=None, retryable=False)
            ) from e
        except Malformed as e:
            raise self._malformed(e.detail) from e

    async def _streamed(
        self,
        stream: AsyncGenerator[object, None],
        on_text: TextCallback | None,
        state: _Attempt,
    ) -> AssistantMessage:
        text: list[str] = []
        refusal: list[str] = []
        partial: dict[int, _PartialCall] = {}
        usage: Usage | None = None  # the last chunk's, asked for with stream_options
        meter = ReplyMeter(self.max_reply_chars)
        # aclosing: a failure here, or a cancellation, closes the response at once.
        try:
            async with asyncio.timeout(self.reply_timeout), aclosing(stream) as chunks:
                async for chunk in chunks:
                    try:
                        content, deltas = chunk_parts(chunk)
                        refusal.append(refusal_text(chunk, "delta"))
                        usage = chat_usage(chunk) or usage
                    except (TypeError, ValueError) as e:
                        raise self._malformed(f"a streamed chunk: {e}") from e
                    if not meter.add(content, refusal[-1], *(d[2] + d[3] for d in deltas)):
                        raise self._cut(f"is over {self.max_reply_chars:,} characters")
                    self._gather(content, deltas, text, partial, state, on_text)
        except TimeoutError as e:
            if not isinstance(e.__cause__, asyncio.CancelledError):
                raise  # a transport's own timeout: reported as it reports it
            raise self._cut(f"took over {self.reply_timeout:g} seconds") from None
        calls = [partial[i] for i in sorted(partial)]
        self._check_refusal("".join(refusal), text or calls)
        parts = [(c.id, c.name, "".join(c.arguments)) for c in calls]
        return self._message("".join(text), parts, usage)

    @staticmethod
    def _gather(
        content: str,
        deltas: list[tuple[int, str, str, str]],
        text: list[str],
        partial: dict[int, _PartialCall],
        state: _Attempt,
        on_text: TextCallback | None,
    ) -> None:
        """One chunk's text and tool-call deltas added to the reply so far."""
        if content:
            text.append(content)
            state.streamed = True
            if on_text is not None:
                on_text(content)
        for index, call_id, name, arguments in deltas:
            call = partial.setdefault(index, _PartialCall())
            call.id = call_id or call.id
            call.name += name
            call.arguments.append(arguments)

    def _cut(self, why: str) -> _Failure:
        return _Failure(
            ModelError(f"{self._where()}: the reply {why}; it was cut off", status=None)
        )

    def _whole(self, completion: object, on_text: TextCallback | None) -> AssistantMessage:
        try:
            text, calls = completion_parts(completion)
            refusal = refusal_text(completion, "message")
        except (TypeError, ValueError) as e:
            raise self._malformed(str(e)) from e
        if not ReplyMeter(self.max_reply_chars).add(text, refusal, *(n + a for _, n, a in calls)):
            raise self._cut(f"is over {self.max_reply_chars:,} characters")
        self._check_refusal(refusal, text or calls)
        if text and on_text is not None:
            on_text(text)
        return self._message(text, calls, chat_usage(completion))

    def _check_refusal(self, refusal: str, answered: object) -> None:
        """A reply that is only a ``refusal`` (no text, no call) is the model declining."""
        if refusal and not answered:
            raise _Failure(ModelRefusal(f"{self._where()}: the model refused: {refusal}"))

    def _malformed(self, detail: str) -> _Failure:
        return _Failure(
            ModelError(f"{self._where()}: malformed reply from the server: {detail}", status=None)
        )

    def _message(
        self, text: str, calls: Sequence[tuple[str, str, str]], usage: Usage | None
    ) -> AssistantMessage:
        uses: list[ToolUse] = []
        for n, (call_id, name, arguments) in enumerate(calls):
            if not name:
                raise _Failure(
                    ModelError(
                        f"{self._where()}: the server sent a tool call without a function name",
                        status=None,
                    )
                )
            # Some servers omit ids; the loop needs one to pair the result with its call.
            uses.append(
                ToolUse(
                    call_id or f"call_{n}_{os.urandom(6).hex()}", name, _parse_arguments(arguments)
                )
            )
        return AssistantMessage(text=text, tool_calls=tuple(uses), usage=usage)

    def _where(self) -> str:
        return f"model {self._model!r} at {self.base_url}"

    def _status_failure(self, e: StatusError) -> _Failure:
        status = e.status
        message = f"{self._where()}: HTTP {status}: {server_message(e.data, e.text)}"
        if status in (401, 403):
            message += f". {self._key_hint(status)}"
        elif status == 404:
            message += (
                f". Check the model name ({self._model!r}) and the base URL"
                f" ({self._url_hint()}; most servers expect it to end in /v1)"
            )
        retryable = status in _RETRYABLE_STATUSES or status >= 500
        delay = retry_after(e.headers, self.retry_after_max) if retryable else None
        return _Failure(ModelError(message, status=status, retryable=retryable), delay)

    def _url_hint(self) -> str:
        if self._url_source is None:
            return f"the default; set {' or '.join(BASE_URL_ENV_VARS)}, or pass --base-url"
        if self._url_source == "argument":
            return "as passed"
        return f"from ${self._url_source}"

    def _key_hint(self, status: int) -> str:
        problem = "missing or invalid" if status == 401 else "not allowed to use this model"
        where = " or ".join(API_KEY_ENV_VARS)
        if self._key_source is None:
            return f"The API key is {problem}: no key was given (set {where})"
        if self._key_source == "argument":
            return f"The API key is {problem}: the server rejected the key that was passed"
        return f"The API key is {problem}: the server rejected the key from ${self._key_source}"


class _Failure(Exception):
    """One failed attempt: the error to raise if it is the last, and the server's wait hint."""

    def __init__(self, error: ModelError, retry_after: float | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.retry_after = retry_after


def _resolve_setting(given: str | None, names: Sequence[str]) -> tuple[str | None, str | None]:
    """The value and where it came from: ``"argument"``, the first set env var's name, or None.

    A value passed that is a variable's value counts as that variable's: the CLI reads
    the environment itself, and the error should name what the user set.
    """
    for name in names:
        value = os.environ.get(name)
        if value and (given is None or given == value):
            return value, name
    if given:
        return given, "argument"
    return None, None


def _resolve_backend(backend: ModelBackend | None) -> ModelBackend:
    known: tuple[ModelBackend, ...] = get_args(ModelBackend)
    if backend is None:
        chosen = os.environ.get(BACKEND_ENV_VAR) or "asyncio"
        for name in known:
            if chosen == name:
                return name
        raise ValueError(f"${BACKEND_ENV_VAR} must be one of {', '.join(known)}, not {chosen!r}")
    if backend not in known:
        raise ValueError(f"backend must be one of {', '.join(known)}, not {backend!r}")
    return backend
