"""Model-facing message types: what the session projection returns.

These are dsh's own shapes; ``dsh.models`` adapts them to each wire format
(for chat completions a ``ContextMessage`` becomes a system message, a
``SteeringMessage`` a user message).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal, TypeAlias, final

from dsh._frozen import frozen

__all__ = [
    "MAX_USAGE_TOKENS",
    "AssistantMessage",
    "Content",
    "ContentBlock",
    "ContextMessage",
    "ImageBlock",
    "ModelMessage",
    "SteeringMessage",
    "SummaryMessage",
    "TextBlock",
    "ToolReferenceBlock",
    "ToolResultMessage",
    "ToolUse",
    "Usage",
    "UserMessage",
    "content_text",
    "referenced_tools",
    "token_count",
]


@final
@frozen
class TextBlock:
    text: str
    type: Literal["text"] = "text"


@final
@frozen
class ImageBlock:
    """An image as base64 data with its media type (``image/png``)."""

    media_type: str
    data: str
    type: Literal["image"] = "image"


@final
@frozen
class ToolReferenceBlock:
    """A reference to a tool by name, as a ToolSearch result gives it (Claude Code's
    ``tool_reference``): the tool it names is loaded, so later requests offer it.

    It has no text; each model adapter renders it in its wire format.
    """

    tool_name: str
    type: Literal["tool_reference"] = "tool_reference"


ContentBlock: TypeAlias = TextBlock | ImageBlock | ToolReferenceBlock
Content: TypeAlias = str | tuple[ContentBlock, ...]


def content_text(content: Content) -> str:
    """The text of some content: the string itself, or its text blocks joined by newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(b.text for b in content if isinstance(b, TextBlock))


def referenced_tools(content: Content) -> tuple[str, ...]:
    """The names of the tools some content references (its ``tool_reference`` blocks)."""
    if isinstance(content, str):
        return ()
    return tuple(b.tool_name for b in content if isinstance(b, ToolReferenceBlock))


@final
@frozen
class ToolUse:
    """A tool call as the model asked for it. ``arguments`` is frozen JSON."""

    id: str
    name: str
    arguments: Any


@final
@frozen
class UserMessage:
    content: Content
    role: Literal["user"] = "user"


MAX_USAGE_TOKENS = 10**12
"""The most tokens one model call is believed to have used: a larger count is hostile."""


@final
@frozen
class Usage:
    """The tokens one model call used, as the API reported them (Claude Code's ``usage`` words).

    ``input_tokens`` excludes the prompt tokens read from or written to a cache,
    which are counted apart. Each count is an ``int`` from 0 to ``MAX_USAGE_TOKENS``.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    @property
    def context_tokens(self) -> int:
        """The context the call had, as the API counted it: input, cache and output tokens
        (Claude Code's ``context_tokens``; what Codex's auto-compact limit is held against)."""
        return (
            self.input_tokens
            + self.cache_read_input_tokens
            + self.cache_creation_input_tokens
            + self.output_tokens
        )

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )


def token_count(value: object) -> int | None:
    """``value`` as a token count, or None when it is not one (negative, huge, not an int)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_USAGE_TOKENS else None


@final
@frozen
class AssistantMessage:
    """A model reply; ``usage`` is what the call cost, when the model reported it."""

    text: str
    tool_calls: tuple[ToolUse, ...] = field(default=())
    usage: Usage | None = None
    role: Literal["assistant"] = "assistant"


@final
@frozen
class ToolResultMessage:
    tool_use_id: str
    content: Content
    is_error: bool = False
    role: Literal["tool"] = "tool"


@final
@frozen
class ContextMessage:
    """Model-visible context added by a plugin or hook; ``text`` is already worded by its source."""

    source: str
    text: str
    role: Literal["context"] = "context"


@final
@frozen
class SteeringMessage:
    """Steering, or a forced continuation's reason, delivered mid-turn."""

    text: str
    role: Literal["steering"] = "steering"


@final
@frozen
class SummaryMessage:
    """A compaction summary, standing in for the history before it."""

    text: str
    role: Literal["summary"] = "summary"


ModelMessage: TypeAlias = (
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | ContextMessage
    | SteeringMessage
    | SummaryMessage
)
