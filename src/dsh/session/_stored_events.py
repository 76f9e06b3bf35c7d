"""A reopened log's history in its light form: the lines, compressed, decoded again when read.

Reopening a long session must not hold every event as objects (100k events
take ~75 MiB that way) when the next request needs only the model view. The
scan still decodes and checks every line as it always did, folds it into the
projection, then keeps only the line, zlib-compressed a block of lines at a
time, and its type tag. ``StoredEvents`` decodes an event again when something
reads it (one block kept decompressed, for reads near each other); the bytes
are this process's own copy, so what is read back is what the scan checked.
``EventsView`` is what a log's ``events`` gives: that history followed by the
events appended since, as one read-only sequence equal to the tuple of them.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, final, overload

from dsh.session._event_base import SessionEvent

__all__ = ["EventsView", "StoredEvents", "StoredEventsBuilder", "event_types"]

BLOCK: Final = 256  # lines per compressed block
_LEVEL: Final = 1  # the fastest level: these lines repeat their keys, any level packs them ~9x

LineDecoder = Callable[[bytes], SessionEvent]


@final
class StoredEvents(Sequence[SessionEvent]):
    """Events kept as their log lines (compressed blocks of ``BLOCK``), decoded when read."""

    __slots__ = ("_blocks", "_cached", "_cached_at", "_decode", "_types")

    def __init__(self, blocks: list[bytes], types: list[str], decode: LineDecoder) -> None:
        self._blocks = blocks
        self._types = types
        self._decode = decode
        self._cached_at = -1
        self._cached: list[bytes] = []

    def __len__(self) -> int:
        return len(self._types)

    def types(self) -> Sequence[str]:
        """Each event's type tag, in order, without decoding any."""
        return self._types

    def _lines(self, block: int) -> list[bytes]:
        if block != self._cached_at:
            self._cached = zlib.decompress(self._blocks[block]).split(b"\n")
            self._cached_at = block
        return self._cached

    @overload
    def __getitem__(self, index: int) -> SessionEvent: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[SessionEvent, ...]: ...
    def __getitem__(self, index: int | slice) -> SessionEvent | tuple[SessionEvent, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("event index out of range")
        block, at = divmod(index, BLOCK)
        return self._decode(self._lines(block)[at])

    def __iter__(self) -> Iterator[SessionEvent]:
        decode = self._decode
        for block in range(len(self._blocks)):
            # Not kept: a pass over the whole history holds one block at a time.
            for line in zlib.decompress(self._blocks[block]).split(b"\n"):
                yield decode(line)

    def __reversed__(self) -> Iterator[SessionEvent]:
        decode = self._decode
        for block in reversed(range(len(self._blocks))):
            for line in reversed(self._lines(block)):
                yield decode(line)


@final
class StoredEventsBuilder:
    """Collects checked lines (without their newline) into ``StoredEvents``."""

    __slots__ = ("_blocks", "_pending", "_types")

    def __init__(self) -> None:
        self._blocks: list[bytes] = []
        self._pending: list[bytes] = []
        self._types: list[str] = []

    def add(self, line: bytes, event_type: str) -> None:
        pending = self._pending
        pending.append(line)
        self._types.append(event_type)
        if len(pending) == BLOCK:
            self._blocks.append(zlib.compress(b"\n".join(pending), _LEVEL))
            pending.clear()

    def finish(self, decode: LineDecoder) -> StoredEvents:
        if self._pending:
            self._blocks.append(zlib.compress(b"\n".join(self._pending), _LEVEL))
            self._pending = []
        return StoredEvents(self._blocks, self._types, decode)


def _no_line(line: bytes) -> SessionEvent:
    raise AssertionError("an empty history has no line to decode")


_NO_EVENTS: Final = StoredEvents([], [], _no_line)


@final
class EventsView(Sequence[SessionEvent]):
    """A log's events: its stored history, then what was appended since (both read-only).

    Equal to the tuple of its events (and to another view of the same events);
    a slice is a tuple.
    """

    __slots__ = ("_new", "_stored")

    def __init__(
        self, stored: StoredEvents | None = None, new: tuple[SessionEvent, ...] = ()
    ) -> None:
        self._stored = stored if stored is not None else _NO_EVENTS
        self._new = new

    def __len__(self) -> int:
        return len(self._stored) + len(self._new)

    @overload
    def __getitem__(self, index: int) -> SessionEvent: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[SessionEvent, ...]: ...
    def __getitem__(self, index: int | slice) -> SessionEvent | tuple[SessionEvent, ...]:
        stored = len(self._stored)
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1 and start >= stored:
                return self._new[start - stored : max(start, stop) - stored]
            return tuple(self[i] for i in range(start, stop, step))
        if index < 0:
            index += len(self)
        if 0 <= index < stored:
            return self._stored[index]
        if index < 0:
            raise IndexError("event index out of range")
        return self._new[index - stored]

    def __iter__(self) -> Iterator[SessionEvent]:
        yield from self._stored
        yield from self._new

    def __reversed__(self) -> Iterator[SessionEvent]:
        yield from reversed(self._new)
        yield from reversed(self._stored)

    def types(self) -> list[str]:
        """Each event's type tag, in order, decoding none of the stored history."""
        return [*self._stored.types(), *(e.type for e in self._new)]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventsView):
            if other._stored is self._stored:
                return self._new == other._new
        elif not isinstance(other, tuple):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Any) -> tuple[SessionEvent, ...]:
        if not isinstance(other, tuple | EventsView):
            return NotImplemented
        return (*self, *other)

    def __radd__(self, other: Any) -> tuple[SessionEvent, ...]:
        if not isinstance(other, tuple):
            return NotImplemented
        return (*other, *self)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __repr__(self) -> str:
        return f"EventsView({len(self._stored)} stored + {len(self._new)} new events)"


def event_types(events: Sequence[SessionEvent]) -> Sequence[str]:
    """Each event's type tag; a log's stored history gives its tags without decoding."""
    if isinstance(events, EventsView | StoredEvents):
        return events.types()
    return [e.type for e in events]
