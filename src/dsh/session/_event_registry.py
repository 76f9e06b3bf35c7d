"""The event type registry: which class each ``type`` tag names, and its codec.

``register_event_type`` checks a class and plans its fields once; each half of
its codec (writing, reading) compiles on the type's first decode, or after its
first writes (``_COMPILE_AFTER``; until then the plan is read per event,
``interpret_writer``): most types of a process never see one, and compiling
them all at import was a tenth of ``dsh run``'s start-up. dsh's own event types (a module
under ``dsh.``) are planned on first use too: resolving their annotations
(``typing.get_type_hints``) was ~2.7 ms of every run's start-up, and
``tests/session/test_codec.py`` plans every one of them, so a field the codec
cannot log still fails a test; any other class is planned, and refused, when it
registers. A tag with no entry here decodes to ``OpaqueEvent``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, final

from dsh.session._codec_compiler import Plan, compile_codec, interpret_writer, plan_of
from dsh.session._event_base import OpaqueEvent, SessionEvent

__all__ = [
    "DECODERS",
    "HEADER_TYPE",
    "entry_of",
    "event_type_of",
    "plan_every_event_type",
    "register_event_type",
    "registered_event_types",
]

E = TypeVar("E", bound=SessionEvent)

HEADER_TYPE = "session/header"
_TAG = re.compile(r"^[a-z0-9][a-z0-9_.-]*(/[a-z0-9][a-z0-9_.-]*)*$")


_Encode = Callable[[SessionEvent, str, int], dict[str, Any]]
_Restamp = Callable[[SessionEvent, str, int], SessionEvent]
_Decode = Callable[[dict[str, Any]], SessionEvent]


@final
class _Entry:
    """A registered type: its checked field plan now; each half of its codec on first use.

    The writing half (``encode``, ``restamp``) and the reading half (``decode``)
    compile separately: a new session only writes, and a reload of a log that a
    process never appends to only reads.
    """

    __slots__ = ("_decode", "_encode", "_plan", "_read", "_restamp", "_writes", "cls", "tag")

    def __init__(self, cls: type[SessionEvent], tag: str, plan: Plan | None) -> None:
        self.cls = cls
        self.tag = tag
        self._plan = plan
        self._encode: _Encode | None = None
        self._restamp: _Restamp | None = None
        self._decode: _Decode | None = None
        self._read: tuple[_Encode, _Restamp] | None = None
        self._writes = 0

    @property
    def plan(self) -> Plan:
        """The checked field plan (a dsh type's made now, on its first use)."""
        if self._plan is None:
            self._plan = plan_of(self.cls)
        return self._plan

    def encoder(self) -> _Encode:
        if self._encode is None:
            return self._writer()[0]
        return self._encode

    def restamper(self) -> _Restamp:
        if self._restamp is None:
            return self._writer()[1]
        return self._restamp

    def _writer(self) -> tuple[_Encode, _Restamp]:
        """The plan read per event for a type's first writes, then the compiled pair."""
        self._writes += 1
        if self._writes > _COMPILE_AFTER:
            self._compile_writer()
            assert self._encode is not None
            assert self._restamp is not None
            return self._encode, self._restamp
        if self._read is None:
            self._read = interpret_writer(self.cls, self.tag, self.plan)
        return self._read

    def decoder(self) -> _Decode:
        if self._decode is None:
            self._decode = compile_codec(self.cls, self.tag, self.plan, reader=True)["decode"]
            DECODERS[self.tag] = self._decode
        return self._decode

    def _compile_writer(self) -> None:
        fns = compile_codec(self.cls, self.tag, self.plan, reader=False)
        self._encode, self._restamp = fns["encode"], fns["restamp"]


# Writes (encodes and restamps) of one type read its plan per event until this many; then its
# writer is compiled. A run writes a few events of each type it logs; a compile is ~0.5 ms.
_COMPILE_AFTER = 32
_REGISTRY: dict[str, _Entry] = {}
# The decoders alone, keyed by tag: the hot path of a reload (a compiling stub until first use).
DECODERS: dict[str, _Decode] = {}


def _first_decode(entry: _Entry) -> _Decode:
    def decode(d: dict[str, Any]) -> SessionEvent:
        return entry.decoder()(d)

    return decode


def register_event_type(cls: type[E]) -> type[E]:
    """Class decorator: make ``cls`` a loggable event type under its ``type`` tag.

    ``cls`` must be a frozen, slotted, kw_only dataclass subclass of
    ``SessionEvent`` with a ``type`` ClassVar tag like ``"hook/result"``. Its
    fields may be ``str``, ``int``, ``float``, ``bool``, ``None``, unions of
    those, ``Literal`` strings, a ``StrEnum``, tuples of scalars, ``Content``,
    ``tuple[ToolUse, ...]``, ``AbortCause``, any of these ``| None``, or
    ``Any`` holding JSON (decoded frozen). Registering the same class again is
    a no-op; another class under a taken tag is an error.
    """
    name = getattr(cls, "__qualname__", repr(cls))
    if not (isinstance(cls, type) and issubclass(cls, SessionEvent)) or cls is SessionEvent:
        raise TypeError(f"register_event_type: {name} is not a subclass of SessionEvent")
    if cls is OpaqueEvent:
        raise TypeError("register_event_type: OpaqueEvent stands for unknown types")
    tag = cls.__dict__.get("type")
    if not isinstance(tag, str) or not _TAG.match(tag):
        raise TypeError(
            f"register_event_type: {name} needs its own `type: ClassVar[str]` tag of "
            f"like 'area/name' (lowercase), got {tag!r}"
        )
    if tag == HEADER_TYPE:
        raise ValueError(
            f"register_event_type: {name}: {HEADER_TYPE!r} is reserved for log headers"
        )
    params = cls.__dict__.get("__dataclass_params__")
    if params is None or not params.frozen:
        raise TypeError(f"register_event_type: {name} must be a @dataclass(frozen=True, ...)")
    if "__slots__" not in cls.__dict__:
        raise TypeError(f"register_event_type: {name} must be a @dataclass(slots=True, ...)")
    existing = _REGISTRY.get(tag)
    if existing is not None:
        if existing.cls is cls:
            return cls
        raise ValueError(
            f"register_event_type: tag {tag!r} of {name} is already registered by "
            f"{existing.cls.__module__}.{existing.cls.__qualname__}"
        )
    own = cls.__module__.startswith("dsh.")  # planned on first use (see the module docstring)
    entry = _Entry(cls, tag, None if own else plan_of(cls))
    _REGISTRY[tag] = entry
    DECODERS[tag] = _first_decode(entry)
    return cls


def plan_every_event_type() -> None:
    """Plan every registered type now (``TypeError`` naming a field the codec cannot log)."""
    for entry in list(_REGISTRY.values()):
        _ = entry.plan


def registered_event_types() -> Mapping[str, type[SessionEvent]]:
    """Every registered tag and its class (a snapshot)."""
    return {tag: c.cls for tag, c in _REGISTRY.items()}


def event_type_of(event: SessionEvent) -> str:
    """The tag of an event, including an opaque one's."""
    if isinstance(event, OpaqueEvent):
        return event.event_type
    return type(event).type


def entry_of(event: SessionEvent) -> _Entry:
    """The registry entry of ``event``'s class; ``TypeError`` when it is not registered."""
    cls = type(event)
    entry = _REGISTRY.get(getattr(cls, "type", None))  # type: ignore[arg-type]
    if entry is None or entry.cls is not cls:
        raise TypeError(
            f"{cls.__qualname__} is not a registered session event type "
            "(decorate it with @register_event_type)"
        )
    return entry
