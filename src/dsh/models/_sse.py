"""Server-sent events: the incremental decoder of a chat-completions event stream.

Bytes go in as they arrive, cut anywhere (inside a line, a CRLF or a UTF-8
character); complete events come out. Lines end with LF, CRLF or CR; a blank
line ends an event; ``:`` starts a comment; ``data`` lines join with newlines.
Stricter than the WHATWG rules in what they would silently skip, since a
chat-completions server that sends them has broken its stream: a line that is
not UTF-8 and a field other than ``data``, ``event``, ``id`` and ``retry`` are
``SSEError``s naming the line (a raw JSON error line, a common server bug, is
then shown rather than lost).
"""

from __future__ import annotations

from typing import final

from dsh._frozen import frozen

__all__ = ["SSEDecoder", "SSEError", "ServerSentEvent"]

_BOM = "\ufeff"
_EXCERPT_CHARS = 200


class SSEError(ValueError):
    """The event stream broke its format; the message names the line and the problem."""


@final
@frozen
class ServerSentEvent:
    """One dispatched event: its type (``message`` unless named), its data, the last event id."""

    event: str
    data: str
    id: str = ""


@final
class SSEDecoder:
    """Feed it bytes with ``feed``, then call ``close`` at the end of the stream."""

    __slots__ = ("_data", "_event", "_last_id", "_line", "_skip_lf", "_tail")

    def __init__(self) -> None:
        self._tail = bytearray()  # the unterminated end of the last chunk
        self._skip_lf = False  # the last chunk ended in CR: a leading LF completes a CRLF
        self._line = 0
        self._event = ""
        self._data: list[str] = []
        self._last_id = ""

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """The events that ``chunk`` completes, in order. Raises ``SSEError``."""
        if not chunk:
            return []
        if self._skip_lf and chunk[:1] == b"\n":
            chunk = chunk[1:]
        self._skip_lf = False
        if b"\n" not in chunk and b"\r" not in chunk:  # a long line's middle: no rescan of it
            self._tail += chunk
            return []
        self._tail += chunk
        lines = self._tail.splitlines(keepends=True)
        if lines and not lines[-1].endswith((b"\n", b"\r")):
            self._tail = lines.pop()
        else:
            self._tail = bytearray()
            self._skip_lf = bool(lines) and lines[-1].endswith(b"\r")
        events: list[ServerSentEvent] = []
        for raw in lines:
            event = self._take(raw.rstrip(b"\r\n"))
            if event is not None:
                events.append(event)
        return events

    def close(self) -> None:
        """The end of the stream: a last unterminated line is checked, an open event dropped."""
        tail, self._tail = bytes(self._tail), bytearray()
        if tail:
            self._take(tail)
        self._event, self._data = "", []

    def _take(self, raw: bytes | bytearray) -> ServerSentEvent | None:
        self._line += 1
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SSEError(
                f"line {self._line} is not UTF-8 (byte {e.start}: {bytes(raw[e.start : e.end])!r})"
            ) from None
        if self._line == 1 and line.startswith(_BOM):
            line = line[1:]
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name != "retry":  # a reconnection delay: a model call never reconnects
            excerpt = line if len(line) <= _EXCERPT_CHARS else line[:_EXCERPT_CHARS] + "…"
            raise SSEError(
                f"line {self._line} has an unknown field {name!r}"
                f" (expected data, event, id or retry): {excerpt!r}"
            )
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        event, data = self._event, self._data
        self._event, self._data = "", []
        if not data:
            return None
        return ServerSentEvent(event or "message", "\n".join(data), self._last_id)
