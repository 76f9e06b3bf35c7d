"""Retries as Claude Code 2.1.332 makes them: which statuses, how many, how long to wait."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Mapping
from typing import Any

import pytest
from _anthropic_mock import sse_body
from _side_cases import Reply

from dsh.messages import ContextMessage, UserMessage
from dsh.models import ModelError, ModelRequest, RetryNotice, ToolSpec
from dsh.models._anthropic import TOOL_SEARCH_BETA, AnthropicFormat, anthropic_model
from dsh.models._provider import Backoff, StreamingModel
from dsh.models._wire import StatusError
from tests.shared_paths import ROOT
from tests.wire.streams import REQUEST, ByteTransport


class Failing(ByteTransport):
    """Fails with ``status`` (and ``headers``) ``times`` times, then streams a reply; keeps
    each request's body and the headers it went with (``None``: the format's usual ones)."""

    def __init__(
        self, status: int, headers: Mapping[str, str], times: int, message: str = ""
    ) -> None:
        super().__init__([sse_body(Reply(text="ok"), 0)])
        self.status, self.headers, self.times, self.calls = status, headers, times, 0
        self.message = message or f"M{status}"
        self.sent: list[tuple[Mapping[str, Any], dict[str, str] | None]] = []
        self.with_headers: dict[str, str] | None = None

    async def stream(self, body: Mapping[str, Any]) -> AsyncGenerator[object, None]:
        self.calls += 1
        self.sent.append((body, self.with_headers))
        self.with_headers = None
        if self.calls <= self.times:
            error = {"type": "error", "message": self.message}
            raise StatusError(self.status, error, None, self.headers)
        async for value in super().stream(body):
            yield value


def model(transport: Failing, retries: int = 3) -> tuple[StreamingModel, list[RetryNotice]]:
    notices: list[RetryNotice] = []
    wire = AnthropicFormat("claude-x", api_key="k", auth_token=None)
    made = StreamingModel(
        "claude-x",
        wire,
        "http://127.0.0.1:9",
        backoff=Backoff(retries=retries, base=0.001, most=0.002),
        on_retry=notices.append,
    )
    made._transport = transport

    def with_headers(headers: dict[str, str]) -> Failing:
        transport.with_headers = headers
        return transport

    made._transport_with = with_headers  # type: ignore[method-assign]
    return made, notices


@pytest.mark.parametrize("status", [408, 409, 429, 500, 529])
def test_retryable_statuses_are_retried_then_answer(status: int) -> None:
    transport = Failing(status, {}, times=2)
    made, notices = model(transport)
    reply = asyncio.run(made.complete(REQUEST))
    assert reply.text == "ok"
    assert transport.calls == 3
    assert [n.attempt for n in notices] == [1, 2]


@pytest.mark.parametrize(
    ("status", "said", "calls"),
    [
        (400, "API Error: 400 M400", 6),
        (403, "API Error: 403 M403", 1),
        (404, "API Error: 404 M404", 1),
    ],
)
def test_other_statuses_fail_in_claude_codes_words(status: int, said: str, calls: int) -> None:
    """A 400 is sent five more times at once (2.1.332's degraded requests), no retry notice."""
    transport = Failing(status, {}, times=10)
    made, notices = model(transport)
    with pytest.raises(ModelError) as caught:
        asyncio.run(made.complete(REQUEST))
    assert caught.value.message == said
    assert caught.value.status == status
    assert (transport.calls, notices) == (calls, [])


def test_a_401_is_retried_in_claude_codes_words() -> None:
    transport = Failing(401, {}, times=10)
    made, notices = model(transport, retries=2)
    with pytest.raises(ModelError) as caught:
        asyncio.run(made.complete(REQUEST))
    assert caught.value.message == "Failed to authenticate. API Error: 401 M401"
    assert (transport.calls, len(notices)) == (3, 2)


RECORDED = json.loads((ROOT / "tests" / "fixtures" / "claude_api_retries.json").read_text())


@pytest.mark.parametrize(
    "case", RECORDED["cases"], ids=lambda c: f"{c['status']}-{c['env']}-{c['headers']}"
)
def test_as_many_requests_as_the_real_one_made(
    case: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``benchmarks/record_claude_retries.py``: 2.1.332 against a server failing every request."""
    monkeypatch.delenv("CLAUDE_CODE_MAX_RETRIES", raising=False)
    for name, value in case["env"].items():
        monkeypatch.setenv(name, value)
    retries = anthropic_model("sonnet").backoff.retries
    transport = Failing(case["status"], {}, times=100)
    made, _ = model(transport, retries=retries)
    with pytest.raises(ModelError):
        asyncio.run(made.complete(REQUEST))
    assert transport.calls == len(case["requests"])


def test_a_400_is_resent_degraded_as_the_real_one_degrades_it() -> None:
    """2.1.332's resends drop a beta each (8, 7, 7, 7, 6, 6 in the recording): those dsh's
    requests have (``advanced-tool-use``, with ``defer_loading``) go where 2.1.332's do."""
    (case,) = [c for c in RECORDED["cases"] if c["status"] == 400 and not c["env"]]
    transport = Failing(400, {}, times=10)
    deferred = ToolSpec("Later", "a deferred tool", {"type": "object"}, deferred=True)
    request = ModelRequest(REQUEST.messages, (*REQUEST.tools, deferred), REQUEST.system)
    with pytest.raises(ModelError):
        asyncio.run(model(transport)[0].complete(request))
    searched = [TOOL_SEARCH_BETA in r["beta"] for r in case["requests"]]
    assert searched == [True, True, True, False, False, False]
    assert [h is None or "anthropic-beta" in h for _, h in transport.sent] == searched
    assert [b["tools"][1].get("defer_loading", False) for b, _ in transport.sent] == searched
    for _, headers in transport.sent[3:]:
        assert headers is not None
        assert headers["x-api-key"] == "k"


REFUSAL = (
    'messages.1.role: Unexpected role "system". The input message role must be one of "user"'
    ' or "assistant"'
)
SYSTEM_TURNS = json.loads((ROOT / "tests" / "fixtures" / "claude_system_turns.json").read_text())


@pytest.mark.parametrize("always", [False, True])
def test_a_refused_system_turn_is_resent_once_as_user_text(always: bool) -> None:
    """``benchmarks/record_claude_system_turns.py``: 2.1.332's ``[mid-conv-system]``
    fallback: one resend, its system turns as ``<system-reminder>`` user text; refused
    again, the failure stands."""
    case = SYSTEM_TURNS["refused-always" if always else "refused-with-system-turns"]
    request = ModelRequest(
        (UserMessage("run it"), ContextMessage("hook", "CONTEXT")), REQUEST.tools, REQUEST.system
    )
    transport = Failing(400, {}, times=10 if always else 1, message=REFUSAL)
    made, notices = model(transport)
    if always:
        with pytest.raises(ModelError, match="Unexpected role"):
            asyncio.run(made.complete(request))
    else:
        assert asyncio.run(made.complete(request)).text == "ok"
    roles = [[m["role"] for m in r["messages"]] for r in case["requests"]]
    assert roles == [["user", "system"], ["user"]]
    assert [[m["role"] for m in b["messages"]] for b, _ in transport.sent] == roles
    texts = [b["text"] for b in transport.sent[1][0]["messages"][0]["content"]]
    assert texts == ["run it", "<system-reminder>\nCONTEXT\n</system-reminder>"]
    recorded = case["requests"][1]["messages"][0]["texts"][:-1]
    assert all(
        (t if isinstance(t, str) else t["head"]).startswith("<system-reminder>\n") for t in recorded
    )
    assert notices == []
    # The API takes no system turns: the next request sends none.
    transport.times = 0
    asyncio.run(made.complete(request))
    assert [m["role"] for m in transport.sent[-1][0]["messages"]] == ["user"]


def test_retry_after_is_the_wait_and_x_should_retry_overrides_the_status() -> None:
    transport = Failing(429, {"retry-after": "0.01"}, times=1)
    made, notices = model(transport)
    asyncio.run(made.complete(REQUEST))
    assert [n.delay for n in notices] == [0.01]
    refused = Failing(503, {"x-should-retry": "false"}, times=1)
    with pytest.raises(ModelError, match="API Error: 503 M503"):
        asyncio.run(model(refused)[0].complete(REQUEST))
    assert refused.calls == 1
    forced = Failing(400, {"x-should-retry": "true"}, times=1)
    assert asyncio.run(model(forced)[0].complete(REQUEST)).text == "ok"


def test_the_retries_run_out_after_claude_code_max_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "2")
    assert anthropic_model("sonnet").backoff.retries == 2
    transport = Failing(429, {"retry-after": "0"}, times=5)
    made, _ = model(transport, retries=2)
    with pytest.raises(ModelError, match=r"Request rejected \(429\) · M429"):
        asyncio.run(made.complete(REQUEST))
    assert transport.calls == 3
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "many")
    with pytest.raises(ValueError, match="CLAUDE_CODE_MAX_RETRIES must be a whole number"):
        anthropic_model("sonnet")


def test_the_default_is_ten_retries_doubling_from_half_a_second_to_32() -> None:
    backoff = Backoff()
    assert backoff.retries == 10
    assert 0.5 <= backoff.delay(1) <= 0.625
    assert 32 <= backoff.delay(10) <= 40
