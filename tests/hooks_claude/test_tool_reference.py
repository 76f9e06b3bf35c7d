"""A ToolSearch result's ``tool_reference`` blocks as Claude Code writes them: the block list
in the transcript's ``tool_result`` (PostToolBatch's ``tool_response``: the conformance case
``task-tools-search``); a text result stays its text."""

from __future__ import annotations

from pathlib import Path

from dsh.hooks.claude.transcript._projection import transcript_lines
from dsh.messages import ImageBlock, TextBlock, ToolReferenceBlock
from dsh.session import ToolResultEvent


def _result_content(event: ToolResultEvent, tmp_path: Path) -> object:
    (line,) = transcript_lines([event], session_id="s", cwd=tmp_path, permission_mode="default")
    (block,) = line["message"]["content"]
    assert block["type"] == "tool_result"
    return block["content"]


def test_references_are_written_as_their_blocks(tmp_path: Path) -> None:
    content = (ToolReferenceBlock("TaskCreate"), TextBlock("and"), ImageBlock("image/png", "AA"))
    event = ToolResultEvent(token="k", tool_use_id="t", content=content)
    assert _result_content(event, tmp_path) == [
        {"type": "tool_reference", "tool_name": "TaskCreate"},
        {"type": "text", "text": "and"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}},
    ]


def test_other_content_stays_its_text(tmp_path: Path) -> None:
    event = ToolResultEvent(token="k", tool_use_id="t", content=(TextBlock("a"), TextBlock("b")))
    assert _result_content(event, tmp_path) == "a\nb"
