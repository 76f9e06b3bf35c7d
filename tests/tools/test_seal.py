"""Phase 1: sealing. Copy, JSON check, resolution, validation, freezing, the token."""

from __future__ import annotations

import copy
import json
import math
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from dsh.base import FrozenDict
from dsh.context import Next
from dsh.messages import ToolUse
from dsh.tools import (
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    PostToolDecision,
    PreToolDecision,
    ToolCall,
    ToolRequest,
    ToolResult,
)
from dsh.tools._identity import CallToken
from dsh.tools._seal import SealFailure
from tests.tools.support import Host, echo


def _cycle() -> dict[str, Any]:
    d: dict[str, Any] = {"text": "x"}
    d["self"] = d
    return d


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"text": b"bytes"}, "$.text"),
        ({"text": "x", "count": math.nan}, "$.count"),
        ({"text": "x", "tags": {"a", "b"}}, "$.tags"),
        ({"text": "x", "meta": {1: "int key"}}, "$.meta"),
        (_cycle(), "$.self"),
    ],
)
async def test_non_json_input_is_invalid_args_naming_the_path(
    arguments: dict[str, Any], path: str
) -> None:
    host = Host()
    res = await host.registry.execute(ToolRequest("Echo", arguments))
    assert res.result.code == "INVALID_ARGS"
    assert res.result.is_error
    assert not res.dispatched
    errors = res.result.info["errors"]
    assert errors[0]["path"] == path
    assert path in res.result.text
    assert host.ledger.invocations == []
    assert res.call.arguments == {}


@pytest.mark.parametrize("arguments", [["a"], "text", 3, None])
async def test_arguments_must_be_a_json_object(arguments: object) -> None:
    res = await Host().registry.execute(ToolRequest("Echo", arguments))
    assert res.result.code == "INVALID_ARGS"
    assert "must be a JSON object" in res.result.text


async def test_an_unknown_tool_is_unknown_tool() -> None:
    host = Host()
    seen: list[ToolResult] = []

    @host.ctx.on(POST_EXECUTE)
    async def post(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        seen.append(result)
        return await next()

    res = await host.registry.execute(ToolRequest("Nope", {"x": 1}))
    assert res.result.code == "UNKNOWN_TOOL"
    assert res.result.content == "No such tool available: Nope"
    assert res.call.tool is None
    assert res.call.arguments == {"x": 1}
    assert not res.dispatched
    assert seen == [res.result]


async def test_schema_errors_are_carried_in_info() -> None:
    res = await Host().registry.execute(echo(text=5, extra=True))
    assert res.result.code == "INVALID_ARGS"
    errors = res.result.info["errors"]
    paths = sorted(e["path"] for e in errors)
    assert paths == ["$", "$.text"]
    assert any("additional" in e["message"].lower() for e in errors)
    assert "INVALID_ARGS" not in res.result.text


async def test_a_pydantic_tool_is_validated_by_its_model() -> None:
    host = Host()
    bad = await host.registry.execute(ToolRequest("Add", {"a": 1, "b": "two"}))
    assert bad.result.code == "INVALID_ARGS"
    assert [e["path"] for e in bad.result.info["errors"]] == ["$.b"]
    good = await host.registry.execute(ToolRequest("Add", {"a": 1, "b": 2}))
    assert good.result.content == "3"
    assert good.result.output == {"sum": 3}


async def test_validation_accepts_frozen_arrays() -> None:
    res = await Host().registry.execute(echo(tags=["a", "b"], meta={"k": [1, {"z": None}]}))
    assert res.result.is_error is False
    assert res.call.arguments["tags"] == ("a", "b")


async def test_the_callers_input_is_copied_before_anything_runs() -> None:
    host = Host()
    arguments: dict[str, Any] = {"text": "original", "tags": ["a"]}

    @host.ctx.on(PRE_EXECUTE)
    async def caller_mutates(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        arguments["text"] = "changed"
        arguments["tags"].append("b")
        return await next()

    res = await host.registry.execute(ToolRequest("Echo", arguments))
    assert res.call.arguments == {"text": "original", "tags": ("a",)}
    assert host.ledger.invocations[0].arguments is res.call.arguments
    assert res.result.content == "original"


async def test_a_listener_cannot_change_the_identity() -> None:
    host = Host()
    errors: list[str] = []
    observed: list[ToolCall] = []

    @host.ctx.on(PRE_EXECUTE)
    async def tamper(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        attempts: list[Callable[[], object]] = [
            lambda: call.arguments.__setitem__("text", "evil"),
            lambda: call.arguments.update(text="evil"),
            lambda: call.arguments.pop("text"),
            lambda: call.arguments["meta"].__setitem__("k", 2),
            lambda: setattr(call, "name", "Boom"),
            lambda: setattr(call, "arguments", {"text": "evil"}),
        ]
        for attempt in attempts:
            try:
                attempt()
            except (TypeError, AttributeError) as exc:
                errors.append(type(exc).__name__)
        return await next()

    host.ctx.on(RESULT, lambda call, result: observed.append(call))
    res = await host.registry.execute(echo("safe", meta={"k": 1}))
    assert len(errors) == 6
    assert "TypeError" in errors
    assert res.result.content == "safe"
    assert host.ledger.invocations[0].arguments == {"text": "safe", "meta": {"k": 1}}
    assert res.call.name == "Echo"
    assert observed == [res.call]
    assert json.loads(json.dumps(res.call.arguments)) == {"text": "safe", "meta": {"k": 1}}


def test_plugins_cannot_construct_a_token() -> None:
    with pytest.raises(TypeError, match="minted by the tool registry"):
        CallToken(object(), 1)


async def test_tokens_are_opaque_unique_and_uncopyable() -> None:
    host = Host()
    a = await host.registry.execute(echo())
    b = await host.registry.execute(echo())
    assert a.call.token is not b.call.token
    assert str(a.call.token) != str(b.call.token)
    assert copy.copy(a.call.token) is a.call.token
    assert copy.deepcopy(a.call.token) is a.call.token
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(a.call.token)
    assert host.ledger.invocations[0].token is a.call.token


async def test_a_nested_call_records_only_its_parents_token() -> None:
    host = Host()
    parent = await host.registry.execute(echo())
    child = await host.registry.execute(echo(), parent=parent.call.token)
    assert child.call.parent is parent.call.token
    # An identity of the wrong shape is a JSON-safe error result with a stable code.
    bad = await host.registry.execute(echo(), parent=str(parent.call.token))  # type: ignore[arg-type]
    assert (bad.result.code, bad.result.info["identity"], bad.dispatched) == (
        "INVALID_ARGS",
        "parent",
        False,
    )
    assert "parent must be a CallToken or None, not str" in bad.result.text
    assert bad.call.parent is None


async def test_seal_gives_the_call_before_pre_execute_and_run_runs_that_call() -> None:
    host = Host()
    order: list[str] = []

    @host.ctx.on(PRE_EXECUTE)
    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        order.append("pre-execute")
        return await next()

    sealed = await host.registry.seal(echo())
    assert isinstance(sealed, ToolCall)
    assert order == []
    res = await host.registry.run(sealed)
    assert order == ["pre-execute"]
    assert res.call is sealed
    # A sealing failure is a value too: run skips to post-execute with its result.
    failed = await host.registry.seal(ToolRequest("Echo", {"text": 3}))
    assert isinstance(failed, SealFailure)
    assert failed.result.code == "INVALID_ARGS"
    ran = await host.registry.run(failed)
    assert (ran.call, ran.result, ran.dispatched) == (failed.call, failed.result, False)
    assert order == ["pre-execute"]


async def test_a_tool_use_is_accepted_as_a_request() -> None:
    res = await Host().registry.execute(ToolUse("toolu_9", "Echo", FrozenDict(text="hey")))
    assert res.call.tool_use_id == "toolu_9"
    assert res.result.content == "hey"


async def test_the_workspace_comes_from_the_agent() -> None:
    host = Host()
    agent = host.agent()
    res = await host.registry.execute(echo(), agent=agent)
    assert host.ledger.invocations[0].workspace is agent.workspace
    assert host.ledger.invocations[0].agent is agent
    assert res.call.agent is agent
