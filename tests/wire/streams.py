"""A wire format's reply stream replayed from bytes: the transport's event path without HTTP.

``ByteTransport`` hands ``StreamingModel`` the values of an event stream exactly as
the HTTP transport does (``SSEDecoder``, ``stream_value``: ``[DONE]``, error events,
data that is not JSON), from bytes given in advance, cut in pieces as a socket might.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any

from dsh.messages import AssistantMessage, UserMessage
from dsh.models import ModelRequest, ToolSpec
from dsh.models._provider import Backoff, StreamingModel, WireFormat
from dsh.models._sse import SSEDecoder
from dsh.models._wire import DONE, decoded_events, stream_value

REQUEST = ModelRequest(
    (UserMessage("run it"),), (ToolSpec("Bash", "run a command", {"type": "object"}),), "sys"
)


class ByteTransport:
    """``ChatTransport.stream`` over bytes given in pieces."""

    def __init__(self, pieces: Sequence[bytes]) -> None:
        self.pieces = pieces

    async def complete(self, body: Mapping[str, Any]) -> object:  # pragma: no cover
        raise NotImplementedError

    async def stream(self, body: Mapping[str, Any]) -> AsyncGenerator[object, None]:
        decoder = SSEDecoder()
        for piece in self.pieces:
            for event in decoded_events(decoder, piece):
                value = stream_value(event)
                if value is DONE:
                    return
                yield value
        decoded_events(decoder, None)

    async def aclose(self) -> None:
        pass


def replay_model(wire: WireFormat, pieces: Sequence[bytes], **bounds: Any) -> StreamingModel:
    """A model that reads its one reply from ``pieces`` (no retries)."""
    model = StreamingModel("m", wire, "http://127.0.0.1:9", backoff=Backoff(retries=0), **bounds)
    model._transport = ByteTransport(pieces)
    return model


async def replay(wire: WireFormat, pieces: Sequence[bytes], **bounds: Any) -> AssistantMessage:
    return await replay_model(wire, pieces, **bounds).complete(REQUEST)
