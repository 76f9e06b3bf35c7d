"""Hostile tool-call arguments from a real model endpoint: bounded, logged readably, no crash.

A real OpenAI-compatible HTTP server (``tests/models/chat_server.py``) streams one reply
whose tool calls carry arguments dsh cannot carry as JSON (100,000-deep nesting, ``NaN``,
a 5000-digit number, 2 MB of garbage) beside a good one, through the real loop: the turn
completes, each bad call is an invalid-arguments error to the model, the good one runs,
every log line is strict UTF-8 JSON of bounded size, and the log reads back as written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh.models import OpenAICompatibleModel
from dsh.session import ToolResultEvent, TurnEndReason
from tests.agent.support import make_harness, replies, text
from tests.models.chat_server import Reply, chunk, serving

HOSTILE = {
    "100,000 deep": '{"command": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "NaN": '{"command": NaN}',
    "5000 digits": '{"command": "ls", "n": ' + "9" * 5000 + "}",
    "2 MB of garbage": "{" + "x" * 2_000_000,
}


def call(index: int, arguments: str) -> dict[str, object]:
    function = {"name": "Bash", "arguments": arguments}
    return {"index": index, "id": f"call_{index}", "type": "function", "function": function}


@pytest.fixture(autouse=True, params=["asyncio", "httpx"])
def no_credentials(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    # dsh's own client (the default) and httpx2 (behind a proxy) meet the same streams.
    for name in ("DSH_API_KEY", "OPENAI_API_KEY", "DSH_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DSH_MODEL_BACKEND", request.param)


async def test_hostile_tool_call_arguments_are_contained(tmp_path: Path) -> None:
    calls = [call(i, a) for i, a in enumerate(HOSTILE.values())]
    calls.append(call(len(calls), json.dumps({"command": "echo fine", "description": "ok"})))
    first = [chunk({"role": "assistant", "content": ""})]
    first += [chunk({"tool_calls": [c]}) for c in calls]
    first.append(chunk({}, finish="tool_calls"))
    second = [chunk({"role": "assistant", "content": "Done."}), chunk({}, finish="stop")]
    harness = make_harness(tmp_path, replies([text("unused")]))
    with serving(Reply(chunks=first), Reply(chunks=second)) as server:
        async with OpenAICompatibleModel(
            "test-model", server.url, api_key="k", backoff_base=0.001, backoff_max=0.01
        ) as model:
            agent = harness.agent(model=model)
            agent.send("go")
            result = await agent.run_turn()
            await agent.close("other")
    assert result.end_reason == TurnEndReason.COMPLETED
    results = [e for e in agent.events if isinstance(e, ToolResultEvent)]
    assert len(results) == len(HOSTILE) + 1
    *bad, good = results
    assert all(r.is_error for r in bad)
    assert not good.is_error
    path = harness.store.log_path(agent.session_id)
    for line in path.read_bytes().splitlines():
        json.loads(line.decode("utf-8"))
        assert len(line) < 200_000  # 2 MB of arguments came in; a bounded prefix is kept
    assert harness.store.load(agent.session_id) == agent.events
