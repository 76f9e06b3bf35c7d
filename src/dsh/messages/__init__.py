"""The model-facing messages: what a session's history is made of and a model is sent.

The floor both ``dsh.models`` (which adapts them to each wire format) and
``dsh.session`` (whose projection turns a log into them) stand on: ``UserMessage``,
``AssistantMessage`` (its ``ToolUse`` calls and ``Usage``), ``ToolResultMessage``,
``ContextMessage``, ``SteeringMessage``, ``SummaryMessage``, and the ``Content`` they
carry (a string, or ``TextBlock``, ``ImageBlock`` and ``ToolReferenceBlock`` blocks).
"""

from dsh._public import publish
from dsh.messages._messages import (
    AssistantMessage,
    Content,
    ContentBlock,
    ContextMessage,
    ImageBlock,
    ModelMessage,
    SteeringMessage,
    SummaryMessage,
    TextBlock,
    ToolReferenceBlock,
    ToolResultMessage,
    ToolUse,
    Usage,
    UserMessage,
    content_text,
)

__all__ = [
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
]

publish(globals())
