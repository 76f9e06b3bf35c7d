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

    The body is ``head``, then ``pieces`` joined with commas (a long history's
    messages, as the encoder keeps them), then ``tail``: ``chunks`` sends it
    without ever joining it whole, and ``data`` joins it on demand.
    """

    __slots__ = ("_head", "_pieces", "_tail", "_value", "length")

    def __init__(
        self,
        head: bytes,
        pieces: tuple[bytes, ...] = (),
        tail: bytes = b"",
        *,
        pieces_length: int | None = None,
    ) -> None:
        """``pieces_length``: their bytes summed, when the caller already knows it."""
        self._head = head
        self._pieces = pieces
        self._tail = tail
        if pieces_length is None:
            pieces_length = sum(map(len, pieces))
        commas = max(len(pieces) - 1, 0)
        self.length = len(head) + pieces_length + commas + len(tail)
        self._value: dict[str, Any] | None = None

    @property
    def data(self) -> bytes:
        """The body whole: the history copied once (the head and tail ride on its ends)."""
        pieces = self._pieces
        if not pieces:
            return self._head + self._tail
        ends = [self._head + pieces[0], *pieces[1:]]
        ends[-1] += self._tail
        return b",".join(ends)

    def chunks(self, size: int = 1 << 18) -> Iterator[bytes]:
        """The body's bytes, about ``size`` at a time (a long history is never copied whole).

        Pieces are taken in runs of the count that averages ``size`` bytes, each run
        joined in C: a Python step per piece made sending a long history cost more
        than encoding it.
        """
        pieces = self._pieces
        if not pieces:
            yield self._head + self._tail
            return
        count = len(pieces)
        step = max(1, size * count // max(self.length, 1))
        for start in range(0, count, step):
            run = pieces[start : start + step]
            chunk = self._head + b",".join(run) if start == 0 else b",".join((b"", *run))
            if start + step >= count:
                chunk += self._tail
            if chunk:
                yield chunk

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
    A change of the tools offered starts over too: a ``tool_reference`` block is
    rendered from them.
    """

    __slots__ = (
        "_at",
        "_bytes_at",
        "_layout",
        "_messages",
        "_model",
        "_out_at",
        "_tools",
        "_tools_json",
    )

    def __init__(self, model: str) -> None:
        self._model = compact_json(model)
        self._messages: tuple[ModelMessage, ...] = ()
        self._layout: ChatLayout[bytes] = ChatLayout(compact_json)
        # Settled points: messages placed, and wire messages out at each (arrays: 8 bytes
        # a point, where a list of ints costs 36, over a long history's ~35k points).
        self._at = array("q", [0])
        self._out_at = array("q", [0])
        self._bytes_at = array("q", [0])  # the wire messages' bytes at each point
        self._tools: tuple[ToolSpec, ...] = ()
        self._tools_json = b"[]"

    def encode(self, request: ModelRequest, *, stream: bool, max_tokens: int | None) -> EncodedBody:
        messages = request.messages
        if request.tools != self._tools:
            self._layout.tools = {t.name: t for t in request.tools}
            self._messages = ()
            self._tools = request.tools
            self._tools_json = compact_json([tool_json(t) for t in request.tools])
        point = bisect_right(self._at, shared_prefix(self._messages, messages)) - 1
        start = self._at[point]
        del self._at[point + 1 :]
        del self._out_at[point + 1 :]
        del self._bytes_at[point + 1 :]
        layout = self._layout
        counted, size = self._out_at[point], self._bytes_at[point]
        layout.reset(counted)
        self._messages = ()  # until this request is placed whole
        for placed, message in enumerate(messages[start:], start + 1):
            layout.add(message)
            if layout.settled:
                size += sum(map(len, layout.out[counted:]))
                counted = len(layout.out)
                self._at.append(placed)
                self._out_at.append(counted)
                self._bytes_at.append(size)
        layout.flush()
        size += sum(map(len, layout.out[counted:]))
        self._messages = messages
        head = b'{"model":' + self._model + b',"messages":['
        if request.system:
            head += compact_json({"role": "system", "content": request.system})
            if layout.out:
                head += b","
        tail = [b"]"]
        if request.tools:
            tail += [b',"tools":', self._tools_json]
        if max_tokens is not None:
            tail += [b',"max_tokens":', compact_json(max_tokens)]
        if stream:
            tail.append(b',"stream":true,"stream_options":{"include_usage":true}')
        tail.append(b"}")
        # Never joined whole: the pieces as they are (a tuple, as later requests change the list).
        return EncodedBody(head, tuple(layout.out), b"".join(tail), pieces_length=size)
