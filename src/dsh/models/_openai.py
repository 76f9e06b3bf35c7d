"""The OpenAI-compatible chat-completions model (OpenAI, DeepSeek, vLLM, Ollama, llama.cpp servers).

``OpenAICompatibleModel`` is the ``StreamingModel`` (``_provider``: one client, its
retries, bounds and stream reading shared by the three wire formats) speaking chat
completions (``_chat_format``), set up as dsh's own users set it up: ``base_url`` and the
key from the arguments or the environment, retries and backoff as before (up to 4, 1 s
doubling to 30 s, with jitter down to half). Only the transport is its own choice: by
default dsh's own HTTP/1.1 client on asyncio's streams (``_http``; over httpx2 behind a
proxy), else the httpx2 one (``backend="httpx"``, ``_httpx``) or the openai SDK's
(``backend="openai-sdk"``, kept to compare behaviour), all giving back plain JSON.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Literal, get_args

from dsh.models._chat_format import API_KEY_ENV_VARS, BASE_URL_ENV_VARS, ChatFormat
from dsh.models._chat_request import SUMMARY_PREFIX, to_chat_messages
from dsh.models._provider import Backoff, RetryNotice, StreamingModel
from dsh.models._wire import ChatTransport

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

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BACKEND_ENV_VAR = "DSH_MODEL_BACKEND"
"""Picks the transport when none is passed: ``asyncio`` (the default), ``httpx``, ``openai-sdk``."""

ModelBackend = Literal["asyncio", "httpx", "openai-sdk"]
"""How requests are sent: dsh's own HTTP/1.1 client, dsh's client over httpx2, or the openai SDK."""


class OpenAICompatibleModel(StreamingModel):
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
    reply and ``max_reply_chars`` what one reply may hold (``_reply_bounds``):
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
        url, url_source = _resolve_setting(base_url, BASE_URL_ENV_VARS)
        url = (url or DEFAULT_BASE_URL).rstrip("/")
        key, key_source = _resolve_setting(api_key, API_KEY_ENV_VARS)
        self.backend = _resolve_backend(backend)
        self.max_retries = max_retries
        self.stream = stream
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self.max_tokens = max_tokens
        self.chat = ChatFormat(
            model,
            url,
            api_key=key,
            key_source=key_source,
            url_source=url_source,
            streamed=stream,
            max_tokens=max_tokens,
        )
        backoff = Backoff(
            retries=max_retries,
            base=backoff_base,
            most=backoff_max,
            jitter=-0.5,
            retry_after_most=retry_after_max,
        )
        super().__init__(
            model,
            self.chat,
            url,
            backoff=backoff,
            timeout=timeout,
            on_retry=on_retry,
            max_reply_chars=max_reply_chars,
            reply_timeout=reply_timeout,
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel({self.name!r}, base_url={self.base_url!r})"

    async def __aenter__(self) -> OpenAICompatibleModel:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    def _new_transport(self) -> ChatTransport:
        # Imported here: scripted runs never need an HTTP client.
        key = self.chat.api_key
        if self.backend == "openai-sdk":
            from dsh.models._sdk import OpenAISDKChatTransport

            return OpenAISDKChatTransport(self.base_url, key, timeout=self.timeout)
        if self.backend == "httpx":
            from dsh.models._httpx import HttpxChatTransport

            return HttpxChatTransport(self.base_url, key, timeout=self.timeout)
        from dsh.models._http import HttpChatTransport

        return HttpChatTransport(self.base_url, key, timeout=self.timeout)


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
