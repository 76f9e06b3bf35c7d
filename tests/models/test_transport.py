"""What a transport owes the model beyond the wire format: timeouts, closing the response on
cancel, the backend choice, nothing loaded that the default does not need."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from dsh.messages import UserMessage
from dsh.models import ModelBackend, ModelError, ModelRequest, OpenAICompatibleModel
from dsh.models._chat_body import compact_json
from dsh.models._chat_request import chat_body
from dsh.models._openai import BACKEND_ENV_VAR
from tests.models.chat_server import Reply, chunk, completion, serving

ROOT = Path(__file__).resolve().parents[2]
SIMPLE = ModelRequest((UserMessage("hi"),))


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DSH_API_KEY", "OPENAI_API_KEY", "DSH_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv(BACKEND_ENV_VAR, raising=False)


def model_for(url: str, backend: ModelBackend, **options: Any) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(
        "test-model",
        url,
        api_key="test-key",
        backend=backend,
        backoff_base=0.001,
        **options,
    )


every = pytest.mark.parametrize("backend", ["asyncio", "httpx", "openai-sdk"])
ours = pytest.mark.parametrize("backend", ["asyncio", "httpx"])


@every
async def test_a_server_that_never_answers_times_out(backend: ModelBackend) -> None:
    with serving(Reply(stall=True)) as server:
        async with model_for(server.url, backend, timeout=0.3, max_retries=0) as model:
            started = time.monotonic()
            with pytest.raises(ModelError) as caught:
                await model.complete(SIMPLE)
            elapsed = time.monotonic() - started
            assert await asyncio.to_thread(server.disconnected.wait, 5)
    assert "cannot get a reply from the server: Request timed out." in caught.value.message
    assert (caught.value.status, caught.value.retryable) == (None, True)
    assert 0.25 <= elapsed < 5


@every
async def test_a_stream_that_stalls_after_text_times_out_unretried(backend: ModelBackend) -> None:
    with serving(Reply(chunks=[chunk({"content": "so far"})], hold=True)) as server:
        async with model_for(server.url, backend, timeout=0.3) as model:
            with pytest.raises(ModelError) as caught:
                await model.complete(SIMPLE)
    assert "Request timed out." in caught.value.message
    assert "broke off after streaming began; not retried" in caught.value.message
    assert len(server.seen) == 1


@every
async def test_cancelling_a_streamed_call_closes_its_response(backend: ModelBackend) -> None:
    with serving(Reply(chunks=[chunk({"content": "first"})], hold=True)) as server:
        async with model_for(server.url, backend) as model:
            shown = asyncio.Event()
            task = asyncio.create_task(model.complete(SIMPLE, on_text=lambda _: shown.set()))
            await asyncio.wait_for(shown.wait(), 10)
            assert not server.disconnected.is_set()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # Closed by the time the cancellation is through: the wait blocks the loop on
            # purpose, so that no close deferred to a later loop turn (or the pool's) counts.
            assert server.disconnected.wait(5)


@every
async def test_a_failing_text_callback_closes_the_response(backend: ModelBackend) -> None:
    def fail(_: str) -> None:
        raise RuntimeError("CASE-CALLBACK")

    with serving(Reply(chunks=[chunk({"content": "first"})], hold=True)) as server:
        async with model_for(server.url, backend) as model:
            with pytest.raises(RuntimeError, match="CASE-CALLBACK"):
                await model.complete(SIMPLE, on_text=fail)
            assert server.disconnected.wait(5)  # blocking the loop, as above


@every
async def test_a_finished_stream_leaves_its_connection_for_the_next_call(
    backend: ModelBackend,
) -> None:
    replies = [Reply(chunks=[chunk({"content": "one"})]), Reply(chunks=[chunk({"content": "two"})])]
    with serving(*replies, keep_alive=True) as server:
        async with model_for(server.url + "/", backend) as model:
            assert [(await model.complete(SIMPLE)).text for _ in replies] == ["one", "two"]
    first, second = server.seen
    assert first.path == second.path == "/v1/chat/completions"
    assert first.peer == second.peer


@every
async def test_each_backend_is_the_one_that_sends(backend: ModelBackend) -> None:
    with serving(Reply(body=completion("ok"))) as server:
        async with model_for(server.url, backend, stream=False) as model:
            assert model.backend == backend
            await model.complete(SIMPLE)
    agent = server.seen[0].headers["user-agent"]
    assert agent.startswith("AsyncOpenAI/" if backend == "openai-sdk" else "dsh/")


def test_the_backend_comes_from_the_argument_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert OpenAICompatibleModel("m").backend == "asyncio"
    monkeypatch.setenv(BACKEND_ENV_VAR, "openai-sdk")
    assert OpenAICompatibleModel("m").backend == "openai-sdk"
    assert OpenAICompatibleModel("m", backend="httpx").backend == "httpx"
    monkeypatch.setenv(BACKEND_ENV_VAR, "curl")
    with pytest.raises(
        ValueError, match=r"\$DSH_MODEL_BACKEND must be one of asyncio, httpx, openai-sdk"
    ):
        OpenAICompatibleModel("m")
    with pytest.raises(
        ValueError, match="backend must be one of asyncio, httpx, openai-sdk, not 'curl'"
    ):
        OpenAICompatibleModel("m", backend="curl")  # type: ignore[arg-type]


# Where dsh's transport is stricter than the SDK, which gives an empty reply in both cases.


@ours
async def test_a_raw_json_line_in_a_stream_is_shown_not_dropped(backend: ModelBackend) -> None:
    raw = b'data: {"choices": []}\n\n{"error": {"message": "CASE-OVERLOADED"}}\n\n'
    with serving(Reply(stream=raw)) as server:
        async with model_for(server.url, backend) as model:
            with pytest.raises(ModelError) as caught:
                await model.complete(SIMPLE)
    message = caught.value.message
    assert (
        "malformed reply from the server: the event stream: line 3 has an unknown field" in message
    )
    assert "CASE-OVERLOADED" in message
    assert caught.value.retryable is False


@ours
async def test_a_json_body_answering_a_stream_request_is_malformed(backend: ModelBackend) -> None:
    with serving(Reply(body=completion("CASE-WHOLE"))) as server:
        async with model_for(server.url, backend) as model:
            with pytest.raises(ModelError, match="a JSON body, not an event stream") as caught:
                await model.complete(SIMPLE)
    assert "CASE-WHOLE" in caught.value.message


def test_the_default_backend_sends_without_loading_the_sdk_or_httpx2() -> None:
    code = textwrap.dedent(
        """
        import asyncio, sys
        from dsh.models import ModelRequest, OpenAICompatibleModel
        from dsh.messages import UserMessage
        from tests.models.chat_server import Reply, chunk, serving

        async def main():
            with serving(Reply(chunks=[chunk({"content": "ok"})])) as server:
                async with OpenAICompatibleModel("m", server.url) as model:
                    reply = await model.complete(ModelRequest((UserMessage("hi"),)))
            http = ("httpx2", "httpcore2", "anyio", "h11", "importlib.metadata")
            print(reply.text, [m for m in ("openai", "pydantic", *http) if m in sys.modules])

        asyncio.run(main())
        """
    )
    env = {k: v for k, v in os.environ.items() if k != BACKEND_ENV_VAR}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "[]"]


@ours
async def test_a_long_history_is_sent_in_chunks_with_its_length_and_resent_on_a_retry(
    backend: ModelBackend,
) -> None:
    # Over 1 MiB of history: the body goes out a chunk at a time, never joined whole; the
    # server still gets one Content-Length body, and a retry sends the same bytes again.
    history = tuple(UserMessage(f"{i}: " + "x" * 2000) for i in range(600))
    request = ModelRequest(history, system="be brief")
    replies = [
        Reply(status=500, body={"error": {"message": "again"}}),
        Reply(body=completion("ok")),
    ]
    with serving(*replies) as server:
        async with model_for(server.url, backend, stream=False, max_retries=1) as model:
            assert (await model.complete(request)).text == "ok"
    expected = chat_body("test-model", request, stream=False, max_tokens=None)
    assert len(server.seen) == 2
    for seen in server.seen:
        assert seen.body == expected
        assert int(seen.headers["content-length"]) == len(compact_json(expected))
        assert "transfer-encoding" not in seen.headers
