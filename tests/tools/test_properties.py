"""Invariants over random inputs: guard denials are final; fast validation matches jsonschema."""

from __future__ import annotations

import asyncio
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.approval import APPROVAL, ApprovalBroker, PolicyChannel, PolicyRule
from dsh.base import AbortSignal, freeze_json
from dsh.context import Context, Next
from dsh.tools import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    ExecuteNext,
    GuardDenial,
    PostToolDecision,
    PreToolDecision,
    ToolCall,
    ToolDefinition,
    ToolExecution,
    ToolInvocation,
    ToolRegistry,
    ToolResult,
)
from tests.tools.support import Host, echo

PRE_KINDS = ["next", "allow", "deny", "ask", "allow-over-inner", "raise"]
EXEC_KINDS = ["next", "fake-success", "retry", "new-signal", "no-signal"]
POST_KINDS = ["next", "accept-success-content", "block", "accept-context"]
GUARD_KINDS = ["abstain", "abstain", "deny"]


def _pre(kind: str) -> Any:
    async def listener(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        if kind == "next":
            return await next()
        if kind == "allow":
            return PreToolDecision.allow()
        if kind == "deny":
            return PreToolDecision.deny("pre says no")
        if kind == "ask":
            return PreToolDecision.ask("please")
        if kind == "allow-over-inner":
            await next()
            return PreToolDecision.allow()
        raise RuntimeError("pre broke")

    return listener


def _exec(kind: str) -> Any:
    async def listener(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        if kind == "fake-success":
            return ToolResult.ok("pretend it ran")
        if kind == "retry":
            await next()
            return await next()
        if kind == "new-signal":
            return await next(signal=AbortSignal())
        if kind == "no-signal":
            return await next(signal=None)
        return await next()

    return listener


def _post(kind: str) -> Any:
    async def listener(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        if kind == "accept-success-content":
            return PostToolDecision.accept(content="it worked")
        if kind == "block":
            return PostToolDecision.block("feedback")
        if kind == "accept-context":
            return PostToolDecision.accept(additional_context="context")
        return await next()

    return listener


def _guard(kind: str) -> Any:
    def guard(call: ToolCall) -> GuardDenial | None:
        return GuardDenial("guard says no") if kind == "deny" else None

    return guard


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pre=st.lists(st.sampled_from(PRE_KINDS), max_size=4),
    wrappers=st.lists(st.sampled_from(EXEC_KINDS), max_size=3),
    post=st.lists(st.sampled_from(POST_KINDS), max_size=3),
    guards=st.lists(st.sampled_from(GUARD_KINDS), max_size=3),
    deny_at=st.integers(min_value=0, max_value=3),
    prepend=st.lists(st.booleans(), min_size=16, max_size=16),
)
def test_no_listener_order_undoes_a_guard_denial(
    pre: list[str],
    wrappers: list[str],
    post: list[str],
    guards: list[str],
    deny_at: int,
    prepend: list[bool],
) -> None:
    host = Host()
    host.ctx.provide(APPROVAL, ApprovalBroker(PolicyChannel([PolicyRule.allow()])))
    flags = iter(prepend)
    for kind in pre:
        host.ctx.on(PRE_EXECUTE, _pre(kind), prepend=next(flags))
    for kind in wrappers:
        host.ctx.on(EXECUTE, _exec(kind), prepend=next(flags))
    for kind in post:
        host.ctx.on(POST_EXECUTE, _post(kind), prepend=next(flags))
    guards.insert(min(deny_at, len(guards)), "deny")
    for kind in guards:
        host.registry.guard(_guard(kind))

    res = asyncio.run(host.registry.execute(echo(), agent=host.agent(), signal=AbortSignal()))

    assert host.ledger.invocations == []
    assert not res.dispatched
    assert res.result.is_error
    assert res.result.code in ("DENIED", "LISTENER_ERROR")
    if "deny" not in pre and "raise" not in pre:
        assert res.result.code == "DENIED"
        assert res.result.info["by"] == "guard"


# -- the compiled fast path agrees with jsonschema ---------------------------------------

_TYPES = ["object", "array", "string", "integer", "number", "boolean", "null"]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-5, max_value=5)
    | st.floats(min_value=-5, max_value=5, allow_nan=False)
    | st.sampled_from(["", "a", "ab", "abc", "x"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), children, max_size=3)
    ),
    max_leaves=8,
)


def _schemas() -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(_TYPES)
            | st.lists(st.sampled_from(_TYPES), min_size=1, max_size=2, unique=True),
            "enum": st.lists(st.sampled_from(["a", "ab", "x"]), min_size=1, max_size=3, unique=True)
            | st.just([1, "a", None]),
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 3),
            "minimum": st.integers(-3, 3) | st.floats(-3, 3),
            "maximum": st.integers(-3, 3),
            "minItems": st.integers(0, 2),
            "pattern": st.just("^a"),
            "description": st.just("annotation"),
        },
    )
    return st.recursive(
        leaf,
        lambda sub: st.fixed_dictionaries(
            {},
            optional={
                "type": st.sampled_from(_TYPES),
                "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), sub, max_size=3),
                "required": st.lists(st.sampled_from(["a", "b", "c"]), max_size=2, unique=True),
                "additionalProperties": st.booleans() | sub,
                "items": sub,
                "maxItems": st.integers(0, 3),
            },
        ),
        max_leaves=6,
    )


@settings(max_examples=400, deadline=None)
@given(
    schema=_schemas(),
    value=st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), json_values, max_size=4),
)
def test_fast_validation_agrees_with_jsonschema(
    schema: dict[str, Any], value: dict[str, Any]
) -> None:
    async def nothing(inv: ToolInvocation) -> ToolResult:
        return ToolResult.ok("")

    registry = ToolRegistry(Context())
    registry.register(ToolDefinition("T", "", schema, nothing))
    res = asyncio.run(registry.execute(echo_request(value)))
    expected = jsonschema.Draft202012Validator(schema).is_valid(value)
    assert (res.result.code != "INVALID_ARGS") == expected, res.result
    if not expected:
        assert res.result.info["errors"]
    frozen = freeze_json(value)
    assert (res.call.arguments == frozen) or not expected


def echo_request(value: dict[str, Any]) -> Any:
    from dsh.tools import ToolRequest

    return ToolRequest("T", value)
