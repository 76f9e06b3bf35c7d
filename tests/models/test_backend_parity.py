"""dsh's own transports and the openai SDK's, on the same mock: the same requests, the same results.

Each scenario is played once over the SDK and once over each of dsh's transports (its own
HTTP/1.1 client, and the one over httpx2), on a fresh loopback server with the
same canned replies; what the server saw and what the model gave (a reply, the text
deltas, the retry notices, or the error) must be equal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from dsh.base import freeze_json
from dsh.messages import (
    AssistantMessage,
    ContextMessage,
    ImageBlock,
    TextBlock,
    ToolResultMessage,
    ToolUse,
    UserMessage,
)
from dsh.models import ModelBackend, ModelError, ModelRequest, OpenAICompatibleModel, RetryNotice
from tests.models.chat_server import Reply, chunk, completion, error_body, serving
from tests.models.test_openai import BASH

CALL = {
    "id": "call_a",
    "type": "function",
    "function": {"name": "Bash", "arguments": '{"command": "ls"}'},
}
HISTORY = ModelRequest(
    (
        UserMessage((TextBlock("what is this?"), ImageBlock("image/png", "iVBOR"))),
        ContextMessage("hook:claude:SessionStart", "CTX"),
        AssistantMessage("Checking.", (ToolUse("call_1", "Bash", freeze_json({"c": "ü"})),)),
        ToolResultMessage("call_1", (TextBlock("/tmp"), ImageBlock("image/jpeg", "/9j/"))),
        UserMessage("and now?"),
    ),
    (BASH,),
    system="SYS",
)
SIMPLE = ModelRequest((UserMessage("hi"),), (), system="Be brief.")


@dataclass
class Scenario:
    name: str
    replies: Callable[[], list[Reply]]
    request: ModelRequest = SIMPLE
    stream: bool = True
    options: dict[str, Any] | None = None


def _tool_deltas() -> list[Reply]:
    return [
        Reply(
            chunks=[
                chunk({"role": "assistant", "content": ""}),
                chunk({"content": "Let me "}),
                chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "Bash"}}]}),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"command"'}}]}),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": ': "ls"}'}}]}),
                chunk({"content": "look."}, finish="tool_calls"),
            ]
        )
    ]


SCENARIOS = [
    Scenario("whole text", lambda: [Reply(body=completion("Hello."))], stream=False),
    Scenario("whole tool calls", lambda: [Reply(body=completion(None, [CALL]))], stream=False),
    Scenario("streamed text and tool calls", _tool_deltas),
    Scenario("the adapted history", lambda: [Reply(chunks=[chunk({"content": "ok"})])], HISTORY),
    Scenario(
        "max_tokens", lambda: [Reply(body=completion("k"))], stream=False, options={"max_tokens": 7}
    ),
    Scenario(
        "429 then ok, Retry-After",
        lambda: [
            Reply(429, error_body("slow down"), headers={"Retry-After": "0.01"}),
            Reply(chunks=[chunk({"content": "finally"})]),
        ],
    ),
    Scenario(
        "retry-after-ms on a 503",
        lambda: [
            Reply(503, error_body("busy"), headers={"retry-after-ms": "5"}),
            Reply(body=completion("ok")),
        ],
        stream=False,
    ),
    Scenario(
        "500 exhausts", lambda: [Reply(500, error_body("BOOM"))] * 3, options={"max_retries": 2}
    ),
    Scenario("400", lambda: [Reply(400, error_body("context too long"))]),
    Scenario(
        "401 without a key", lambda: [Reply(401, error_body("bad key"))], options={"api_key": None}
    ),
    Scenario("401 with a string error", lambda: [Reply(401, {"error": "unauthorized"})]),
    Scenario("403", lambda: [Reply(403, {"detail": "no access"})], stream=False),
    Scenario("404", lambda: [Reply(404, error_body("model not found"))]),
    Scenario("an error body that is a list", lambda: [Reply(422, [1, 2])]),
    Scenario(
        "cut before any text",
        lambda: [
            Reply(chunks=[chunk({"role": "assistant"})], cut=True),
            Reply(chunks=[chunk({"content": "whole"})]),
        ],
    ),
    Scenario("cut after text", lambda: [Reply(chunks=[chunk({"content": "half"})], cut=True)]),
    Scenario("a malformed chunk", lambda: [Reply(chunks=["not a chunk"])]),
    Scenario("a chunk with a number for text", lambda: [Reply(chunks=[chunk({"content": 3})])]),
    Scenario(
        "a malformed completion", lambda: [Reply(body={"choices": [{"index": 0}]})], stream=False
    ),
    Scenario("a completion without choices", lambda: [Reply(body={})], stream=False),
    Scenario("an error event", lambda: [Reply(chunks=[{"error": {"message": "MIDSTREAM"}}])]),
    Scenario("an error event without a message", lambda: [Reply(chunks=[{"error": True}])]),
    Scenario("an event that is not JSON", lambda: [Reply(stream=b"data: {nope\n\n")]),
    Scenario(
        "comments and a named event",
        lambda: [Reply(stream=b': ping\n\nevent: x\ndata: {"choices": []}\n\ndata: [DONE]\n\n')],
    ),
    Scenario(
        "a tool call without a name",
        lambda: [Reply(chunks=[chunk({"tool_calls": [{"index": 0, "id": "c"}]})])],
    ),
]


Seen = tuple[str, Any, dict[str, str | None], dict[str, str | None]]


async def play(scenario: Scenario, backend: ModelBackend) -> tuple[object, list[Seen]]:
    with serving(*scenario.replies()) as server:
        options: dict[str, Any] = {"api_key": "test-key", "backoff_base": 0.001}
        options |= scenario.options or {}
        deltas: list[str] = []
        notices: list[RetryNotice] = []
        outcome: object
        async with OpenAICompatibleModel(
            "test-model",
            server.url,
            stream=scenario.stream,
            backend=backend,
            on_retry=notices.append,
            **options,
        ) as model:
            try:
                outcome = await model.complete(scenario.request, on_text=deltas.append)
            except ModelError as e:
                outcome = (e.message.replace(server.url, "URL"), e.status, e.retryable)
        jitter_free = [(n.attempt, n.error.message.replace(server.url, "URL")) for n in notices]
        seen = [
            (
                s.path,
                s.body,
                {k: s.headers.get(k) for k in ("authorization", "content-type", "accept")},
                {k: s.headers.get(k) for k in ("openai-organization", "openai-project")},
            )
            for s in server.seen
        ]
    return (outcome, deltas, jitter_free), seen


@pytest.mark.parametrize("backend", ["asyncio", "httpx"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
async def test_each_backend_sends_and_gives_what_the_sdk_does(
    scenario: Scenario, backend: ModelBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("DSH_API_KEY", "OPENAI_API_KEY", "DSH_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-1")
    sdk = await play(scenario, "openai-sdk")
    ours = await play(scenario, backend)
    assert ours == sdk
    (_, seen) = ours
    assert seen, "the server was asked"
    assert seen[0][3] == {"openai-organization": "org-1", "openai-project": "proj-1"}
