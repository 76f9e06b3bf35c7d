"""The codecs of the structured values an event field may hold, and decode errors.

Content (text, image and tool-reference blocks), tool calls and abort causes each have an
encoder (Python value to JSON), a decoder (what ``json.loads`` gave to the
Python value, raising ``ValueError`` with what it expected) and a normalizer
(a caller's value checked as it will be logged, raising ``TypeError``). The
compiled event codecs call these for such fields.
"""

from __future__ import annotations

import json
import sys
import typing
from typing import Any

from dsh.base import DshError, FrozenDict, freeze_json
from dsh.base._json import freeze_loaded
from dsh.messages import (
    Content,
    ContentBlock,
    ImageBlock,
    TextBlock,
    ToolReferenceBlock,
    ToolUse,
    Usage,
)
from dsh.messages._messages import token_count
from dsh.session._event_base import AbortCause, AbortKind

__all__ = [
    "EventDecodeError",
    "bad_conversion",
    "bad_field",
    "decode_cause",
    "decode_content",
    "decode_tool_calls",
    "decode_usage",
    "encode_cause",
    "encode_content",
    "encode_tool_calls",
    "encode_usage",
    "normalize_cause",
    "normalize_content",
    "normalize_tool_calls",
    "normalize_usage",
    "short_json",
]


class EventDecodeError(DshError, ValueError):
    """A JSON object does not decode to the event its ``type`` names."""


def short_json(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def bad_field(tag: str, name: str, expected: str, value: object) -> typing.NoReturn:
    raise EventDecodeError(
        f"{tag} event, field {name!r}: expected {expected}, got {short_json(value)}"
    )


def bad_conversion(tag: str, name: str, exc: ValueError) -> typing.NoReturn:
    raise EventDecodeError(f"{tag} event, field {name!r}: expected {exc}") from None


# --- encoding ---------------------------------------------------------------


def _enc_block(b: object) -> dict[str, Any]:
    if isinstance(b, TextBlock):
        return {"type": "text", "text": b.text}
    if isinstance(b, ImageBlock):
        return {"type": "image", "media_type": b.media_type, "data": b.data}
    if isinstance(b, ToolReferenceBlock):
        return {"type": "tool_reference", "tool_name": b.tool_name}
    raise TypeError(f"content block {b!r} is not a TextBlock, ImageBlock or ToolReferenceBlock")


def encode_content(c: Content) -> object:
    if c.__class__ is str:
        return c
    return [_enc_block(b) for b in c]


def encode_tool_calls(calls: tuple[ToolUse, ...]) -> list[dict[str, Any]]:
    return [{"id": u.id, "name": u.name, "arguments": u.arguments} for u in calls]


def encode_cause(c: AbortCause) -> dict[str, Any]:
    return {"kind": c.kind, "reason": c.reason}


_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def encode_usage(u: Usage) -> dict[str, int]:
    return {name: getattr(u, name) for name in _USAGE_FIELDS}


# --- decoding ---------------------------------------------------------------


def _dec_block(b: object) -> ContentBlock:
    if b.__class__ is dict:
        d = typing.cast("dict[str, Any]", b)
        kind = d.get("type")
        if kind == "text" and d.get("text").__class__ is str:
            return TextBlock(d["text"])
        if (
            kind == "image"
            and d.get("media_type").__class__ is str
            and d.get("data").__class__ is str
        ):
            return ImageBlock(d["media_type"], d["data"])
        if kind == "tool_reference" and d.get("tool_name").__class__ is str:
            return ToolReferenceBlock(d["tool_name"])
    raise ValueError(f"a text, image or tool_reference block, got {short_json(b)}")


def decode_content(v: object) -> Content:
    if v.__class__ is str:
        return v
    if v.__class__ is list:
        return tuple([_dec_block(b) for b in typing.cast("list[object]", v)])
    raise ValueError(f"a string or a list of content blocks, got {short_json(v)}")


def decode_tool_calls(v: object) -> tuple[ToolUse, ...]:
    if v.__class__ is not list:
        raise ValueError(f"a list of tool calls, got {short_json(v)}")
    out = []
    for u in typing.cast("list[object]", v):
        if (
            u.__class__ is not dict
            or (d := typing.cast("dict[str, Any]", u)).get("id").__class__ is not str
            or d.get("name").__class__ is not str
            or "arguments" not in d
        ):
            raise ValueError(f"a tool call {{id, name, arguments}}, got {short_json(u)}")
        # A tool's name repeats across a session: one string for all its calls.
        out.append(ToolUse(d["id"], sys.intern(d["name"]), freeze_loaded(d["arguments"])))
    return tuple(out)


_ABORT_KINDS = frozenset(typing.get_args(AbortKind))


def decode_cause(v: object) -> AbortCause:
    if v.__class__ is dict:
        d = typing.cast("dict[str, Any]", v)
        if d.get("kind") in _ABORT_KINDS and d.get("reason").__class__ is str:
            return AbortCause(d["kind"], d["reason"])
    raise ValueError(
        f"an abort cause {{kind: user|hook|timeout|error, reason}}, got {short_json(v)}"
    )


def decode_usage(v: object) -> Usage:
    if v.__class__ is dict:
        d = typing.cast("dict[str, Any]", v)
        counts = [token_count(d.get(name, 0)) for name in _USAGE_FIELDS]
        if all(c is not None for c in counts) and set(d) <= set(_USAGE_FIELDS):
            return Usage(*typing.cast("list[int]", counts))
    raise ValueError(
        "a usage {input_tokens, output_tokens, cache_read_input_tokens,"
        f" cache_creation_input_tokens}} of counts from 0, got {short_json(v)}"
    )


# --- normalizing a caller's value -------------------------------------------


def normalize_content(v: object) -> Content:
    if isinstance(v, str):
        return v
    if isinstance(v, tuple | list):
        for b in v:
            if not isinstance(b, TextBlock | ImageBlock | ToolReferenceBlock):
                raise TypeError(b)
        return tuple(v)
    raise TypeError(v)


def normalize_tool_calls(v: object) -> tuple[ToolUse, ...]:
    if not isinstance(v, tuple | list):
        raise TypeError(v)
    out = []
    for u in v:
        if not isinstance(u, ToolUse) or u.id.__class__ is not str or u.name.__class__ is not str:
            raise TypeError(u)
        args = freeze_json(u.arguments)
        out.append(
            u if args == u.arguments and _is_frozen(u.arguments) else ToolUse(u.id, u.name, args)
        )
    return tuple(out)


def _is_frozen(v: object) -> bool:
    if isinstance(v, dict):
        return isinstance(v, FrozenDict) and all(_is_frozen(x) for x in v.values())
    if isinstance(v, list):
        return False
    if isinstance(v, tuple):
        return all(_is_frozen(x) for x in v)
    return True


def normalize_cause(v: object) -> AbortCause:
    if isinstance(v, AbortCause) and v.kind in _ABORT_KINDS and isinstance(v.reason, str):
        return v
    raise TypeError(v)


def normalize_usage(v: object) -> Usage:
    if isinstance(v, Usage) and all(token_count(getattr(v, n)) is not None for n in _USAGE_FIELDS):
        return v
    raise TypeError(v)
