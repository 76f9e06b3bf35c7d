"""Request bodies built incrementally: each message serialized once, reused by every later request.

A session's requests share their history: request n+1 is request n's messages
and a few more. ``ChatBodyEncoder`` keeps the JSON of every wire message it
has placed and, for the next request, keeps what the shared prefix settled
and encodes only the rest, so a step costs its new messages, not the history
(the bytes are still joined and sent whole: that is the protocol). The bytes
equal ``json.dumps(chat_body(...), ensure_ascii=False, separators=(",", ":"))``.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from typing import Any, final

from dsh.models._chat_request import ChatLayout, tool_json
from dsh.models._types import ModelRequest, ToolSpec
from dsh.session import ModelMessage, shared_prefix

__all__ = ["ChatBodyEncoder", "EncodedBody", "compact_json"]


# What json.dumps(value, ensure_ascii=False, separators=(",", ":")) writes, without
# building an encoder per call (a third of encoding a long history).
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def compact_json(value: object) -> bytes:
    """``value`` as a request body writes it: compact, UTF-8 raw."""
    return _COMPACT(value).encode()


@final
class EncodedBody(Mapping[str, Any]):
    """A request body already encoded; as a mapping it is that JSON, decoded when first read.

    The body is its pieces joined with commas (a long history's messages, as the
    encoder keeps them): ``chunks`` sends it without ever joining it whole, and
    ``data`` joins it on demand.
    """

    __slots__ = ("_parts", "_value", "length")

    def __init__(self, data: bytes, *more: bytes) -> None:
        self._parts = (data, *more)  # the body is b",".join(self._parts)
        self.length = sum(map(len, self._parts)) + len(self._parts) - 1
        self._value: dict[str, Any] | None = None

    @property
    def data(self) -> bytes:
        return b",".join(self._parts)

    def chunks(self, size: int = 1 << 20) -> Iterator[bytes]:
        """The body's bytes, about ``size`` at a time (a long history is never copied whole)."""
        parts = self._parts
        group: list[bytes] = []
        held = 0
        for i, part in enumerate(parts):
            group.append(part)
            held += len(part)
            if held >= size or i == len(parts) - 1:
                yield (b"," if i + 1 > len(group) else b"") + b",".join(group)
                group = []
                held = 0

    def _decoded(self) -> dict[str, Any]:
        if self._value is None:
            self._value = json.loads(self.data)
        return self._value

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())

    def __repr__(self) -> str:
        return f"EncodedBody({self.length} bytes)"


@final
class ChatBodyEncoder:
    """The chat-completions body of each request, reusing the previous request's work.

    Settled points of the layout are remembered as (messages placed, wire
    messages out); a request resumes from the last one inside the prefix it
    shares with the request before (a compaction shares none, and starts over).
    """

    __slots__ = ("_at", "_layout", "_messages", "_model", "_out_at", "_tools", "_tools_json")

    def __init__(self, model: str) -> None:
        self._model = compact_json(model)
        self._messages: tuple[ModelMessage, ...] = ()
        self._layout: ChatLayout[bytes] = ChatLayout(compact_json)
        # Settled points: messages placed, and wire messages out at each (arrays: 8 bytes
        # a point, where a list of ints costs 36, over a long history's ~35k points).
        self._at = array("q", [0])
        self._out_at = array("q", [0])
        self._tools: tuple[ToolSpec, ...] = ()
        self._tools_json = b"[]"

    def encode(self, request: ModelRequest, *, stream: bool, max_tokens: int | None) -> EncodedBody:
        messages = request.messages
        point = bisect_right(self._at, shared_prefix(self._messages, messages)) - 1
        start = self._at[point]
        del self._at[point + 1 :]
        del self._out_at[point + 1 :]
        layout = self._layout
        layout.reset(self._out_at[point])
        self._messages = ()  # until this request is placed whole
        for placed, message in enumerate(messages[start:], start + 1):
            layout.add(message)
            if layout.settled:
                self._at.append(placed)
                self._out_at.append(len(layout.out))
        layout.flush()
        self._messages = messages
        wire = list(layout.out)
        if request.system:
            wire.insert(0, compact_json({"role": "system", "content": request.system}))
        head = b'{"model":' + self._model + b',"messages":['
        tail = [b"]"]
        if request.tools:
            tail += [b',"tools":', self._tools_for(request.tools)]
        if max_tokens is not None:
            tail += [b',"max_tokens":', compact_json(max_tokens)]
        if stream:
            tail.append(b',"stream":true,"stream_options":{"include_usage":true}')
        tail.append(b"}")
        if not wire:
            return EncodedBody(head + b"".join(tail))
        # Never joined whole: the head and the tail ride on the first and last pieces.
        wire[0] = head + wire[0]
        wire[-1] = wire[-1] + b"".join(tail)
        return EncodedBody(*wire)

    def _tools_for(self, tools: tuple[ToolSpec, ...]) -> bytes:
        if tools != self._tools:
            self._tools_json = compact_json([tool_json(t) for t in tools])
            self._tools = tools
        return self._tools_json
