"""``count_tokens``: a request's input tokens as the Messages API counts them, against the
loopback mock (``benchmarks/_anthropic_mock.py`` answers ``/v1/messages/count_tokens``)."""

from __future__ import annotations

import asyncio

import pytest
from _anthropic_mock import AnthropicMock

from dsh.messages import UserMessage
from dsh.models import ModelError, ModelRequest
from dsh.models._anthropic import anthropic_model
from dsh.models._provider import StreamingModel
from dsh.models._responses import ResponsesFormat

REQUEST = ModelRequest(messages=(UserMessage("hello"),), system="be brief")


def test_the_api_counts_the_request() -> None:
    with AnthropicMock() as mock:
        model = anthropic_model("sonnet", base_url=mock.url, api_key="k")
        assert asyncio.run(model.count_tokens(REQUEST)) == 10
        assert mock.unknown == []


def test_a_wire_without_the_call_counts_nothing() -> None:
    wire = ResponsesFormat("gpt-x", api_key="k")
    model = StreamingModel("gpt-x", wire, "http://127.0.0.1:9")
    assert asyncio.run(model.count_tokens(REQUEST)) is None


def test_a_refused_count_is_a_model_error_in_claude_codes_words() -> None:
    model = anthropic_model("sonnet", base_url="http://127.0.0.1:9", api_key="k")
    with pytest.raises(ModelError, match="API Error"):
        asyncio.run(model.count_tokens(REQUEST))
