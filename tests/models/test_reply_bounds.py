"""The bounds on one reply: its size (streamed or whole) and a streamed reply's time."""

from __future__ import annotations

from typing import Any

import pytest

from dsh.messages import UserMessage
from dsh.models import ModelError, ModelRequest, OpenAICompatibleModel
from tests.models.chat_server import Reply, chunk, completion, serving


@pytest.fixture(autouse=True, params=["asyncio", "httpx", "openai-sdk"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    for name in ("DSH_API_KEY", "OPENAI_API_KEY", "DSH_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("DSH_MODEL_MAX_REPLY_CHARS", raising=False)
    monkeypatch.delenv("DSH_MODEL_REPLY_TIMEOUT", raising=False)
    monkeypatch.setenv("DSH_MODEL_BACKEND", request.param)
    return str(request.param)


def _model(url: str, **options: Any) -> OpenAICompatibleModel:
    return OpenAICompatibleModel("m", url, api_key="k", max_retries=0, **options)


_ASK = ModelRequest((UserMessage("hi"),), ())


async def test_a_whole_reply_over_the_bound_is_a_model_error() -> None:
    with serving(Reply(body=completion("x" * 5_000))) as server:
        async with _model(server.url, stream=False, max_reply_chars=4_000) as model:
            with pytest.raises(ModelError, match="the reply is over 4,000 characters"):
                await model.complete(_ASK)


async def test_a_streamed_reply_over_the_bound_is_a_model_error() -> None:
    chunks = [chunk({"content": "y" * 1_000}) for _ in range(10)]
    with serving(Reply(chunks=chunks)) as server:
        async with _model(server.url, max_reply_chars=4_500) as model:
            with pytest.raises(ModelError, match="the reply is over 4,500 characters") as caught:
                await model.complete(_ASK)
    assert not caught.value.retryable


async def test_a_reply_within_the_bounds_is_whole() -> None:
    chunks = [chunk({"content": "z" * 1_000}) for _ in range(4)]
    with serving(Reply(chunks=chunks)) as server:
        async with _model(server.url, max_reply_chars=4_000, reply_timeout=30) as model:
            reply = await model.complete(_ASK)
    assert reply.text == "z" * 4_000


def test_the_bounds_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSH_MODEL_MAX_REPLY_CHARS", "123")
    monkeypatch.setenv("DSH_MODEL_REPLY_TIMEOUT", "2.5")
    model = OpenAICompatibleModel("m", "http://127.0.0.1:9/v1")
    assert (model.max_reply_chars, model.reply_timeout) == (123, 2.5)
    monkeypatch.setenv("DSH_MODEL_REPLY_TIMEOUT", "soon")
    with pytest.raises(ValueError, match=r"\$DSH_MODEL_REPLY_TIMEOUT must be a positive number"):
        OpenAICompatibleModel("m", "http://127.0.0.1:9/v1")
