"""The chat-completions transport seam: what goes over the wire, and how it fails.

A ``ChatTransport`` POSTs a request body the model built to ``chat/completions``
and gives back the reply as plain JSON (a whole completion, or the chunks of a
stream); it knows nothing of dsh's messages, retries or error wording. Its
failures are the ``WireError``s here, whichever HTTP library is underneath, so
the model reports them the same way for every backend.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncGenerator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from dsh import __version__
from dsh.base import UnsafeJSONError, load_json

if TYPE_CHECKING:  # a stream's (the transport imports the decoder): not a run with no request
    from dsh.models._sse import ServerSentEvent, SSEDecoder

__all__ = [
    "DONE",
    "ORGANIZATION_ENV_VAR",
    "PROJECT_ENV_VAR",
    "ChatTransport",
    "Malformed",
    "Refused",
    "ReplyError",
    "StatusError",
    "Unreachable",
    "WireError",
    "certificate_refused",
    "decoded_events",
    "error_data",
    "request_headers",
    "stream_error_message",
    "stream_value",
]

# Read by the openai SDK too, and sent as OpenAI-Organization and OpenAI-Project.
ORGANIZATION_ENV_VAR = "OPENAI_ORG_ID"
PROJECT_ENV_VAR = "OPENAI_PROJECT_ID"


def request_headers(api_key: str) -> dict[str, str]:
    """The headers every transport of dsh's own sends with a request (the SDK's that matter)."""
    headers = {
        "Authorization": f"Bearer {api_key}",
        "Accept": "application/json",
        "Content-Type": "application/json",
        "User-Agent": f"dsh/{__version__}",
    }
    for header, name in (
        ("OpenAI-Organization", ORGANIZATION_ENV_VAR),
        ("OpenAI-Project", PROJECT_ENV_VAR),
    ):
        if value := os.environ.get(name):
            headers[header] = value
    return headers


class ChatTransport(Protocol):
    """One backend's way of sending a chat-completions request."""

    async def complete(self, body: Mapping[str, Any]) -> object:
        """The whole completion's JSON. Raises ``WireError``."""
        ...

    def stream(self, body: Mapping[str, Any]) -> AsyncGenerator[object, None]:
        """Each chunk's JSON until ``[DONE]``; closing the generator closes the response."""
        ...

    async def aclose(self) -> None: ...


class WireError(Exception):
    """A request that did not give a usable reply."""


class StatusError(WireError):
    """An HTTP error status: the error object (see ``error_data``), the raw text, the headers."""

    def __init__(
        self, status: int, data: object, text: str | None, headers: Mapping[str, str]
    ) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.data = data
        self.text = text
        self.headers = headers


class Unreachable(WireError):
    """No reply, or one that broke off: ``message`` says which, ``detail`` what the socket said."""

    def __init__(self, message: str, detail: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail or None


class Refused(WireError):
    """A connection dsh will not make: the server's certificate refused, a trust store that
    cannot be loaded. Not retried: trying again would only fail the same way."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def certificate_refused(e: BaseException | None) -> Refused | None:
    """``e`` as a ``Refused`` when it is a certificate that failed verification (``ssl`` is
    looked up, not imported: an ``http://`` run never loads it)."""
    ssl = sys.modules.get("ssl")
    if ssl is None or not isinstance(e, ssl.SSLCertVerificationError):
        return None
    return Refused(f"Connection error. The server's certificate was refused: {e}")


class ReplyError(WireError):
    """The server said in its reply that it failed (an error event in a stream)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Malformed(WireError):
    """A reply that is not what the protocol says (not JSON, a broken event stream)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def error_data(text: str) -> object:
    """An error body as the SDK gives it: its ``error`` member, else the JSON, else the text."""
    try:
        body = load_json(text)
    except UnsafeJSONError:
        return text
    return body.get("error", body) if isinstance(body, dict) else body


def stream_error_message(data: object) -> str | None:
    """The message of an in-stream error (a chunk with a truthy ``error``), else None."""
    if not isinstance(data, dict) or not data.get("error"):
        return None
    error = data["error"]
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(message, str) or not message:
        return "An error occurred during streaming"
    return message


class _Done:
    pass


DONE = _Done()
"""What ``stream_value`` gives for the ``[DONE]`` event that ends a stream."""


def stream_value(event: ServerSentEvent) -> object:
    """An event's chunk JSON, or ``DONE``. Raises ``Malformed`` and ``ReplyError``."""
    if event.data.startswith("[DONE]"):
        return DONE
    try:
        value = load_json(event.data)
    except UnsafeJSONError as e:
        raise Malformed(f"an event's data is not JSON ({e})") from None
    message = stream_error_message(value)
    if message is not None:
        raise ReplyError(message)
    return value


def decoded_events(decoder: SSEDecoder, piece: bytes | None) -> list[ServerSentEvent]:
    """The events ``piece`` completes (``None``: the end of the stream), or ``Malformed``."""
    from dsh.models._sse import SSEError  # imported already, with the decoder

    try:
        if piece is None:
            decoder.close()
            return []
        return decoder.feed(piece)
    except SSEError as e:
        raise Malformed(f"the event stream: {e}") from None
