"""The OpenAI-compatible model against a real chat-completions server on loopback.

Every test runs over each transport: dsh's own (the default), dsh's over httpx2, the openai SDK's.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

from dsh.base import freeze_json
from dsh.messages import (
    AssistantMessage,
    ContextMessage,
    ImageBlock,
    SteeringMessage,
    SummaryMessage,
    TextBlock,
    ToolResultMessage,
    ToolUse,
    UserMessage,
)
from dsh.models import (
    ModelError,
    ModelRequest,
    OpenAICompatibleModel,
    RetryNotice,
    ToolSpec,
)
from tests.models.chat_server import Reply, chunk, completion, error_body, serving

BASH = ToolSpec(
    "Bash",
    "Run a command",
    {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)


@pytest.fixture(autouse=True, params=["asyncio", "httpx", "openai-sdk"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """No ambient credentials, and the backend under test picked as a user would."""
    for name in ("DSH_API_KEY", "OPENAI_API_KEY", "DSH_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name in ("OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DSH_MODEL_BACKEND", request.param)
    return str(request.param)


def simple(text: str = "hi") -> ModelRequest:
    return ModelRequest((UserMessage(text),), (), system="Be brief.")


def model_for(url: str | None, **options: Any) -> OpenAICompatibleModel:
    options.setdefault("api_key", "test-key")
    options.setdefault("backoff_base", 0.001)
    options.setdefault("backoff_max", 0.01)
    return OpenAICompatibleModel("test-model", url, **options)


async def test_plain_text_reply() -> None:
    with serving(Reply(body=completion("Hello there."))) as server:
        async with model_for(server.url, stream=False) as model:
            deltas: list[str] = []
            reply = await model.complete(simple(), on_text=deltas.append)
    assert reply == AssistantMessage("Hello there.")
    assert deltas == ["Hello there."]
    (seen,) = server.seen
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer test-key"
    assert seen.body["model"] == "test-model"
    assert seen.body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]
    assert "tools" not in seen.body
    assert not seen.body.get("stream")


async def test_tool_calls_are_offered_and_returned() -> None:
    calls = [
        {
            "id": "call_a",
            "type": "function",
            "function": {"name": "Bash", "arguments": '{"command": "ls"}'},
        },
        {"id": "call_b", "type": "function", "function": {"name": "Bash", "arguments": "not json"}},
        {"id": "call_c", "type": "function", "function": {"name": "Bash", "arguments": ""}},
    ]
    with serving(Reply(body=completion(None, calls))) as server:
        async with model_for(server.url, stream=False) as model:
            reply = await model.complete(ModelRequest((UserMessage("list"),), (BASH,)))
    assert reply.text == ""
    assert reply.tool_calls == (
        ToolUse("call_a", "Bash", freeze_json({"command": "ls"})),
        ToolUse("call_b", "Bash", "not json"),  # kept raw: the registry reports INVALID_ARGS
        ToolUse("call_c", "Bash", freeze_json({})),
    )
    assert server.seen[0].body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "Bash",
                "description": "Run a command",
                "parameters": {
                    "type": "object",
                    "properties": {"command": {"type": "string"}},
                    "required": ["command"],
                },
            },
        }
    ]


async def test_streaming_assembles_text_and_tool_call_deltas() -> None:
    chunks = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Let me "}),
        chunk({"content": "look."}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "Bash", "arguments": ""},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"comm'}}]}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "Read", "arguments": '{"file_path"'},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'and": "ls"}'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": ': "a.txt"}'}}]}),
        chunk({}, finish="tool_calls"),
    ]
    with serving(Reply(chunks=chunks)) as server:
        async with model_for(server.url) as model:
            deltas: list[str] = []
            reply = await model.complete(
                ModelRequest((UserMessage("go"),), (BASH,)), on_text=deltas.append
            )
    assert deltas == ["Let me ", "look."]
    assert reply == AssistantMessage(
        "Let me look.",
        (
            ToolUse("call_1", "Bash", freeze_json({"command": "ls"})),
            ToolUse("call_2", "Read", freeze_json({"file_path": "a.txt"})),
        ),
    )
    assert server.seen[0].body["stream"] is True


def reminder(text: str) -> str:
    return f"<system-reminder>\n{text}\n</system-reminder>"


async def test_messages_are_adapted_to_chat_completions() -> None:
    call = ToolUse("call_1", "Bash", freeze_json({"command": "ls"}))
    other = ToolUse("call_2", "Bash", freeze_json({"command": "pwd"}))
    history = (
        UserMessage((TextBlock("what is this?"), ImageBlock("image/png", "iVBOR"))),
        ContextMessage("hook:claude:SessionStart", "SessionStart hook additional context: CTX"),
        AssistantMessage("Checking.", (call, other)),
        ToolResultMessage("call_1", "Exit code 2\nls: nope", is_error=True),
        # out of place: must not split the results of one assistant message
        ContextMessage("plugin:p", "early context"),
        ToolResultMessage("call_2", (TextBlock("/tmp"), ImageBlock("image/jpeg", "/9j/"))),
        ContextMessage("hook:claude:PostToolUse", "post context"),
        SteeringMessage("Stop hook feedback:\nkeep going"),
        AssistantMessage("Done."),
        SummaryMessage("we listed files"),
    )
    with serving(Reply(chunks=[chunk({"content": "ok"})])) as server:
        async with model_for(server.url) as model:
            await model.complete(ModelRequest(history, (BASH,), system="SYS"))
    assert server.seen[0].body["messages"] == [
        {"role": "system", "content": "SYS"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}},
                # the context that follows merged into the same user turn
                {"type": "text", "text": reminder("SessionStart hook additional context: CTX")},
            ],
        },
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "Bash", "arguments": '{"command": "ls"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "Bash", "arguments": '{"command": "pwd"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Exit code 2\nls: nope"},
        {"role": "tool", "tool_call_id": "call_2", "content": "/tmp"},
        {  # the results' images, then every user turn up to the next reply: one turn
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/"}},
                {"type": "text", "text": reminder("early context")},
                {"type": "text", "text": reminder("post context")},
                {"type": "text", "text": "Stop hook feedback:\nkeep going"},
            ],
        },
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Summary of the conversation so far:\nwe listed files"},
    ]


async def test_a_429_is_retried_honoring_retry_after_capped() -> None:
    notices: list[RetryNotice] = []
    with serving(
        Reply(429, error_body("slow down"), headers={"Retry-After": "30"}),
        Reply(chunks=[chunk({"content": "finally"})]),
    ) as server:
        async with model_for(server.url, retry_after_max=0.02, on_retry=notices.append) as model:
            reply = await model.complete(simple())
    assert reply.text == "finally"
    assert len(server.seen) == 2
    (notice,) = notices
    assert (notice.attempt, notice.delay) == (1, 0.02)
    assert notice.error.status == 429
    assert "slow down" in notice.error.message


async def test_without_retry_after_the_backoff_doubles_with_jitter() -> None:
    notices: list[RetryNotice] = []
    with serving(
        Reply(503, error_body("busy")),
        Reply(502, error_body("busy")),
        Reply(body=completion("ok")),
    ) as server:
        async with model_for(
            server.url, stream=False, backoff_base=0.002, backoff_max=1.0, on_retry=notices.append
        ) as model:
            assert (await model.complete(simple())).text == "ok"
    assert [n.error.status for n in notices] == [503, 502]
    assert 0.001 <= notices[0].delay <= 0.002
    assert 0.002 <= notices[1].delay <= 0.004


async def test_a_500_that_persists_exhausts_the_retries() -> None:
    replies = [Reply(500, error_body("CASE-BOOM")) for _ in range(3)]
    with serving(*replies) as server:
        async with model_for(server.url, max_retries=2) as model:
            with pytest.raises(ModelError) as caught:
                await model.complete(simple())
    error = caught.value
    assert (error.status, error.retryable) == (500, True)
    assert "HTTP 500: CASE-BOOM" in error.message
    assert "gave up after 3 attempts" in error.message
    assert "test-model" in error.message
    assert len(server.seen) == 3


async def test_a_400_is_not_retried_and_carries_the_server_message() -> None:
    with serving(Reply(400, error_body("context too long"))) as server:
        async with model_for(server.url) as model:
            with pytest.raises(ModelError) as caught:
                await model.complete(simple())
    assert (caught.value.status, caught.value.retryable) == (400, False)
    assert "HTTP 400: context too long" in str(caught.value)
    assert len(server.seen) == 1


async def test_401_without_a_key_names_the_env_vars() -> None:
    with serving(Reply(401, error_body("Incorrect API key provided"))) as server:
        async with model_for(server.url, api_key=None) as model:
            with pytest.raises(ModelError) as caught:
                await model.complete(simple())
    message = caught.value.message
    assert caught.value.status == 401
    assert "Incorrect API key provided" in message
    assert "API key is missing or invalid: no key was given" in message
    assert "DSH_API_KEY or OPENAI_API_KEY" in message
    assert len(server.seen) == 1


async def test_401_with_a_key_from_the_environment_names_that_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    with serving(Reply(401, {"error": "unauthorized"})) as server:
        monkeypatch.setenv("DSH_BASE_URL", server.url)
        async with OpenAICompatibleModel("test-model") as model:
            assert model.base_url == server.url
            with pytest.raises(ModelError) as caught:
                await model.complete(simple())
    assert server.seen[0].headers["authorization"] == "Bearer env-key"
    assert "HTTP 401: unauthorized" in caught.value.message
    assert "rejected the key from $OPENAI_API_KEY" in caught.value.message


async def test_401_names_the_variable_a_passed_key_was_read_from(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    with serving(Reply(401, error_body("no")), Reply(401, error_body("no"))) as server:
        async with model_for(server.url, api_key="env-key") as model:  # as `dsh run` does
            with pytest.raises(ModelError, match=r"rejected the key from \$OPENAI_API_KEY"):
                await model.complete(simple())
        async with model_for(server.url, api_key="other-key") as model:
            with pytest.raises(ModelError, match="rejected the key that was passed"):
                await model.complete(simple())


async def test_dsh_api_key_wins_over_openai_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "openai-key")
    monkeypatch.setenv("DSH_API_KEY", "dsh-key")
    with serving(Reply(body=completion("ok"))) as server:
        async with model_for(server.url, api_key=None, stream=False) as model:
            await model.complete(simple())
    assert server.seen[0].headers["authorization"] == "Bearer dsh-key"


async def test_404_hints_at_the_model_name_and_base_url() -> None:
    with serving(Reply(404, error_body("model not found"))) as server:
        async with model_for(server.url) as model:
            with pytest.raises(
                ModelError, match=r"HTTP 404: model not found\. Check the model name"
            ):
                await model.complete(simple())


async def test_404_names_where_the_base_url_came_from(monkeypatch: pytest.MonkeyPatch) -> None:
    with serving(Reply(404, error_body("no such route")), Reply(404, {})) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        async with model_for(None) as model:
            with pytest.raises(ModelError, match=r"base URL \(from \$OPENAI_BASE_URL; most"):
                await model.complete(simple())
        monkeypatch.delenv("OPENAI_BASE_URL")
        async with model_for(server.url) as model:
            with pytest.raises(ModelError, match=r"base URL \(as passed; most"):
                await model.complete(simple())


async def test_an_unreachable_server_is_a_retryable_connection_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    notices: list[RetryNotice] = []
    async with model_for(
        f"http://127.0.0.1:{port}/v1", max_retries=1, on_retry=notices.append
    ) as model:
        with pytest.raises(ModelError) as caught:
            await model.complete(simple())
    assert (caught.value.status, caught.value.retryable) == (None, True)
    assert "cannot get a reply from the server" in caught.value.message
    assert f"127.0.0.1:{port}" in caught.value.message
    assert len(notices) == 1


async def test_a_stream_cut_before_any_text_is_retried() -> None:
    with serving(
        Reply(chunks=[chunk({"role": "assistant"})], cut=True),
        Reply(chunks=[chunk({"content": "whole"})]),
    ) as server:
        async with model_for(server.url) as model:
            assert (await model.complete(simple())).text == "whole"
    assert len(server.seen) == 2


async def test_a_stream_cut_after_text_was_shown_is_not_retried() -> None:
    with serving(
        Reply(chunks=[chunk({"content": "half a th"})], cut=True),
        Reply(chunks=[chunk({"content": "never asked for"})]),
    ) as server:
        async with model_for(server.url) as model:
            deltas: list[str] = []
            with pytest.raises(ModelError, match="broke off after streaming began") as caught:
                await model.complete(simple(), on_text=deltas.append)
    assert deltas == ["half a th"]
    assert caught.value.retryable is True
    assert len(server.seen) == 1


def test_bad_construction_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a model name"):
        OpenAICompatibleModel("")
    with pytest.raises(ValueError, match="max_retries"):
        OpenAICompatibleModel("m", max_retries=-1)


@pytest.mark.parametrize("stream", [True, False])
async def test_a_malformed_reply_is_a_model_error(stream: bool) -> None:
    reply = Reply(chunks=["not a chunk"]) if stream else Reply(body={"choices": [{"index": 0}]})
    with serving(reply) as server:
        async with model_for(server.url, stream=stream) as model:
            with pytest.raises(ModelError, match="malformed reply from the server") as caught:
                await model.complete(simple())
    assert (caught.value.status, caught.value.retryable) == (None, False)


async def test_an_error_event_in_the_stream_carries_its_message() -> None:
    with serving(Reply(chunks=[{"error": {"message": "CASE-MIDSTREAM"}}])) as server:
        async with model_for(server.url) as model:
            with pytest.raises(ModelError, match="CASE-MIDSTREAM"):
                await model.complete(simple())
