"""Phases 2 to 8: pre-execute, guards, around dispatch, normalization, post-execute, result."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from dsh.base import AbortSignal, FrozenDict, thaw_json
from dsh.context import Next
from dsh.messages import TextBlock
from dsh.tools import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    ExecuteNext,
    GuardDenial,
    PostToolAccept,
    PostToolBlock,
    PostToolDecision,
    PreToolAllow,
    PreToolDecision,
    PreToolDeny,
    ToolCall,
    ToolExecution,
    ToolExecutionResult,
    ToolRequest,
    ToolResult,
)
from tests.tools.support import Host, echo


class Trail:
    """Records which phases a call passed."""

    def __init__(self, host: Host) -> None:
        self.phases: list[str] = []
        self.results: list[tuple[ToolCall, ToolResult]] = []
        phases = self.phases

        async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
            phases.append("execute")
            return await next()

        async def post(
            call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
        ) -> PostToolDecision:
            phases.append("post-execute")
            return await next()

        def guard(call: ToolCall) -> GuardDenial | None:
            phases.append("guard")
            return None

        def observe(call: ToolCall, result: ToolResult) -> None:
            phases.append("result")
            self.results.append((call, result))

        host.ctx.on(EXECUTE, wrap)
        host.ctx.on(POST_EXECUTE, post)
        host.registry.guard(guard)
        host.ctx.on(RESULT, observe)


# -- pre-execute ------------------------------------------------------------------


async def test_with_no_listeners_a_call_runs() -> None:
    host = Host()
    res = await host.registry.execute(echo("hello"))
    assert res.result == ToolResult("hello", FrozenDict(echoed="hello"))
    assert res.dispatched
    assert res.additional_context == ()


async def test_a_denial_skips_guards_and_dispatch_but_reaches_post_execute_and_observers() -> None:
    host = Host()
    trail = Trail(host)

    @host.ctx.on(PRE_EXECUTE)
    async def deny(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.deny("no echoing today", {"rule": 7})

    res = await host.registry.execute(echo())
    assert trail.phases == ["post-execute", "result"]
    assert host.ledger.invocations == []
    assert not res.dispatched
    assert res.result.content == "no echoing today"
    assert res.result.code == "DENIED"
    assert res.result.info == {
        "by": "pre-execute",
        "reason": "no echoing today",
        "info": {"rule": 7},
    }
    assert trail.results == [(res.call, res.result)]


async def test_pre_execute_context_is_returned_with_the_call() -> None:
    host = Host()

    @host.ctx.on(PRE_EXECUTE)
    async def note(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.allow(additional_context="checked by policy")

    @host.ctx.on(POST_EXECUTE)
    async def more(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        return PostToolDecision.accept(additional_context=["one", "two"])

    res = await host.registry.execute(echo())
    assert res.additional_context == ("checked by policy", "one", "two")


async def test_an_outer_allow_short_circuits_an_inner_deny() -> None:
    host = Host()

    @host.ctx.on(PRE_EXECUTE)
    async def inner(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.deny("inner says no")

    @host.ctx.on(PRE_EXECUTE, prepend=True)
    async def outer(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.allow()

    res = await host.registry.execute(echo())
    assert res.result.is_error is False


# -- guards -----------------------------------------------------------------------


async def test_any_guard_denial_wins_over_pre_execute_allow() -> None:
    host = Host()
    trail = Trail(host)

    @host.ctx.on(PRE_EXECUTE)
    async def allow(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.allow()

    def read_only(call: ToolCall) -> GuardDenial | None:
        assert call.tool is not None
        return None if call.tool.read_only else GuardDenial("read-only session")

    host.registry.guard(read_only)
    res = await host.registry.execute(echo())
    assert res.result.code == "DENIED"
    assert res.result.content == "read-only session"
    assert res.result.info["by"] == "guard"
    assert res.result.info["guard"].endswith("read_only")
    assert "execute" not in trail.phases
    assert not res.dispatched
    assert trail.phases == ["guard", "post-execute", "result"]
    ok = await host.registry.execute(ToolRequest("Add", {"a": 2, "b": 2}))
    assert ok.result.content == "4"


@pytest.mark.parametrize(
    ("guard", "fragment"),
    [
        (lambda call: 1 / 0, "ZeroDivisionError: division by zero"),
        (lambda call: True, "guard returned bool"),
        (lambda call: PreToolDecision.allow(), "guard returned PreToolAllow"),
    ],
)
async def test_a_broken_guard_fails_closed(guard: Any, fragment: str) -> None:
    host = Host()
    host.registry.guard(guard)
    res = await host.registry.execute(echo())
    assert res.result.code == "LISTENER_ERROR"
    assert fragment in res.result.text
    assert res.result.info["phase"] == "guard"
    assert not res.dispatched
    assert host.ledger.invocations == []


# -- tools/execute ----------------------------------------------------------------


async def test_a_wrapper_can_replace_the_signal() -> None:
    host = Host()
    mine = AbortSignal()

    @host.ctx.on(EXECUTE)
    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        return await next(signal=mine)

    await host.registry.execute(echo(), signal=AbortSignal())
    assert host.ledger.invocations[0].signal is mine


async def test_a_wrapper_can_remove_the_signal_or_keep_it() -> None:
    host = Host()
    seen: list[AbortSignal | None] = []

    @host.ctx.on(EXECUTE)
    async def remove(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        return await next(signal=None)

    @host.ctx.on(EXECUTE, prepend=True)
    async def keep(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        seen.append(ex.signal)
        return await next()

    signal = AbortSignal()
    await host.registry.execute(echo(), signal=signal)
    assert seen == [signal]
    assert host.ledger.invocations[0].signal is None


async def test_a_wrapper_cannot_pass_anything_but_a_signal() -> None:
    host = Host()

    @host.ctx.on(EXECUTE)
    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        return await next(signal="soon")  # type: ignore[arg-type]

    res = await host.registry.execute(echo())
    assert res.result.code == "LISTENER_ERROR"
    assert "takes an AbortSignal or None" in res.result.text
    assert not res.dispatched


async def test_a_wrapper_result_short_circuits_dispatch() -> None:
    host = Host()

    @host.ctx.on(EXECUTE)
    async def cached(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        return ToolResult.ok("from cache", output={"cached": [1, 2]})

    res = await host.registry.execute(echo())
    assert res.result == ToolResult("from cache", FrozenDict(cached=(1, 2)))
    assert not res.dispatched
    assert host.ledger.invocations == []


async def test_a_wrapper_receives_normalized_results_and_may_retry() -> None:
    host = Host()
    received: list[ToolResult] = []

    @host.ctx.on(EXECUTE)
    async def retry(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        for _ in range(3):
            result = await next()
            received.append(result)
            if not result.is_error:
                break
        return result

    res = await host.registry.execute(ToolRequest("Boom", {}))
    assert len(received) == 3
    assert all(r.code == "TOOL_ERROR" for r in received)
    assert received[0].content == "RuntimeError: the disk is on fire"
    assert len(host.ledger.invocations) == 3
    assert res.result is received[-1]
    assert res.dispatched


async def test_a_wrapper_sees_the_sealed_identity() -> None:
    host = Host()
    seen: list[ToolCall] = []

    @host.ctx.on(EXECUTE)
    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        seen.append(ex.call)
        return await next()

    res = await host.registry.execute(echo())
    assert seen == [res.call]


# -- normalization ----------------------------------------------------------------


class Weird:
    pass


def _cyclic() -> dict[str, Any]:
    d: dict[str, Any] = {}
    d["loop"] = [d]
    return d


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("just a string", "returned str, not a ToolResult"),
        (None, "returned NoneType, not a ToolResult"),
        (ToolResult.ok("x", output=b"bytes"), "$.output: bytes is not JSON"),
        (ToolResult.ok("x", output={"v": math.nan}), "$.output.v: nan is not a JSON number"),
        (ToolResult.ok("x", output={"s": {1, 2}}), "$.output.s: set is not JSON"),
        (ToolResult.ok("x", output=_cyclic()), "reference cycle"),
        (ToolResult.error("x", info=Weird()), "$.info: Weird is not JSON"),
        (ToolResult(["not", "blocks"]), "content[0] is str"),  # type: ignore[arg-type]
        (ToolResult(42), "content must be a str"),  # type: ignore[arg-type]
        (ToolResult("x", is_error=1), "is_error must be a bool"),  # type: ignore[arg-type]
        (ToolResult("x", code="OOPS"), "'OOPS' is not a failure code"),  # type: ignore[arg-type]
        (ToolResult("x", code="DENIED"), "a success cannot carry the failure code DENIED"),
    ],
)
async def test_a_malformed_result_becomes_malformed_result(raw: object, fragment: str) -> None:
    host = Host()
    host.raw = raw
    res = await host.registry.execute(ToolRequest("Returns", {}))
    assert res.result.code == "MALFORMED_RESULT"
    assert res.result.is_error
    assert res.dispatched
    assert fragment in res.result.text
    assert res.result.info["source"] == "tool Returns"
    assert "MALFORMED_RESULT" not in res.result.text
    json.dumps(thaw_json(res.result.info))


async def test_a_valid_result_is_frozen_and_an_error_without_code_gets_tool_error() -> None:
    host = Host()
    host.raw = ToolResult("failed", output={"lines": ["a"]}, is_error=True)
    res = await host.registry.execute(ToolRequest("Returns", {}))
    assert res.result.code == "TOOL_ERROR"
    assert res.result.output == {"lines": ("a",)}
    with pytest.raises(TypeError):
        res.result.output["lines"] = []
    host.raw = ToolResult([TextBlock("a"), TextBlock("b")])  # type: ignore[arg-type]
    blocks = await host.registry.execute(ToolRequest("Returns", {}))
    assert blocks.result.content == (TextBlock("a"), TextBlock("b"))


async def test_a_raising_tool_is_tool_error_with_the_reason_as_content() -> None:
    res = await Host().registry.execute(ToolRequest("Boom", {}))
    assert res.result.content == "RuntimeError: the disk is on fire"
    assert res.result.code == "TOOL_ERROR"
    assert res.result.info == {"exception": "RuntimeError"}
    assert res.dispatched


async def test_a_wrapper_returning_garbage_is_malformed_result() -> None:
    host = Host()

    @host.ctx.on(EXECUTE)
    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        await next()
        return {"content": "x"}  # type: ignore[return-value]

    res = await host.registry.execute(echo())
    assert res.result.code == "MALFORMED_RESULT"
    assert res.result.info["source"].startswith("tools/execute listener ")
    assert res.dispatched


# -- listener failures --------------------------------------------------------------


async def test_a_raising_pre_execute_listener_is_listener_error() -> None:
    host = Host()
    trail = Trail(host)

    @host.ctx.on(PRE_EXECUTE)
    async def broken(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        raise KeyError("policy file")

    res = await host.registry.execute(echo())
    assert res.result.code == "LISTENER_ERROR"
    assert res.result.info["phase"] == "pre-execute"
    assert res.result.info["listener"].endswith("broken")
    assert res.result.content == res.result.info["listener"].join(
        ["pre-execute listener ", " failed: KeyError: 'policy file'"]
    )
    assert trail.phases == ["post-execute", "result"]
    assert not res.dispatched


async def test_an_inner_failure_swallowed_by_an_outer_listener_still_counts() -> None:
    host = Host()

    @host.ctx.on(PRE_EXECUTE)
    async def inner(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        raise ValueError("inner broke")

    @host.ctx.on(PRE_EXECUTE, prepend=True)
    async def outer(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        try:
            return await next()
        except ValueError:
            return PreToolDecision.allow()

    res = await host.registry.execute(echo())
    assert res.result.code == "LISTENER_ERROR"
    assert res.result.info["listener"].endswith("inner")
    assert not res.dispatched


@pytest.mark.parametrize("answer", [None, "allow", PostToolDecision.accept()])
async def test_a_pre_execute_listener_with_a_wrong_answer_is_listener_error(answer: object) -> None:
    host = Host()

    @host.ctx.on(PRE_EXECUTE)
    async def wrong(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return answer  # type: ignore[return-value]

    res = await host.registry.execute(echo())
    assert res.result.code == "LISTENER_ERROR"
    assert "not a PreToolDecision" in res.result.text


async def test_calling_next_twice_is_listener_error() -> None:
    host = Host()

    @host.ctx.on(PRE_EXECUTE)
    async def twice(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        await next()
        return await next()

    res = await host.registry.execute(echo())
    assert res.result.code == "LISTENER_ERROR"
    assert "called next() twice" in res.result.text


async def test_a_bad_decision_built_by_a_listener_is_listener_error() -> None:
    host = Host()

    @host.ctx.on(PRE_EXECUTE)
    async def bad(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.deny("no", info={"raw": b"bytes"})

    res = await host.registry.execute(echo())
    assert res.result.code == "LISTENER_ERROR"
    assert "$.info.raw" in res.result.text


async def test_a_raising_execute_wrapper_is_listener_error() -> None:
    host = Host()

    @host.ctx.on(EXECUTE)
    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        await next()
        raise RuntimeError("metrics backend down")

    res = await host.registry.execute(echo())
    assert res.result.code == "LISTENER_ERROR"
    assert res.result.info["phase"] == "execute"
    assert res.dispatched


async def test_a_raising_post_execute_listener_fails_the_call_closed() -> None:
    host = Host()

    @host.ctx.on(POST_EXECUTE)
    async def broken(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        raise RuntimeError("formatter crashed")

    res = await host.registry.execute(echo("kept"))
    assert res.result.code == "LISTENER_ERROR"
    assert res.result.output == {"echoed": "kept"}
    assert res.result.info["phase"] == "post-execute"
    assert res.result.info["original_code"] is None
    assert res.dispatched


async def test_a_failing_observer_is_contained() -> None:
    host = Host()
    seen: list[ToolResult] = []

    def broken(call: ToolCall, result: ToolResult) -> None:
        raise RuntimeError("observer down")

    host.ctx.on(RESULT, broken)
    host.ctx.on(RESULT, lambda call, result: seen.append(result))
    res = await host.registry.execute(echo())
    assert res.result.is_error is False
    assert seen == [res.result]


# -- post-execute -----------------------------------------------------------------


async def test_accept_can_replace_the_content_only() -> None:
    host = Host()

    @host.ctx.on(POST_EXECUTE)
    async def shorten(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        return PostToolDecision.accept(content="[redacted]")

    res = await host.registry.execute(echo("secret"))
    assert res.result == ToolResult("[redacted]", FrozenDict(echoed="secret"))


async def test_block_appends_feedback_and_keeps_the_outcome() -> None:
    host = Host()

    @host.ctx.on(POST_EXECUTE)
    async def lint(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        return PostToolDecision.block("lint failed: fix line 3", additional_context="ctx")

    res = await host.registry.execute(echo("written"))
    assert res.result.content == (TextBlock("written"), TextBlock("lint failed: fix line 3"))
    assert res.result.is_error is False
    assert res.result.code is None
    assert res.result.output == {"echoed": "written"}
    assert res.additional_context == ("ctx",)


async def test_block_with_empty_replacement_content_leaves_only_the_feedback() -> None:
    host = Host()

    @host.ctx.on(POST_EXECUTE)
    async def replace(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        return PostToolDecision.block("use the other API", content="")

    res = await host.registry.execute(echo("written"))
    assert res.result.content == "use the other API"


async def test_a_failure_can_never_become_a_success() -> None:
    host = Host()

    @host.ctx.on(POST_EXECUTE)
    async def whitewash(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        return PostToolDecision.accept(content="all good")

    res = await host.registry.execute(ToolRequest("Boom", {}))
    assert res.result.content == "all good"
    assert res.result.is_error is True
    assert res.result.code == "TOOL_ERROR"
    assert res.result.info == {"exception": "RuntimeError"}


async def test_mutating_the_result_in_place_changes_nothing() -> None:
    host = Host()
    attempts: list[str] = []

    @host.ctx.on(POST_EXECUTE)
    async def tamper(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        for attempt in (
            lambda: setattr(result, "is_error", True),
            lambda: setattr(result, "content", "changed"),
            lambda: result.output.__setitem__("echoed", "changed"),
            lambda: object.__setattr__(result, "content", "forced"),
        ):
            try:
                attempt()
            except (TypeError, AttributeError) as exc:
                attempts.append(type(exc).__name__)
        return await next()

    res = await host.registry.execute(echo("original"))
    assert len(attempts) == 3
    assert res.result == ToolResult("original", FrozenDict(echoed="original"))


async def test_post_execute_sees_every_outcome_with_its_code() -> None:
    host = Host()
    seen: list[str | None] = []

    @host.ctx.on(POST_EXECUTE)
    async def note(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        seen.append(result.code)
        return await next()

    await host.registry.execute(echo())
    await host.registry.execute(ToolRequest("Nope", {}))
    await host.registry.execute(echo(text=1))
    await host.registry.execute(ToolRequest("Boom", {}))
    assert seen == [None, "UNKNOWN_TOOL", "INVALID_ARGS", "TOOL_ERROR"]


@pytest.mark.parametrize(
    "build",
    [
        lambda: PostToolDecision.accept(content=["not a block"]),  # type: ignore[arg-type]
        lambda: PostToolDecision.block(None),  # type: ignore[arg-type]
        lambda: PostToolDecision.accept(additional_context=[1]),  # type: ignore[list-item]
        lambda: PreToolDecision.deny(42),  # type: ignore[arg-type]
        lambda: PreToolDecision.ask(None),  # type: ignore[arg-type]
        lambda: GuardDenial(None),  # type: ignore[arg-type]
    ],
)
def test_decisions_check_their_arguments(build: Any) -> None:
    with pytest.raises(TypeError):
        build()


# -- the three views ----------------------------------------------------------------


async def test_observers_the_caller_and_the_log_see_the_same_result() -> None:
    host = Host()
    observed: list[tuple[ToolCall, ToolResult]] = []
    host.ctx.on(RESULT, lambda call, result: observed.append((call, result)))

    @host.ctx.on(POST_EXECUTE)
    async def decorate(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        return PostToolDecision.block("note this", content="replaced")

    results: list[ToolExecutionResult] = []
    for request in (echo("a", tags=["x"]), ToolRequest("Boom", {}), ToolRequest("Nope", {})):
        results.append(await host.registry.execute(request))
    assert [(r.call, r.result) for r in results] == observed
    for (call, result), res in zip(observed, results, strict=True):
        assert result is res.result
        assert call is res.call
        logged = json.loads(json.dumps(_log_record(res)))
        assert logged == _log_record(res)
        assert logged["output"] == thaw_json(result.output)
        assert logged["info"] == thaw_json(result.info)


def _log_record(res: ToolExecutionResult) -> dict[str, Any]:
    r = res.result
    content = (
        r.content
        if isinstance(r.content, str)
        else [{"type": b.type, "text": getattr(b, "text", None)} for b in r.content]
    )
    return {
        "token": str(res.call.token),
        "arguments": thaw_json(res.call.arguments),
        "content": content,
        "output": thaw_json(r.output),
        "is_error": r.is_error,
        "code": r.code,
        "info": thaw_json(r.info),
        "dispatched": res.dispatched,
    }


@pytest.mark.parametrize(
    "build",
    [
        lambda: PostToolDecision("replace"),  # type: ignore[call-arg]
        lambda: PostToolAccept(content=[1]),  # type: ignore[arg-type]
        lambda: PostToolBlock(),  # type: ignore[call-arg]
        lambda: PreToolDeny(),  # type: ignore[call-arg]
        lambda: PreToolDecision("maybe"),  # type: ignore[call-arg]
        lambda: PreToolAllow(additional_context=("ok", 2)),  # type: ignore[arg-type]
        lambda: PreToolDeny("no", info={1, 2}),
    ],
)
def test_decisions_built_directly_are_checked_too(build: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        build()
