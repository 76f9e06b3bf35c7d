"""Request bodies built incrementally: each message serialized once, reused by every later request.

A session's requests share their history: request n+1 is request n's messages
and a few more. ``ChatBodyEncoder`` keeps the JSON of every wire message it
has placed and, for the next request, keeps what the shared prefix settled
and encodes only the rest, so a step costs its new messages, not the history
(the bytes are still sent whole, that is the protocol, but the history is
never joined again: it is kept joined in one buffer later requests extend). The bytes
equal ``json.dumps(chat_body(...), ensure_ascii=False, separators=(",", ":"))``.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from typing import Any, final

from dsh.base import valid_text
from dsh.messages import ModelMessage
from dsh.messages._history import shared_prefix
from dsh.models._chat_request import ChatLayout, tool_json
from dsh.models._types import ModelRequest, ToolSpec

__all__ = ["ChatBodyEncoder", "EncodedBody", "compact_json"]


# What json.dumps(value, ensure_ascii=False, separators=(",", ":")) writes, without
# building an encoder per call (a third of encoding a long history).
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def compact_json(value: object) -> bytes:
    """``value`` as a request body writes it: compact, UTF-8 raw (a lone surrogate, which a
    session log may hold as its JSON escape, goes out as U+FFFD: the wire is UTF-8)."""
    text = _COMPACT(value)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return valid_text(text).encode()


@final
class EncodedBody(Mapping[str, Any]):
    """A request body already encoded; as a mapping it is that JSON, decoded when first read.

    The body is ``head``, then the ``settled`` history (wire messages already
    joined with commas, as the encoder keeps them: only its first
    ``settled_length`` bytes are this body's), then ``pieces`` joined with
    commas, then ``tail``. ``parts`` hands it to a vectored write and ``chunks``
    to a writer of bytes, neither joining the history; ``data`` joins it on demand.
    """

    __slots__ = (
        "_head",
        "_pieces",
        "_pieces_length",
        "_settled",
        "_settled_length",
        "_tail",
        "_value",
        "length",
    )

    def __init__(
        self,
        head: bytes,
        pieces: tuple[bytes, ...] = (),
        tail: bytes = b"",
        *,
        pieces_length: int | None = None,
        settled: bytes | bytearray = b"",
        settled_length: int | None = None,
    ) -> None:
        """``pieces_length``: their bytes summed, when the caller already knows it."""
        self._head = head
        self._settled = settled
        settled_length = len(settled) if settled_length is None else settled_length
        self._settled_length = settled_length
        if pieces and settled_length:
            # The comma between the settled history and the pieces leads the pieces.
            pieces = (b"", *pieces)
        self._pieces = pieces
        if pieces_length is None:
            pieces_length = sum(map(len, pieces))
        commas = max(len(pieces) - 1, 0)
        self._pieces_length = pieces_length + commas
        self.length = len(head) + settled_length + self._pieces_length + len(tail)
        self._tail = tail
        self._value: dict[str, Any] | None = None

    @property
    def data(self) -> bytes:
        """The body whole, joined once."""
        return b"".join(self.parts())

    def parts(self) -> list[bytes | memoryview]:
        """The body in at most three parts, the settled history as a view of the encoder's."""
        head, n = self._head, self._settled_length
        rest = b",".join(self._pieces) + self._tail
        if not n:
            return [head + rest]
        return [head, memoryview(self._settled)[:n], rest]

    def chunks(self, size: int = 1 << 18) -> Iterator[bytes]:
        """The body's bytes, about ``size`` at a time (a long history is never copied whole).

        The settled history is cut in slices; the pieces are taken in runs of the
        count that averages ``size`` bytes, each run joined in C: a Python step per
        piece made sending a long history cost more than encoding it.
        """
        lead, n = self._head, self._settled_length
        if n:
            with memoryview(self._settled) as view:
                for start in range(0, n, size):
                    part = lead + view[start : min(start + size, n)]
                    lead = b""
                    if start + size < n:
                        yield part
                    else:
                        lead = part
        yield from self._piece_chunks(lead, size)

    def _piece_chunks(self, lead: bytes, size: int) -> Iterator[bytes]:
        pieces = self._pieces
        if not pieces:
            if lead or self._tail:
                yield lead + self._tail
            return
        count = len(pieces)
        step = max(1, size * count // max(self._pieces_length, 1))
        for start in range(0, count, step):
            run = pieces[start : start + step]
            chunk = lead + b",".join(run) if start == 0 else b",".join((b"", *run))
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

    Settled points of the layout are remembered as (messages placed, settled
    bytes); the wire messages up to the last one are kept joined in one buffer
    that later requests extend, so a body's history is a view of it, never
    joined again. A request resumes from the last point inside the prefix it
    shares with the request before (a compaction shares none, and starts over).
    A change of the tools offered starts over too: a ``tool_reference`` block is
    rendered from them. A buffer is never changed under a body already given: a
    request that rewinds, or a buffer a write still holds, gets a new one.
    """

    __slots__ = (
        "_at",
        "_bytes_at",
        "_layout",
        "_messages",
        "_model",
        "_settled",
        "_tools",
        "_tools_json",
    )

    def __init__(self, model: str) -> None:
        self._model = compact_json(model)
        self._messages: tuple[ModelMessage, ...] = ()
        # Only the unsettled wire messages stay in the layout's ``out``.
        self._layout: ChatLayout[bytes] = ChatLayout(compact_json)
        self._settled = bytearray()
        # Settled points: messages placed, and the settled buffer's length at each (arrays:
        # 8 bytes a point, where a list of ints costs 36, over a long history's ~35k points).
        self._at = array("q", [0])
        self._bytes_at = array("q", [0])
        self._tools: tuple[ToolSpec, ...] = ()
        self._tools_json = b"[]"

    def encode(self, request: ModelRequest, *, stream: bool, max_tokens: int | None) -> EncodedBody:
        messages = request.messages
        if request.tools != self._tools:
            self._layout.tools = {t.name: t for t in request.tools}
            self._messages = ()
            self._tools = request.tools
            self._tools_json = compact_json([tool_json(t) for t in request.tools])
        start = self._resume(shared_prefix(self._messages, messages))
        layout = self._layout
        self._messages = ()  # until this request is placed whole
        for placed, message in enumerate(messages[start:], start + 1):
            layout.add(message)
            if layout.settled:
                self._settle(placed)
        layout.finish()
        self._messages = messages
        settled, pieces = len(self._settled), tuple(layout.out)
        head = b'{"model":' + self._model + b',"messages":['
        if request.system:
            head += compact_json({"role": "system", "content": request.system})
            if settled or pieces:
                head += b","
        tail = [b"]"]
        if request.tools:
            tail += [b',"tools":', self._tools_json]
        if max_tokens is not None:
            tail += [b',"max_tokens":', compact_json(max_tokens)]
        if stream:
            tail.append(b',"stream":true,"stream_options":{"include_usage":true}')
        tail.append(b"}")
        return EncodedBody(
            head, pieces, b"".join(tail), settled=self._settled, settled_length=settled
        )

    def _resume(self, shared: int) -> int:
        """Back to the last settled point within ``shared`` messages; how many it had placed."""
        point = bisect_right(self._at, shared) - 1
        del self._at[point + 1 :]
        del self._bytes_at[point + 1 :]
        keep = self._bytes_at[point]
        if keep < len(self._settled):
            self._settled = bytearray(memoryview(self._settled)[:keep])
        self._layout.reset(0)
        return self._at[point]

    def _settle(self, placed: int) -> None:
        out = self._layout.out
        if out:
            grown = b",".join(out)
            if self._settled:
                grown = b"," + grown
            try:
                self._settled += grown
            except BufferError:  # a write still holds a view of the buffer: leave it that one
                self._settled = self._settled + grown
            out.clear()
        self._at.append(placed)
        self._bytes_at.append(len(self._settled))
