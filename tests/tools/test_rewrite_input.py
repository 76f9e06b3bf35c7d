"""``tools/rewrite-input``: the input rewritten before identity, so every reader agrees.

Rewriters run in registration order inside sealing; the effective input is
what the call's identity, the later phases, the tool body, the log and the
final observers see; the model's history keeps its own ``ToolUse``.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.base import AbortSignal, FrozenDict, NotJSONError, freeze_json
from dsh.context import Next
from dsh.context._chain import describe
from dsh.session import ToolCallEvent
from dsh.session._codec import decode_event, encode_event
from dsh.tools import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    REWRITE_INPUT,
    ExecuteNext,
    GuardDenial,
    InputKeep,
    InputRewrite,
    PostToolDecision,
    PreToolDecision,
    ProposedCall,
    ToolCall,
    ToolDefinition,
    ToolExecution,
    ToolInvocation,
    ToolRequest,
    ToolResult,
    validate_arguments,
)
from tests.agent.support import bash, make_harness, of_type, replies, text
from tests.tools.support import Host, echo


def replace_text(value: str, *, seen: list[ProposedCall] | None = None) -> Any:
    async def rewriter(call: ProposedCall) -> InputRewrite:
        if seen is not None:
            seen.append(call)
        return InputRewrite.replace({**call.arguments, "text": value})

    return rewriter


# -- the chain --------------------------------------------------------------------------


async def test_rewriters_run_in_registration_order_each_seeing_the_previous_input() -> None:
    host = Host()
    seen: list[ProposedCall] = []

    async def slow_first(call: ProposedCall) -> InputRewrite:
        seen.append(call)
        await asyncio.sleep(0.01)  # finishing last would not make it win
        return InputRewrite.replace({"text": "one"})

    async def second(call: ProposedCall) -> InputRewrite:
        seen.append(call)
        return InputRewrite.replace({"text": call.arguments["text"] + "+two"})

    host.ctx.on(REWRITE_INPUT, second)
    host.ctx.on(REWRITE_INPUT, slow_first, prepend=True)
    res = await host.registry.execute(echo("model"), agent=host.agent())

    assert [c.arguments["text"] for c in seen] == ["model", "one"]
    assert all(c.original_arguments == {"text": "model"} for c in seen)
    assert res.call.arguments == {"text": "one+two"}
    assert res.call.original_arguments == {"text": "model"}
    assert res.call.rewritten_by == (describe(slow_first), describe(second))
    assert res.result.content == "one+two"
    assert host.ledger.invocations[0].arguments == {"text": "one+two"}


async def test_a_rewriter_sees_a_validated_frozen_proposal_without_identity() -> None:
    host = Host()
    seen: list[ProposedCall] = []
    host.ctx.on(REWRITE_INPUT, replace_text("x", seen=seen))
    agent = host.agent()
    await host.registry.execute(echo("hi", tags=["a"]), agent=agent)

    (proposed,) = seen
    assert proposed.name == "Echo"
    assert proposed.tool is host.registry.get("Echo")
    assert proposed.tool_use_id == "toolu_echo"
    assert proposed.agent is agent
    assert proposed.parent is None
    assert not hasattr(proposed, "token")
    with pytest.raises(TypeError, match="frozen"):
        proposed.arguments["text"] = "mutated"
    assert proposed.arguments["tags"] == ("a",)


async def test_keep_and_none_never_erase_an_earlier_rewrite() -> None:
    host = Host()

    async def keep(call: ProposedCall) -> InputRewrite:
        return InputRewrite.keep()

    async def silent(call: ProposedCall) -> None:
        return None

    host.ctx.on(REWRITE_INPUT, replace_text("rewritten"))
    host.ctx.on(REWRITE_INPUT, keep)
    host.ctx.on(REWRITE_INPUT, silent)
    res = await host.registry.execute(echo("model"), agent=host.agent())

    assert res.call.arguments == {"text": "rewritten"}
    assert res.call.rewritten_by == (describe(host.ctx.listeners(REWRITE_INPUT)[0]),)
    assert res.result.content == "rewritten"


async def test_no_rewrite_leaves_no_trace() -> None:
    host = Host()

    async def same(call: ProposedCall) -> InputRewrite:
        # The same input again is not a rewrite.
        return InputRewrite.replace(dict(call.arguments))

    host.ctx.on(REWRITE_INPUT, same)
    res = await host.registry.execute(echo("model", count=1), agent=host.agent())
    assert res.call.arguments == {"text": "model", "count": 1}
    assert res.call.original_arguments is None
    assert res.call.rewritten_by == ()


async def test_a_replacement_that_only_changes_a_json_type_is_a_rewrite() -> None:
    # ``1 == True`` in Python, but not in JSON: the boolean must not survive.
    host = Host()

    async def to_number(call: ProposedCall) -> InputRewrite:
        return InputRewrite.replace({"text": "t", "meta": {"flag": 1}})

    host.ctx.on(REWRITE_INPUT, to_number)
    res = await host.registry.execute(echo("t", meta={"flag": True}), agent=host.agent())
    assert type(res.call.arguments["meta"]["flag"]) is int
    assert res.call.rewritten_by == (describe(to_number),)


async def test_an_invalid_rewrite_is_refused_naming_the_rewriter() -> None:
    host = Host()
    later: list[ProposedCall] = []
    observed: list[tuple[ToolCall, ToolResult]] = []

    async def bad(call: ProposedCall) -> InputRewrite:
        return InputRewrite.replace({"text": 42, "extra": True})

    host.ctx.on(REWRITE_INPUT, replace_text("fine"))
    host.ctx.on(REWRITE_INPUT, bad)
    host.ctx.on(REWRITE_INPUT, replace_text("never", seen=later))
    host.ctx.on(RESULT, lambda call, result: observed.append((call, result)))
    res = await host.registry.execute(echo("model"), agent=host.agent())

    assert res.result.code == "INVALID_ARGS"
    assert not res.dispatched
    assert host.ledger.invocations == []
    assert later == []
    assert describe(bad) in str(res.result.content)
    assert "$.text" in str(res.result.content)
    info = res.result.info
    assert info["rewriter"] == describe(bad)
    assert info["rewritten_arguments"] == {"text": 42, "extra": True}
    assert {e["path"] for e in info["errors"]} >= {"$.text"}
    # The identity holds the input as it stood: the first, valid rewrite.
    assert res.call.arguments == {"text": "fine"}
    assert res.call.original_arguments == {"text": "model"}
    assert observed == [(res.call, res.result)]


async def test_a_rewriter_that_raises_is_a_listener_error() -> None:
    host = Host()

    async def broken(call: ProposedCall) -> InputRewrite:
        raise RuntimeError("rewriter broke")

    host.ctx.on(REWRITE_INPUT, broken)
    res = await host.registry.execute(echo("model"), agent=host.agent())

    assert res.result.code == "LISTENER_ERROR"
    assert not res.dispatched
    assert res.result.info["phase"] == "rewrite-input"
    assert res.result.info["listener"] == describe(broken)
    assert "rewriter broke" in str(res.result.content)
    assert res.call.arguments == {"text": "model"}


async def test_a_rewriter_answering_something_else_is_a_listener_error() -> None:
    host = Host()

    async def wrong(call: ProposedCall) -> Any:
        return {"text": "a dict is not an InputRewrite"}

    host.ctx.on(REWRITE_INPUT, wrong)
    res = await host.registry.execute(echo("model"), agent=host.agent())
    assert res.result.code == "LISTENER_ERROR"
    assert "not an InputRewrite or None" in str(res.result.content)
    assert host.ledger.invocations == []


async def test_a_rewriter_building_a_non_json_input_fails_where_it_builds_it() -> None:
    with pytest.raises(NotJSONError, match=r"\$\.arguments\.when"):
        InputRewrite.replace({"when": object()})
    with pytest.raises(TypeError, match="must be a mapping"):
        InputRewrite.replace(["not", "a", "mapping"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        InputKeep(FrozenDict(a=1))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="named constructors"):
        InputRewrite("merge")  # type: ignore[call-arg]
    assert InputRewrite.keep() is InputRewrite.keep()
    rewrite = InputRewrite.replace({"a": [1, {"b": 2}]}, reason="why")
    assert rewrite.arguments == {"a": (1, {"b": 2})}
    assert type(rewrite.arguments) is FrozenDict
    assert rewrite.reason == "why"


async def test_rewriters_do_not_run_for_a_call_that_never_validated() -> None:
    host = Host()
    seen: list[ProposedCall] = []
    host.ctx.on(REWRITE_INPUT, replace_text("x", seen=seen))
    unknown = await host.registry.execute(ToolRequest("Nope", {}), agent=host.agent())
    invalid = await host.registry.execute(echo(42), agent=host.agent())
    signal = AbortSignal()
    signal.abort("gone")
    aborted = await host.registry.execute(echo("a"), agent=host.agent(), signal=signal)
    assert [unknown.result.code, invalid.result.code, aborted.result.code] == [
        "UNKNOWN_TOOL",
        "INVALID_ARGS",
        "ABORTED_BEFORE_DISPATCH",
    ]
    assert seen == []


async def test_every_later_phase_and_the_body_see_the_rewritten_input() -> None:
    host = Host()
    seen: dict[str, Any] = {}

    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        seen["pre"] = call.arguments
        return await next()

    def guard(call: ToolCall) -> GuardDenial | None:
        seen["guard"] = call.arguments
        return None

    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        seen["execute"] = ex.call.arguments
        return await next()

    async def post(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        seen["post"] = (call.arguments, call.original_arguments)
        return await next()

    def observe(call: ToolCall, result: ToolResult) -> None:
        seen["result"] = call.arguments

    sealed: list[ToolCall] = []
    host.ctx.on(REWRITE_INPUT, replace_text("rewritten"))
    host.ctx.on(PRE_EXECUTE, pre)
    host.registry.guard(guard)
    host.ctx.on(EXECUTE, wrap)
    host.ctx.on(POST_EXECUTE, post)
    host.ctx.on(RESULT, observe)
    call = await host.registry.seal(echo("model"), agent=host.agent())
    assert isinstance(call, ToolCall)
    sealed.append(call)
    res = await host.registry.run(call)

    effective = {"text": "rewritten"}
    assert sealed == [res.call]
    assert sealed[0].arguments == effective
    assert seen == {
        "pre": effective,
        "guard": effective,
        "execute": effective,
        "post": (effective, {"text": "model"}),
        "result": effective,
    }
    (invocation,) = host.ledger.invocations
    assert invocation.arguments == effective
    assert invocation.token is res.call.token
    assert res.result.output == {"echoed": "rewritten"}


def test_validate_arguments_checks_as_sealing_does() -> None:
    host = Host()
    echo_tool = host.registry.get("Echo")
    add_tool = host.registry.get("Add")
    assert echo_tool is not None
    assert add_tool is not None
    assert validate_arguments(echo_tool, {"text": "ok"}) is None
    errors = validate_arguments(echo_tool, {"text": 1})
    assert errors is not None
    assert errors[0]["path"] == "$.text"
    assert validate_arguments(add_tool, {"a": 1, "b": 2}) is None
    assert validate_arguments(add_tool, {"a": "x", "b": 2}) is not None
    not_json = validate_arguments(echo_tool, {"text": {1, 2}})
    assert not_json is not None
    assert "set is not JSON" in not_json[0]["message"]
    assert validate_arguments(echo_tool, ["text"]) == (
        {"path": "$", "message": "arguments must be a JSON object, not an array"},
    )


# -- through the loop: the log and the model's history -------------------------------------


async def test_the_log_records_the_effective_and_the_original_input(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("I'll run it."), bash("echo hi")], [text("done")]))

    async def rewrite(call: ProposedCall) -> InputRewrite | None:
        if call.name != "Bash":
            return None
        return InputRewrite.replace({**call.arguments, "command": "echo rewritten"})

    h.ctx.on(REWRITE_INPUT, rewrite)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()

    (logged,) = of_type(agent.events, ToolCallEvent)
    assert logged.arguments == {"command": "echo rewritten", "description": "run it"}
    assert logged.original_arguments == {"command": "echo hi", "description": "run it"}
    assert logged.rewritten_by == (describe(rewrite),)

    # The JSONL line says the same, and reads back equal.
    path = agent.session.path
    assert path is not None
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    (line,) = [d for d in lines if d["type"] == "tool/call"]
    assert line["arguments"]["command"] == "echo rewritten"
    assert line["original_arguments"]["command"] == "echo hi"
    assert line["rewritten_by"] == [describe(rewrite)]
    reloaded = h.store.load(agent.session_id)
    (again,) = of_type(reloaded, ToolCallEvent)
    assert again == logged

    # The model's history keeps its own call; the result is the effective call's.
    messages = h.requests()[-1]["messages"]
    (assistant,) = [m for m in messages if m["role"] == "assistant"]
    assert "echo hi" in json.dumps(assistant)
    assert "echo rewritten" not in json.dumps(assistant)
    (result,) = [m for m in messages if m["role"] == "tool"]
    assert "rewritten" in json.dumps(result["content"])


def test_a_tool_call_line_without_the_rewrite_fields_still_loads() -> None:
    old = {
        "type": "tool/call",
        "id": "ev1",
        "time": 1767225600.0,
        "session_id": "s",
        "seq": 3,
        "turn_id": None,
        "token": "call_x_1",
        "parent_token": None,
        "tool_use_id": "toolu_1",
        "tool_name": "Bash",
        "arguments": {"command": "ls"},
    }
    event = decode_event(json.dumps(old))
    assert isinstance(event, ToolCallEvent)
    assert event.original_arguments is None
    assert event.rewritten_by == ()
    again = decode_event(encode_event(event))
    assert again == event


# -- the documented example ---------------------------------------------------------------


DOC = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def documented_plugin() -> Any:
    doc = DOC.read_text()
    body = doc[doc.index("## Input rewrite") :]
    match = re.search(r"```python\n(.*?)```", body, re.S)
    assert match is not None
    namespace: dict[str, Any] = {}
    exec(match.group(1), namespace)
    return namespace["quiet_installs"]


async def test_the_documented_rewriter_runs_as_printed() -> None:
    plugin = documented_plugin()
    host = Host()

    async def fake_bash(inv: ToolInvocation) -> ToolResult:
        return ToolResult.ok(inv.arguments["command"])

    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    host.registry.register(ToolDefinition("Bash", "fake", schema, fake_bash))
    host.ctx.plugin(plugin)
    res = await host.registry.execute(
        ToolRequest("Bash", {"command": "npm install left-pad"}, "toolu_1"), agent=host.agent()
    )
    assert res.result.content == "npm install left-pad --quiet"
    assert res.call.original_arguments == {"command": "npm install left-pad"}
    untouched = await host.registry.execute(
        ToolRequest("Bash", {"command": "ls"}, "toolu_2"), agent=host.agent()
    )
    assert untouched.call.rewritten_by == ()


# -- the property ---------------------------------------------------------------------------

_TEXTS = st.text(max_size=8)
_VALID = st.fixed_dictionaries(
    {"text": _TEXTS},
    optional={"count": st.integers(-5, 5), "tags": st.lists(_TEXTS, max_size=3)},
)
_INVALID: st.SearchStrategy[dict[str, Any]] = st.one_of(
    st.fixed_dictionaries({"text": st.integers()}),
    st.fixed_dictionaries({"text": _TEXTS, "unknown": st.booleans()}),
    st.just({}),
)
_STEP = st.one_of(
    st.tuples(st.just("keep"), st.none()),
    st.tuples(st.just("none"), st.none()),
    st.tuples(st.just("replace"), _VALID),
    st.tuples(st.just("invalid"), _INVALID),
)


def _listener(kind: str, value: Any) -> Any:
    async def rewriter(call: ProposedCall) -> InputRewrite | None:
        assert type(call.arguments) is FrozenDict
        if kind == "keep":
            return InputRewrite.keep()
        if kind == "none":
            return None
        return InputRewrite.replace(value)

    return rewriter


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(original=_VALID, steps=st.lists(_STEP, max_size=6))
def test_the_effective_input_is_the_last_replacement(
    original: dict[str, Any], steps: list[tuple[str, Any]]
) -> None:
    host = Host()
    for kind, value in steps:
        host.ctx.on(REWRITE_INPUT, _listener(kind, value))
    res = asyncio.run(
        host.registry.execute(ToolRequest("Echo", original, "toolu_p"), agent=host.agent())
    )

    expected = freeze_json(original)
    refused = False
    for kind, value in steps:
        if kind == "invalid":
            refused = True
            break
        if kind == "replace":
            expected = freeze_json(value)
    call = res.call
    assert call.arguments == expected
    assert freeze_json(json.loads(json.dumps(call.arguments))) == expected
    assert type(call.arguments) is FrozenDict
    assert call.original_arguments in (None, freeze_json(original))
    assert (call.original_arguments is None) == (call.rewritten_by == ())
    if refused:
        assert res.result.code == "INVALID_ARGS"
        assert not res.dispatched
        assert host.ledger.invocations == []
    else:
        assert res.dispatched
        (invocation,) = host.ledger.invocations
        assert invocation.arguments == expected
        assert res.result.content == expected["text"]
