"""Reading a chat-completions reply: a stream's chunks, a whole completion, a server's error
body and its ``Retry-After``, each checked as it is read (a reply is outside JSON).
"""

from __future__ import annotations

import json
import math
import time
from typing import Any, Literal

from dsh.base import UnsafeJSONError, freeze_json, load_json

__all__ = [
    "chunk_parts",
    "clamp",
    "completion_parts",
    "items_of",
    "member",
    "parse_arguments",
    "refusal_text",
    "retry_after",
    "server_message",
    "text_of",
]

_MAX_BODY_CHARS = 500
_MAX_RAW_ARGUMENTS = 10_000


def parse_arguments(raw: str) -> Any:
    """A tool call's arguments as frozen JSON; text that is not JSON stays a raw string (the
    registry rejects it). Every wire format's calls are read with it.

    Arguments nested past ``JSON_MAX_DEPTH``, or holding ``NaN`` or a huge number, are not
    JSON dsh carries: they stay text too, cut at ``_MAX_RAW_ARGUMENTS`` characters.
    """
    if not raw.strip():
        return freeze_json({})
    try:
        return freeze_json(load_json(raw))
    except (UnsafeJSONError, TypeError, ValueError, RecursionError):
        if len(raw) > _MAX_RAW_ARGUMENTS:
            return f"{raw[:_MAX_RAW_ARGUMENTS]}... [{len(raw):,} characters, cut]"
        return raw


def text_of(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


# A member that is absent reads as null, as in the SDK's reply objects (built unvalidated).
def member(value: object, name: str) -> object:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object with {name!r}, got {type(value).__name__}")
    return value.get(name)


def items_of(value: object, name: str) -> list[object]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"expected {name!r} to be a list, got {type(value).__name__}")
    return value


def chunk_parts(chunk: object) -> tuple[str, list[tuple[int, str, str, str]]]:
    """A streamed chunk's text delta and tool-call deltas ``(index, id, name, arguments)``."""
    content = ""
    deltas: list[tuple[int, str, str, str]] = []
    for choice in items_of(member(chunk, "choices"), "choices"):
        if member(choice, "index") not in (0, None):
            continue
        delta = member(choice, "delta")
        if delta is None:
            continue
        content += text_of(member(delta, "content"))
        for tc in items_of(member(delta, "tool_calls"), "tool_calls"):
            function = member(tc, "function")
            name = text_of(member(function, "name")) if function is not None else ""
            arguments = text_of(member(function, "arguments")) if function is not None else ""
            index: Any = member(tc, "index")
            deltas.append((int(index or 0), text_of(member(tc, "id")), name, arguments))
    return content, deltas


def refusal_text(reply: object, part: Literal["delta", "message"]) -> str:
    """The ``refusal`` text of the first choice's message or streamed delta (``""``: none)."""
    words = ""
    for choice in items_of(member(reply, "choices"), "choices"):
        inner = member(choice, part) if member(choice, "index") in (0, None) else None
        if inner is not None:
            words += text_of(member(inner, "refusal"))
    return words


def completion_parts(completion: object) -> tuple[str, list[tuple[str, str, str]]]:
    """A whole completion's text and tool calls ``(id, name, arguments)``."""
    choices = items_of(member(completion, "choices"), "choices")
    if not choices:
        raise ValueError("the reply has no choices")
    message = member(choices[0], "message")
    if message is None:
        raise ValueError("the first choice has no message")
    calls: list[tuple[str, str, str]] = []
    for tc in items_of(member(message, "tool_calls"), "tool_calls"):
        function = member(tc, "function")
        if function is not None:
            calls.append(
                (
                    text_of(member(tc, "id")),
                    text_of(member(function, "name")),
                    text_of(member(function, "arguments")),
                )
            )
    return text_of(member(message, "content")), calls


# --- errors -------------------------------------------------------------------------------------


def server_message(body: object, response_text: str | None) -> str:
    if isinstance(body, dict):
        for candidate in (body.get("message"), body.get("error"), body.get("detail")):
            if isinstance(candidate, str) and candidate:
                return candidate
            if isinstance(candidate, dict) and isinstance(candidate.get("message"), str):
                return str(candidate["message"])
        return json.dumps(body)[:_MAX_BODY_CHARS]
    if isinstance(body, str) and body.strip():
        return body.strip()[:_MAX_BODY_CHARS]
    if response_text and response_text.strip():
        return response_text.strip()[:_MAX_BODY_CHARS]
    return "(no message from the server)"


def retry_after(headers: Any, cap: float) -> float | None:
    """The wait the server asks for (``retry-after-ms``/``retry-after``), capped; None if absent."""
    try:
        raw_ms = headers.get("retry-after-ms")
        if raw_ms is not None:
            return clamp(float(raw_ms) / 1000.0, cap)
        raw = headers.get("retry-after")
    except (AttributeError, ValueError):
        return None
    if raw is None:
        return None
    try:
        return clamp(float(raw), cap)
    except ValueError:
        pass
    import email.utils  # a date in Retry-After, rare: ~10 modules a run need not load

    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    return clamp(when.timestamp() - time.time(), cap)


def clamp(seconds: float, cap: float) -> float | None:
    if math.isnan(seconds):
        return None
    return max(0.0, min(seconds, cap))
