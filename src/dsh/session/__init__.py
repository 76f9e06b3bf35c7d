"""The durable session log: typed events, the store, projection to model messages."""

from dsh.session._json import (
    FrozenDict,
    FrozenJSON,
    JSONValue,
    NotJSONError,
    freeze_json,
    thaw_json,
)
from dsh.session._messages import (
    AssistantMessage,
    Content,
    ContentBlock,
    ContextMessage,
    ImageBlock,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    TextBlock,
    ToolResultMessage,
    ToolUse,
    UserMessage,
    content_text,
)

__all__ = [
    "AssistantMessage",
    "Content",
    "ContentBlock",
    "ContextMessage",
    "FrozenDict",
    "FrozenJSON",
    "ImageBlock",
    "JSONValue",
    "ModelMessage",
    "NotJSONError",
    "SteeringMessage",
    "SummaryMessage",
    "TextBlock",
    "ToolResultMessage",
    "ToolUse",
    "UserMessage",
    "content_text",
    "freeze_json",
    "thaw_json",
]
