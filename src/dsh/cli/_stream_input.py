"""``dsh run --input-format stream-json``: user messages on stdin, one JSON object a line.

The shape is ``claude -p --input-format stream-json``'s:
``{"type": "user", "message": {"role": "user", "content": "..." | [blocks]}}``;
each user message is one turn. Other line types go to the handler registered
for them in ``LINE_HANDLERS`` (``control_request`` has none yet: Claude Code's
control protocol belongs to its bridge), and a line nobody handles is an
error naming its line number. Input is bounded: a line over
``MAX_LINE_BYTES``, more than ``MAX_MESSAGES`` messages, or JSON that is not
an object is refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, Final

from dsh._frozen import frozen
from dsh.base import DshError

__all__ = [
    "LINE_HANDLERS",
    "MAX_LINE_BYTES",
    "MAX_MESSAGES",
    "StreamInput",
    "StreamInputError",
    "parse_stream_input",
]

MAX_LINE_BYTES: Final = 1024 * 1024
MAX_MESSAGES: Final = 1000


class StreamInputError(DshError, ValueError):
    """A stream-json input line dsh cannot use; the message names the line."""


@frozen
class StreamInput:
    """What the input stream asks for: the prompts, in order (each a turn)."""

    prompts: tuple[str, ...]


LineHandler = Callable[[dict[str, Any], int], str | None]
"""Handles a line of one ``type``: returns a prompt to run, or ``None`` (handled, no turn)."""

LINE_HANDLERS: dict[str, LineHandler] = {}
"""Handlers for line types other than ``user``, by ``type`` (extended by other modules)."""


def _text(content: Any, lineno: int) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "text":
                raise StreamInputError(
                    f"stdin line {lineno}: only text content blocks are supported"
                )
            text = block.get("text")
            if not isinstance(text, str):
                raise StreamInputError(f"stdin line {lineno}: a text block without text")
            parts.append(text)
        return "\n".join(parts)
    raise StreamInputError(f"stdin line {lineno}: message.content is not a string or list")


def _user_prompt(obj: dict[str, Any], lineno: int) -> str:
    message = obj.get("message")
    if not isinstance(message, dict):
        raise StreamInputError(f"stdin line {lineno}: a user line needs a message object")
    if message.get("role", "user") != "user":
        raise StreamInputError(f"stdin line {lineno}: message.role must be 'user'")
    return _text(message.get("content"), lineno)


def parse_stream_input(lines: Iterable[str]) -> StreamInput:
    """The prompts of a stream-json input (blank lines skipped)."""
    prompts: list[str] = []
    for lineno, line in enumerate(lines, 1):
        if len(line.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
            raise StreamInputError(f"stdin line {lineno}: longer than {MAX_LINE_BYTES} bytes")
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise StreamInputError(f"stdin line {lineno}: not JSON: {exc}") from None
        if not isinstance(obj, dict):
            raise StreamInputError(f"stdin line {lineno}: not a JSON object")
        kind = obj.get("type")
        if kind == "user":
            prompt: str | None = _user_prompt(obj, lineno)
        elif isinstance(kind, str) and kind in LINE_HANDLERS:
            prompt = LINE_HANDLERS[kind](obj, lineno)
        else:
            raise StreamInputError(f"stdin line {lineno}: unsupported line type {kind!r}")
        if prompt is not None:
            prompts.append(prompt)
            if len(prompts) > MAX_MESSAGES:
                raise StreamInputError(f"stdin: more than {MAX_MESSAGES} user messages")
    return StreamInput(tuple(prompts))
