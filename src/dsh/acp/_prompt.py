"""An ACP prompt's content blocks as dsh content (what ``initialize`` says dsh accepts).

Text and images go to the model as they are; a resource link becomes a line
naming it; an embedded text resource becomes its text, fenced with its URI.
Audio is not accepted (``promptCapabilities.audio`` is false), and neither is
a binary embedded resource: the prompt is refused with an error naming the
block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from acp import RequestError
from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from dsh.messages import Content, ImageBlock, TextBlock

__all__ = ["AcpBlock", "prompt_content"]

AcpBlock: TypeAlias = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)

MAX_PROMPT_CHARS = 2_000_000
"""A prompt's text beyond this is refused: it could not reach a model anyway."""


def _refuse(index: int, problem: str) -> RequestError:
    return RequestError.invalid_params({"prompt": f"block {index}: {problem}"})


def _block(index: int, block: AcpBlock) -> TextBlock | ImageBlock:
    match block:
        case TextContentBlock(text=text):
            return TextBlock(text)
        case ImageContentBlock(data=data, mime_type=mime):
            return ImageBlock(media_type=mime, data=data)
        case ResourceContentBlock(name=name, uri=uri):
            return TextBlock(f"[{name}]({uri})")
        case EmbeddedResourceContentBlock(resource=TextResourceContents(uri=uri, text=text)):
            return TextBlock(f'<resource uri="{uri}">\n{text}\n</resource>')
        case EmbeddedResourceContentBlock():
            raise _refuse(index, "a binary embedded resource is not accepted (text only)")
        case AudioContentBlock():
            raise _refuse(index, "audio is not accepted (promptCapabilities.audio is false)")
    raise _refuse(index, f"unknown content block {type(block).__name__}")


def prompt_content(blocks: Sequence[AcpBlock]) -> Content:
    """The dsh content of ``blocks``: a string when it is all text, else the blocks."""
    if not blocks:
        raise RequestError.invalid_params({"prompt": "the prompt has no content block"})
    converted = tuple(_block(i, b) for i, b in enumerate(blocks))
    size = sum(len(b.text) if isinstance(b, TextBlock) else len(b.data) for b in converted)
    if size > MAX_PROMPT_CHARS:
        raise RequestError.invalid_params(
            {"prompt": f"the prompt is {size} characters; at most {MAX_PROMPT_CHARS} are accepted"}
        )
    if all(isinstance(b, TextBlock) for b in converted):
        return "\n\n".join(b.text for b in converted if isinstance(b, TextBlock))
    return converted
