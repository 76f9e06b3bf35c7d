"""A reopened log's history in its light form: where its lines are, decoded again when read.

Reopening a long session must not hold every event as objects (100k events
take ~75 MiB that way) when the next request needs only the model view. The
scan still decodes and checks every line as it always did and folds it into
the projection, then keeps only each event's type tag and, per block of
``BLOCK`` lines, where the block lies in the file and its CRC-32. Reading an
event reads its block again (one block kept, for reads near each other) and
checks the CRC: a log changed on disk under its writer's lock is reported as
corrupt, never decoded as something else. The file is reopened for each
block read (never through a link), so the history stays readable after the
log is closed, as long as the file is there.
``EventsView`` is what a log's ``events`` gives: that history followed by the
events appended since, as one read-only sequence equal to the tuple of them.
"""

from __future__ import annotations

import os
import zlib
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final, final, overload

from dsh.session._event_base import SessionEvent
from dsh.session._private_files import open_private

__all__ = ["EventsView", "StoredEvents", "StoredEventsBuilder", "event_types"]

BLOCK: Final = 256  # lines per block
FIRST_LINE: Final = 2  # the header is line 1

LineDecoder = Callable[[bytes], SessionEvent]
# (offset, line number, problem) -> the error to raise for a block that no longer reads back
Corrupt = Callable[[int, int, str], Exception]


@final
class _Tags:
    """Type tags in order, as indexes into the few distinct ones (4 bytes a tag, not 8)."""

    __slots__ = ("_index", "_names", "_order")

    def __init__(self) -> None:
        self._names: list[str] = []
        self._index: dict[str, int] = {}
        self._order = array("I")

    def append(self, tag: str) -> None:
        i = self._index.get(tag)
        if i is None:
            i = self._index[tag] = len(self._names)
            self._names.append(tag)
        self._order.append(i)

    def __len__(self) -> int:
        return len(self._order)

    def as_list(self) -> list[str]:
        names = self._names
        return [names[i] for i in self._order]


@final
class StoredEvents(Sequence[SessionEvent]):
    """Events kept as where their lines are in ``path`` (blocks of ``BLOCK``), decoded when read."""

    __slots__ = (
        "_cached",
        "_corrupt",
        "_crcs",
        "_decode",
        "_path",
        "_starts",
        "_types",
    )

    def __init__(
        self,
        path: Path,
        starts: array[int],  # each block's first byte, then where the last block ends
        crcs: array[int],
        types: _Tags,
        decode: LineDecoder,
        corrupt: Corrupt,
    ) -> None:
        self._path = path
        self._starts = starts
        self._crcs = crcs
        self._types = types
        self._decode = decode
        self._corrupt = corrupt
        self._cached: tuple[int, list[bytes]] = (-1, [])

    def moved(self, path: Path, shift: int) -> StoredEvents:
        """The same lines, now ``shift`` bytes further on in ``path`` (a fork's copy)."""
        starts = array("q", (s + shift for s in self._starts))
        return StoredEvents(path, starts, self._crcs, self._types, self._decode, self._corrupt)

    def __len__(self) -> int:
        return len(self._types)

    def types(self) -> list[str]:
        """Each event's type tag, in order, without decoding any."""
        return self._types.as_list()

    def _read(self, block: int) -> list[bytes]:
        start, end = self._starts[block], self._starts[block + 1]
        line = FIRST_LINE + block * BLOCK
        try:
            fd = open_private(self._path, os.O_RDONLY)
            try:
                data = os.pread(fd, end - start, start)
            finally:
                os.close(fd)
        except OSError as exc:
            raise self._corrupt(start, line, f"cannot be read again: {exc}") from None
        if len(data) != end - start or zlib.crc32(data) != self._crcs[block]:
            raise self._corrupt(start, line, "changed on disk since the log was opened")
        lines = data.split(b"\n")
        lines.pop()  # after the last newline
        return lines

    def _lines(self, block: int) -> list[bytes]:
        # One assignment of (block, lines): readers in two threads never pair one's block
        # number with the other's lines.
        at, lines = self._cached
        if at != block:
            lines = self._read(block)
            self._cached = (block, lines)
        return lines

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
        for block in range(len(self._crcs)):
            # Not kept: a pass over the whole history holds one block at a time.
            for line in self._read(block):
                yield decode(line)

    def __reversed__(self) -> Iterator[SessionEvent]:
        decode = self._decode
        for block in reversed(range(len(self._crcs))):
            for line in reversed(self._lines(block)):
                yield decode(line)


@final
class StoredEventsBuilder:
    """Notes where each checked line (with its newline) lies, from byte ``start`` of ``path`` on."""

    __slots__ = ("_crc", "_crcs", "_in_block", "_path", "_pos", "_starts", "_types")

    def __init__(self, path: Path, start: int) -> None:
        self._path = path
        self._pos = start
        self._starts = array("q", [start])
        self._crcs = array("L")
        self._types = _Tags()
        self._crc = 0
        self._in_block = 0

    def add(self, raw: bytes, event_type: str) -> None:
        self._types.append(event_type)
        self._crc = zlib.crc32(raw, self._crc)
        self._pos += len(raw)
        self._in_block += 1
        if self._in_block == BLOCK:
            self._close_block()

    def _close_block(self) -> None:
        self._crcs.append(self._crc)
        self._starts.append(self._pos)
        self._crc = 0
        self._in_block = 0

    def finish(self, decode: LineDecoder, corrupt: Corrupt) -> StoredEvents:
        if self._in_block:
            self._close_block()
        return StoredEvents(self._path, self._starts, self._crcs, self._types, decode, corrupt)


def _no_line(line: bytes) -> SessionEvent:
    raise AssertionError("an empty history has no line to decode")


def _no_block(offset: int, line: int, problem: str) -> Exception:
    raise AssertionError("an empty history has no block to read")


_NO_EVENTS: Final = StoredEvents(Path(), array("q", [0]), array("L"), _Tags(), _no_line, _no_block)


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
