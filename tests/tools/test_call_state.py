"""A call's slot (``call.state``): from sealing to the ``tools/result`` observers, then dropped.

Through the real registry: what a listener keeps at one phase is read at a
later one, each call has its own slot, and whatever the end of a call, the
slot holds nothing once the result is final, so 10,000 calls leave nothing
behind.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from dsh.base import AbortSignal
from dsh.context import Next
from dsh.tools import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    REWRITE_INPUT,
    CallState,
    CallStateKey,
    ExecuteNext,
    GuardDenial,
    InputRewrite,
    PostToolDecision,
    PreToolDecision,
    ProposedCall,
    ToolCall,
    ToolExecution,
    ToolRequest,
    ToolResult,
)
from dsh.tools._seal import SealFailure
from tests.tools.support import Host, echo


class Marker:
    """Something a listener keeps for a call (weakly referable, to see it freed)."""


@dataclass
class Seen:
    phases: list[str]
    marker: Marker


SEEN: CallStateKey[Seen] = CallStateKey("test.seen")


def mark(state: CallState, phase: str) -> None:
    seen = state.get(SEEN)
    if seen is None:
        seen = state[SEEN] = Seen([], Marker())
    seen.phases.append(phase)


# -- the slot itself --------------------------------------------------------------------


def test_a_slot_is_read_and_written_by_typed_keys_compared_by_identity() -> None:
    state = CallState()
    count: CallStateKey[int] = CallStateKey("count")
    twin: CallStateKey[int] = CallStateKey("count")
    assert state.get(count) is None
    assert state.get(count, 0) == 0
    assert count not in state
    with pytest.raises(KeyError):
        state[count]
    state[count] = 3
    assert state[count] == 3
    assert count in state
    assert twin not in state  # one name, two keys: two entries
    assert state.get(twin) is None
    assert len(state) == 1
    assert repr(state) == "<CallState [count]>"
    assert repr(count) == "<CallStateKey 'count'>"
    assert state.pop(count) == 3
    assert state.pop(count, None) is None
    with pytest.raises(KeyError):
        state.pop(count)
    # A copy of a call shares its slot, as it shares its token.
    assert copy.copy(state) is state
    assert copy.deepcopy(state) is state


# -- from seal to tools/result ------------------------------------------------------------


async def test_what_a_listener_keeps_at_one_phase_it_reads_at_the_later_ones() -> None:
    host = Host()
    slots: list[CallState] = []
    read: dict[str, Any] = {}
    started: CallStateKey[str] = CallStateKey("test.started")

    @host.ctx.on(REWRITE_INPUT)
    async def rewrite(call: ProposedCall) -> InputRewrite | None:
        slots.append(call.state)
        call.state[started] = "at rewrite-input"
        return None

    @host.ctx.on(PRE_EXECUTE)
    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        slots.append(call.state)
        read["pre"] = call.state.get(started)
        call.state[started] = "at pre-execute"
        return await next()

    @host.ctx.on(EXECUTE)
    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        read["execute"] = ex.call.state.get(started)
        return await next()

    @host.ctx.on(POST_EXECUTE)
    async def post(call: ToolCall, result: ToolResult, next: Next[PostToolDecision]) -> Any:
        read["post"] = call.state.get(started)
        return await next()

    @host.ctx.on(RESULT)
    def observe(call: ToolCall, result: ToolResult) -> None:
        slots.append(call.state)
        read["result"] = call.state.get(started)

    res = await host.registry.execute(echo("x"))
    assert res.result.is_error is False
    assert read == {
        "pre": "at rewrite-input",
        "execute": "at pre-execute",
        "post": "at pre-execute",
        "result": "at pre-execute",
    }
    # One slot from the rewriters' ProposedCall to the observers'; not part of identity.
    assert slots[0] is slots[1] is slots[2] is res.call.state
    assert "state" not in repr(res.call)
    # Dropped once the observers have seen the result.
    assert res.call.state.get(started) is None
    assert len(res.call.state) == 0


async def test_a_rewritten_call_keeps_the_slot_of_the_call_it_was() -> None:
    host = Host()
    before: CallStateKey[str] = CallStateKey("test.before")
    read: list[str | None] = []

    @host.ctx.on(REWRITE_INPUT)
    async def rewrite(call: ProposedCall) -> InputRewrite | None:
        call.state[before] = str(call.arguments["text"])
        return InputRewrite.replace({"text": "rewritten"})

    @host.ctx.on(POST_EXECUTE)
    async def post(call: ToolCall, result: ToolResult, next: Next[PostToolDecision]) -> Any:
        read.append(call.state.get(before))
        return await next()

    res = await host.registry.execute(echo("original"))
    assert res.call.arguments["text"] == "rewritten"
    assert read == ["original"]


async def test_calls_running_at_once_each_have_their_own_slot() -> None:
    host = Host()
    text: CallStateKey[str] = CallStateKey("test.text")
    inside = 0
    all_inside = asyncio.Event()
    read: list[tuple[str, str | None]] = []

    @host.ctx.on(PRE_EXECUTE)
    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        call.state[text] = str(call.arguments["text"])
        return await next()

    @host.ctx.on(EXECUTE)
    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        nonlocal inside
        inside += 1
        if inside == 3:
            all_inside.set()
        await all_inside.wait()  # every call has written its slot before any goes on
        return await next()

    @host.ctx.on(POST_EXECUTE)
    async def post(call: ToolCall, result: ToolResult, next: Next[PostToolDecision]) -> Any:
        read.append((str(call.arguments["text"]), call.state.get(text)))
        return await next()

    results = await asyncio.gather(*(host.registry.execute(echo(t)) for t in ("a", "b", "c")))
    assert [r.result.content for r in results] == ["a", "b", "c"]
    assert sorted(read) == [("a", "a"), ("b", "b"), ("c", "c")]


# -- every end drops it -------------------------------------------------------------------


def _deny_at_pre(host: Host) -> None:
    @host.ctx.on(PRE_EXECUTE)
    async def deny(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.deny("no")


def _ask_at_pre(host: Host) -> None:
    @host.ctx.on(PRE_EXECUTE)
    async def ask(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.ask("may I?")  # no approval service: denied


def _fail_at_pre(host: Host) -> None:
    @host.ctx.on(PRE_EXECUTE)
    async def fail(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        raise RuntimeError("broken policy")


def _guard(host: Host) -> None:
    host.registry.guard(lambda call: GuardDenial("guarded"))


def _bad_rewrite(host: Host) -> None:
    @host.ctx.on(REWRITE_INPUT)
    async def bad(call: ProposedCall) -> InputRewrite | None:
        return InputRewrite.replace({"text": 5})


def _nothing(host: Host) -> None:
    pass


ENDS: list[tuple[str, Callable[[Host], None], ToolRequest, str | None, list[str]]] = [
    ("success", _nothing, echo("x"), None, ["rewrite", "pre", "post"]),
    ("tool error", _nothing, ToolRequest("Boom", {}), "TOOL_ERROR", ["rewrite", "pre", "post"]),
    ("denied", _deny_at_pre, echo("x"), "DENIED", ["rewrite", "pre", "post"]),
    ("approval", _ask_at_pre, echo("x"), "DENIED", ["rewrite", "pre", "post"]),
    ("guard", _guard, echo("x"), "DENIED", ["rewrite", "pre", "post"]),
    ("listener error", _fail_at_pre, echo("x"), "LISTENER_ERROR", ["rewrite", "pre", "post"]),
    ("unknown tool", _nothing, ToolRequest("Nope", {}), "UNKNOWN_TOOL", ["pre", "post"]),
    ("invalid args", _nothing, echo(5), "INVALID_ARGS", ["post"]),
    ("invalid rewrite", _bad_rewrite, echo("x"), "INVALID_ARGS", ["rewrite", "post"]),
]


def _marking(host: Host, seen_at_result: list[Seen | None]) -> None:
    """Listeners that keep a ``Seen`` in the call's slot at every phase they reach."""

    @host.ctx.on(REWRITE_INPUT)
    async def rewrite(call: ProposedCall) -> InputRewrite | None:
        mark(call.state, "rewrite")
        return None

    @host.ctx.on(PRE_EXECUTE)
    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        mark(call.state, "pre")
        return await next()

    @host.ctx.on(POST_EXECUTE)
    async def post(call: ToolCall, result: ToolResult, next: Next[PostToolDecision]) -> Any:
        mark(call.state, "post")
        return await next()

    @host.ctx.on(RESULT)
    def observe(call: ToolCall, result: ToolResult) -> None:
        seen_at_result.append(call.state.get(SEEN))


def assert_dropped(state: CallState, marker: weakref.ref[Marker]) -> None:
    assert len(state) == 0
    assert state.get(SEEN) is None
    assert marker() is None  # what the slot held is freed, while the call itself lives on
    with pytest.raises(RuntimeError, match="result is final"):
        state[SEEN] = Seen([], Marker())
    assert repr(state) == "<CallState dropped>"


@pytest.mark.parametrize(
    ("setup", "request_", "code", "phases"),
    [end[1:] for end in ENDS],
    ids=[end[0] for end in ENDS],
)
async def test_whatever_the_end_the_slot_lives_to_the_result_and_is_dropped(
    setup: Callable[[Host], None], request_: ToolRequest, code: str | None, phases: list[str]
) -> None:
    host = Host()
    seen: list[Seen | None] = []
    _marking(host, seen)
    setup(host)
    res = await host.registry.execute(request_, agent=host.agent())
    assert res.result.code == code
    assert seen[0] is not None
    assert seen[0].phases == phases
    marker = weakref.ref(seen[0].marker)
    seen.clear()
    assert_dropped(res.call.state, marker)


async def test_an_aborted_call_drops_its_slot() -> None:
    for when in ("before", "during"):
        host = Host()
        seen: list[Seen | None] = []
        _marking(host, seen)
        signal = AbortSignal()
        if when == "before":
            signal.abort("stop")
            res = await host.registry.execute(echo("x"), signal=signal)
        else:
            task = asyncio.create_task(
                host.registry.execute(ToolRequest("Sleepy", {}), signal=signal)
            )
            await host.gate.wait()
            signal.abort("stop")
            res = await task
        assert res.result.code == ("ABORTED_BEFORE_DISPATCH" if when == "before" else "ABORTED")
        assert seen[0] is not None
        assert seen[0].phases == (["post"] if when == "before" else ["rewrite", "pre", "post"])
        marker = weakref.ref(seen[0].marker)
        seen.clear()
        assert_dropped(res.call.state, marker)


async def test_the_callers_cancellation_drops_the_slot() -> None:
    host = Host()
    seen: list[Seen | None] = []
    _marking(host, seen)
    slots: list[CallState] = []

    @host.ctx.on(EXECUTE)
    async def keep(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        slots.append(ex.call.state)
        return await next()

    task = asyncio.create_task(host.registry.execute(ToolRequest("Sleepy", {})))
    await host.gate.wait()
    marker = weakref.ref(slots[0][SEEN].marker)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == []  # no result: the call ended with the caller
    assert_dropped(slots[0], marker)


async def test_a_sealed_call_that_is_never_run_takes_its_slot_with_it() -> None:
    host = Host()
    seen: list[Seen | None] = []
    _marking(host, seen)
    sealed = await host.registry.seal(echo("x"))
    assert not isinstance(sealed, SealFailure)
    marker = weakref.ref(sealed.state[SEEN].marker)
    del sealed
    assert marker() is None


# -- no growth ----------------------------------------------------------------------------


async def test_ten_thousand_calls_leave_nothing_in_their_slots() -> None:
    host = Host()
    seen: list[Seen | None] = []
    _marking(host, seen)
    markers: weakref.WeakSet[Marker] = weakref.WeakSet()

    @host.ctx.on(RESULT)
    def watch(call: ToolCall, result: ToolResult) -> None:
        state = call.state.get(SEEN)
        assert state is not None
        markers.add(state.marker)
        seen.clear()

    async def calls(n: int) -> list[Any]:
        # The results are kept, as a session keeps its calls: the slots still empty.
        kept = []
        for i in range(n):
            request = echo("x") if i % 2 else ToolRequest("Nope", {})
            kept.append(await host.registry.execute(request))
            host.ledger.invocations.clear()  # the test tool's own record of its calls
        return kept

    await calls(100)  # first-call caches
    gc.collect()
    before = len(gc.get_objects())
    kept = await calls(10_000)
    assert sum(len(r.call.state) for r in kept) == 0
    assert len(markers) == 0
    del kept
    gc.collect()
    # Nothing grows with the number of calls (a table of 10,000 calls would be far more).
    assert len(gc.get_objects()) - before < 1_000
