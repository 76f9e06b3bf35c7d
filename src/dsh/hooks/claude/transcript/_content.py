"""A tool result's content as Claude Code writes it in hook payloads and transcripts.

Claude Code writes a tool result's text as a string, and content with other blocks as its
block list; a ToolSearch result is ``tool_reference`` blocks (the corpus's
``task-tools-search``: PostToolBatch's ``tool_response``). dsh keeps its former form for
text and images (the text alone) and writes the block list whenever a ``tool_reference``
block is in the content, each block as the Messages API spells it.
"""

from __future__ import annotations

from typing import Any

from dsh.messages import Content, ImageBlock, TextBlock, ToolReferenceBlock, content_text

__all__ = ["batch_content", "claude_content"]


def _block(block: object) -> dict[str, Any]:
    if isinstance(block, ToolReferenceBlock):
        return {"type": "tool_reference", "tool_name": block.tool_name}
    if isinstance(block, ImageBlock):
        source = {"type": "base64", "media_type": block.media_type, "data": block.data}
        return {"type": "image", "source": source}
    assert isinstance(block, TextBlock)
    return {"type": "text", "text": block.text}


def claude_content(content: Content) -> str | list[dict[str, Any]]:
    """``content`` as Claude Code writes a tool result's: its text, or with a tool reference
    in it, its blocks."""
    if isinstance(content, str) or not any(isinstance(b, ToolReferenceBlock) for b in content):
        return content_text(content)
    return [_block(b) for b in content]


def batch_content(content: Content) -> str | list[dict[str, Any]]:
    """``content`` as PostToolBatch's ``tool_response``: a text as it is, blocks (a tool
    reference, the Agent tool's result) as blocks (2.1.332: `subagent`,
    `subagent-foreground`, `task-tools-search`)."""
    if isinstance(content, str):
        return content
    return [_block(b) for b in content]
