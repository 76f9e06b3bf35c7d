"""The optional chat-completions transport on the openai SDK (``backend="openai-sdk"``).

Kept to compare the default transport with the SDK's own behaviour on the same
server. The SDK's retries are off (``max_retries=0``): backoff is the model's.
Its reply objects are given back as the JSON they were built from, and its
exceptions as the transport seam's ``WireError``s.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from typing import Any, final

import openai

from dsh.models._wire import Malformed, ReplyError, StatusError, Unreachable, WireError

__all__ = ["OpenAISDKChatTransport"]


@final
class OpenAISDKChatTransport:
    """``ChatTransport`` over ``openai.AsyncOpenAI``, made on the first request."""

    def __init__(self, base_url: str, api_key: str, *, timeout: float) -> None:
        self._base_url = base_url
        self._api_key = api_key
        self._timeout = timeout
        self._client: openai.AsyncOpenAI | None = None

    def _create(self) -> Any:
        if self._client is None:
            self._client = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url,
                max_retries=0,
                timeout=self._timeout,
            )
        return self._client.chat.completions.create

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    async def complete(self, body: Mapping[str, Any]) -> object:
        try:
            return _as_json(await self._create()(**body))
        except openai.OpenAIError as e:
            raise _wire_error(e) from e

    async def stream(self, body: Mapping[str, Any]) -> AsyncGenerator[object, None]:
        try:
            chunks = await self._create()(**body)
            async with chunks:
                async for chunk in chunks:
                    yield _as_json(chunk)
        except openai.OpenAIError as e:
            raise _wire_error(e) from e
        except ValueError as e:  # the SDK lets an event's bad JSON through as it is
            raise Malformed(f"an event's data is not JSON ({e})") from e


def _as_json(value: object) -> object:
    # The SDK builds its reply objects without validation; exclude_unset gives back their JSON.
    if isinstance(value, openai.BaseModel):
        return value.model_dump(by_alias=True, exclude_unset=True, warnings=False)
    return value


def _wire_error(e: openai.OpenAIError) -> WireError:
    if isinstance(e, openai.APIStatusError):
        text: str | None
        try:
            text = e.response.text
        except Exception:  # a streamed body that was never read
            text = None
        return StatusError(e.status_code, e.body, text, e.response.headers)
    if isinstance(e, openai.APIConnectionError):
        return Unreachable(e.message, str(e.__cause__) if e.__cause__ is not None else None)
    return ReplyError(str(e))
