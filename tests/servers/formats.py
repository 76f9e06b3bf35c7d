"""The three wire formats' models aimed at a test server's root URL (no retries by default)."""

from __future__ import annotations

from typing import Any, Literal

from dsh.messages import UserMessage
from dsh.models import ModelRequest, OpenAICompatibleModel
from dsh.models._anthropic import AnthropicFormat
from dsh.models._provider import Backoff, StreamingModel
from dsh.models._responses import ResponsesFormat

Format = Literal["chat", "anthropic", "responses"]
FORMATS: tuple[Format, ...] = ("chat", "anthropic", "responses")
REQUEST = ModelRequest((UserMessage("hi"),), system="Be brief.")


def model_for(fmt: Format, root: str, behaviour: str = "ok", **options: Any) -> StreamingModel:
    """A model of ``fmt`` at ``root`` whose name asks the app for ``behaviour``."""
    retries = options.pop("retries", 0)
    if fmt == "chat":
        return OpenAICompatibleModel(
            behaviour, f"{root}/v1", api_key="k", max_retries=retries, **options
        )
    backoff = Backoff(retries=retries, base=0.01, most=0.01)
    if fmt == "anthropic":
        wire = AnthropicFormat(behaviour, api_key="k", auth_token=None)
        return StreamingModel(behaviour, wire, root, backoff=backoff, **options)
    return StreamingModel(
        behaviour, ResponsesFormat(behaviour, api_key="k"), f"{root}/v1", backoff=backoff, **options
    )
