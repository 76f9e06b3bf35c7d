"""Token usage from a real loopback server: whole replies and streams, every backend.

A streamed request asks for the usage (``stream_options.include_usage``); it comes in a
last chunk with no choices. Cached prompt tokens are counted apart from the input, and a
server's hostile counts are left out, never a failure.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh.messages import AssistantMessage, Usage, UserMessage
from dsh.models import ModelBackend, ModelRequest, OpenAICompatibleModel
from tests.models.chat_server import Reply, chunk, completion, serving

BACKENDS: list[ModelBackend] = ["asyncio", "httpx", "openai-sdk"]
REQUEST = ModelRequest((UserMessage("hi"),))
USAGE = {
    "prompt_tokens": 120,
    "completion_tokens": 9,
    "total_tokens": 129,
    "prompt_tokens_details": {"cached_tokens": 100},
}


def _usage_chunk(usage: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "test-model",
        "choices": [],
        "usage": usage,
    }


async def _ask(reply: Reply, *, stream: bool, backend: ModelBackend) -> tuple[Any, Any]:
    with serving(reply) as server:
        async with OpenAICompatibleModel(
            "test-model", server.url, api_key="k", stream=stream, backend=backend
        ) as model:
            message = await model.complete(REQUEST)
        return message, server.seen[0].body


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_stream_asks_for_usage_and_reads_it_from_the_last_chunk(
    backend: ModelBackend,
) -> None:
    chunks = [chunk({"content": "Hel"}), chunk({"content": "lo"}, finish="stop")]
    reply = Reply(chunks=[*chunks, _usage_chunk(USAGE)])
    message, body = await _ask(reply, stream=True, backend=backend)
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert message == AssistantMessage(
        "Hello", usage=Usage(input_tokens=20, output_tokens=9, cache_read_input_tokens=100)
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_whole_reply_gives_its_usage(backend: ModelBackend) -> None:
    body = completion("Hello.") | {"usage": {"prompt_tokens": 50, "completion_tokens": 4}}
    message, sent = await _ask(Reply(body=body), stream=False, backend=backend)
    assert "stream_options" not in sent
    assert message.usage == Usage(input_tokens=50, output_tokens=4)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_deepseek_cache_hits_count_as_cache_reads(backend: ModelBackend) -> None:
    usage = {"prompt_tokens": 80, "completion_tokens": 2, "prompt_cache_hit_tokens": 64}
    body = completion("ok") | {"usage": usage}
    message, _ = await _ask(Reply(body=body), stream=False, backend=backend)
    assert message.usage == Usage(input_tokens=16, output_tokens=2, cache_read_input_tokens=64)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_reply_without_usage_reports_none(backend: ModelBackend) -> None:
    plain, _ = await _ask(Reply(body=completion("ok")), stream=False, backend=backend)
    assert plain.usage is None
    streamed, _ = await _ask(
        Reply(chunks=[chunk({"content": "ok"}), _usage_chunk(None)]), stream=True, backend=backend
    )
    assert streamed == AssistantMessage("ok")


HOSTILE: list[Any] = [
    {"prompt_tokens": -5, "completion_tokens": 3},
    {"prompt_tokens": 10**30, "completion_tokens": 3},
    {"prompt_tokens": "12", "completion_tokens": 3},
    {"prompt_tokens": 12.5, "completion_tokens": 3},
    {"prompt_tokens": True, "completion_tokens": 3},
    {"prompt_tokens": None, "completion_tokens": 3, "prompt_tokens_details": "x"},
]


@pytest.mark.parametrize("usage", HOSTILE, ids=[str(i) for i in range(len(HOSTILE))])
async def test_hostile_counts_are_left_out_never_a_failure(usage: Any) -> None:
    chunks = [chunk({"content": "ok"}), _usage_chunk(usage)]
    message, _ = await _ask(Reply(chunks=chunks), stream=True, backend="asyncio")
    assert message == AssistantMessage("ok", usage=Usage(output_tokens=3))


@pytest.mark.parametrize("usage", ["lots", [1, 2], 7])
async def test_a_usage_that_is_not_an_object_is_ignored(usage: Any) -> None:
    body = completion("ok") | {"usage": usage}
    message, _ = await _ask(Reply(body=body), stream=False, backend="asyncio")
    assert message == AssistantMessage("ok")


async def test_cached_tokens_beyond_the_prompt_are_capped_at_it() -> None:
    usage = {"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 50}}
    message, _ = await _ask(
        Reply(body=completion("ok") | {"usage": usage}), stream=False, backend="asyncio"
    )
    assert message.usage == Usage(input_tokens=0, cache_read_input_tokens=10)
