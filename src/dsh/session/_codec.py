"""The JSON codec of session events: an event to its log line and back.

The JSON form of an event is one object: ``type`` first, then the base fields
(``id``, ``session_id``, ``turn_id``, ``seq``, ``time``), then the class's own
fields in declaration order. The per-type work is the registry's compiled
codec; unknown tags decode to ``OpaqueEvent``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from dsh.base import freeze_json
from dsh.base._json import freeze_loaded
from dsh.session._codec_values import EventDecodeError, short_json
from dsh.session._event_base import OpaqueEvent, SessionEvent
from dsh.session._event_registry import DECODERS, entry_of

__all__ = [
    "decode_event",
    "decode_event_dict",
    "decode_stored_line",
    "encode_event",
    "encode_line",
    "fast_loads",
    "loads_for",
    "restamp",
]

# --- encoding ---------------------------------------------------------------

_DUMPS = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
# A lone surrogate cannot be UTF-8 encoded; escaping it keeps the line valid.
_DUMPS_ASCII = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode


def restamp(event: SessionEvent, session_id: str, seq: int) -> SessionEvent:
    """``event`` with ``session_id`` and ``seq`` set, every field checked and JSON frozen.

    Raises ``TypeError`` (``NotJSONError`` for a JSON field) naming the field.
    """
    return entry_of(event).restamper()(event, session_id, seq)


def encode_line(event: SessionEvent, session_id: str, seq: int) -> bytes:
    """The event's log line (without the newline), stamped with ``session_id`` and ``seq``."""
    if isinstance(event, OpaqueEvent):
        return event.raw
    codec = entry_of(event)
    try:
        obj = codec.encoder()(event, session_id, seq)
    except (AttributeError, TypeError) as exc:
        raise TypeError(f"{codec.cls.type} event: a field has the wrong shape: {exc}") from None
    try:
        text = _DUMPS(obj)
    except (TypeError, ValueError):
        _diagnose(codec.cls.type, obj)
        raise
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _DUMPS_ASCII(obj).encode("ascii")


def encode_event(event: SessionEvent) -> str:
    """The stable JSON form of an event, as its log line (an opaque event's raw line)."""
    return encode_line(event, event.session_id, event.seq).decode("utf-8")


def _diagnose(tag: str, obj: dict[str, Any]) -> None:
    # json's own error does not say where; freeze_json names the path.
    for key, value in obj.items():
        freeze_json(value, f"{tag}.{key}")


# --- decoding ---------------------------------------------------------------


def _opaque(d: dict[str, Any], raw: bytes) -> OpaqueEvent:
    def get(key: str, kinds: tuple[type, ...], default: Any) -> Any:
        v = d.get(key)
        return v if v.__class__ in kinds else default

    t = get("time", (float, int), 0.0)
    return OpaqueEvent(
        id=get("id", (str,), ""),
        session_id=get("session_id", (str,), ""),
        turn_id=get("turn_id", (str,), None),
        seq=get("seq", (int,), -1),
        time=float(t),
        event_type=d["type"],
        data=freeze_loaded(d),
        raw=raw,
    )


def decode_event_dict(d: dict[str, Any], raw: bytes | None = None) -> SessionEvent:
    """The event a parsed JSON object stands for; an unknown tag gives an ``OpaqueEvent``.

    ``raw`` is the object's line, kept by an opaque event (re-encoded when absent).
    """
    if d.__class__ is not dict:
        raise EventDecodeError(f"an event is a JSON object, got {short_json(d)}")
    tag = d.get("type")
    if tag.__class__ is not str:
        raise EventDecodeError(f"an event needs a string 'type', got {short_json(tag)}")
    decode = DECODERS.get(tag)
    if decode is None:
        if raw is None:
            raw = _DUMPS(d).encode("utf-8")
        return _opaque(d, raw)
    return decode(d)


def decode_event(line: str | bytes) -> SessionEvent:
    """The event of one log line (its JSON form)."""
    raw = line.encode("utf-8") if isinstance(line, str) else bytes(line)
    raw = raw.rstrip(b"\n")
    try:
        d = json.loads(raw)
    except ValueError as exc:
        raise EventDecodeError(f"not JSON: {exc}") from None
    return decode_event_dict(d, raw)


_from_json: Callable[..., Any] | None = None


def fast_loads(text: str) -> Any:
    """``json.loads(text)``, through the Rust parser pydantic ships (2-3x faster) when it can.

    Where the two differ (a lone surrogate escape, nesting past its limit) that
    parser refuses, and ``json.loads`` decides, so the result is always what
    ``json.loads`` gives, a ``ValueError`` included. The parser is imported at
    the first call (~20 ms): only a log big enough to repay it is read this way
    (``loads_for``).
    """
    global _from_json
    if _from_json is None:
        from pydantic_core import from_json

        _from_json = from_json
    try:
        return _from_json(text, cache_strings="keys")
    except ValueError:
        return json.loads(text)


# Below this many bytes of log, json.loads reads it sooner than importing the faster parser.
FAST_LOADS_FROM = 1 << 20


def loads_for(size: int) -> Callable[[str], Any]:
    """The JSON reader for ``size`` bytes of log lines: ``fast_loads`` when it pays, else
    ``json.loads`` (the two give the same results)."""
    return fast_loads if size >= FAST_LOADS_FROM else json.loads


def decode_stored_line(line: bytes) -> SessionEvent:
    """The event of a log line a scan already accepted (its bytes, without the newline)."""
    text = line.decode("utf-8")
    d = fast_loads(text) if len(line) >= 4096 else json.loads(text)
    tag = d.get("type") if d.__class__ is dict else None
    decode = DECODERS.get(tag) if tag.__class__ is str else None
    if decode is None:
        return decode_event_dict(d, line)
    return decode(d)
