"""One ordering rule per test, calling the dispatcher directly."""

from __future__ import annotations

import logging

import pytest

from dsh.context import ChannelError, Context, Next, NextCalledTwiceError
from tests.context.channels import NOTIFY, SERIAL, SYNC, WATERFALL


async def test_notify_listeners_run_in_registration_order() -> None:
    ctx = Context()
    for name in ("a", "b", "c"):

        async def listener(trail: list[str], name: str = name) -> None:
            trail.append(name)

        ctx.on(NOTIFY, listener)
    trail: list[str] = []
    await ctx.emit(NOTIFY, trail)
    assert trail == ["a", "b", "c"]


async def test_prepend_puts_a_listener_first() -> None:
    ctx = Context()

    async def a(trail: list[str]) -> None:
        trail.append("a")

    async def b(trail: list[str]) -> None:
        trail.append("b")

    ctx.on(NOTIFY, a)
    ctx.on(NOTIFY, b, prepend=True)
    trail: list[str] = []
    await ctx.emit(NOTIFY, trail)
    assert trail == ["b", "a"]


async def test_a_failing_notify_listener_is_contained_and_logged_by_name(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ctx = Context()

    async def broken(trail: list[str]) -> None:
        raise ValueError("boom")

    async def after(trail: list[str]) -> None:
        trail.append("after")

    ctx.on(NOTIFY, broken)
    ctx.on(NOTIFY, after)
    trail: list[str] = []
    with caplog.at_level(logging.ERROR, logger="dsh.context"):
        await ctx.emit(NOTIFY, trail)
    assert trail == ["after"]
    [record] = caplog.records
    assert "broken" in record.getMessage()
    assert "test/notify" in record.getMessage()


def test_a_failing_sync_listener_is_contained(caplog: pytest.LogCaptureFixture) -> None:
    ctx = Context()
    trail: list[str] = []

    def broken(t: list[str]) -> None:
        raise RuntimeError("observer failed")

    ctx.on(SYNC, broken)
    ctx.on(SYNC, lambda t: t.append("seen"))
    with caplog.at_level(logging.ERROR, logger="dsh.context"):
        ctx.emit_sync(SYNC, trail)
    assert trail == ["seen"]
    assert "broken" in caplog.records[0].getMessage()


def test_a_sync_channel_refuses_a_coroutine_function() -> None:
    ctx = Context()

    async def listener(trail: list[str]) -> None:
        trail.append("x")

    with pytest.raises(TypeError, match="synchronous listeners only"):
        ctx.on(SYNC, listener)  # type: ignore[misc]


async def test_serial_returns_the_first_non_none_answer_and_stops() -> None:
    ctx = Context()

    async def abstain(trail: list[str]) -> str | None:
        trail.append("abstain")
        return None

    async def answer(trail: list[str]) -> str | None:
        trail.append("answer")
        return "stop"

    async def never(trail: list[str]) -> str | None:
        trail.append("never")
        return "late"

    for fn in (abstain, answer, never):
        ctx.on(SERIAL, fn)
    trail: list[str] = []
    assert await ctx.serial(SERIAL, trail) == "stop"
    assert trail == ["abstain", "answer"]


async def test_serial_with_no_answer_returns_none_and_propagates_failures() -> None:
    ctx = Context()
    assert await ctx.serial(SERIAL, []) is None

    async def broken(trail: list[str]) -> str | None:
        raise KeyError("propagates")

    ctx.on(SERIAL, broken)
    with pytest.raises(KeyError):
        await ctx.serial(SERIAL, [])


async def test_waterfall_with_no_listener_returns_the_default() -> None:
    assert await Context().waterfall(WATERFALL, []) == "default"


async def test_waterfall_end_of_chain_returns_the_default() -> None:
    ctx = Context()

    async def passthrough(trail: list[str], next: Next[str]) -> str:
        trail.append("passthrough")
        return await next()

    ctx.on(WATERFALL, passthrough)
    trail: list[str] = []
    assert await ctx.waterfall(WATERFALL, trail) == "default"
    assert trail == ["passthrough"]


async def test_waterfall_listener_that_does_not_call_next_short_circuits() -> None:
    ctx = Context()

    async def decide(trail: list[str], next: Next[str]) -> str:
        return "decided"

    async def inner(trail: list[str], next: Next[str]) -> str:
        trail.append("inner ran")
        return await next()

    ctx.on(WATERFALL, decide)
    ctx.on(WATERFALL, inner)
    trail: list[str] = []
    assert await ctx.waterfall(WATERFALL, trail) == "decided"
    assert trail == []


async def test_an_outer_waterfall_listener_rewrites_the_inner_decision() -> None:
    ctx = Context()

    async def outer(trail: list[str], next: Next[str]) -> str:
        inner_decision = await next()
        return f"outer({inner_decision})"

    async def inner(trail: list[str], next: Next[str]) -> str:
        return "inner"

    ctx.on(WATERFALL, outer)
    ctx.on(WATERFALL, inner)
    assert await ctx.waterfall(WATERFALL, []) == "outer(inner)"


async def test_calling_next_twice_raises_an_error_naming_the_listener() -> None:
    ctx = Context()

    async def greedy(trail: list[str], next: Next[str]) -> str:
        await next()
        return await next()

    ctx.on(WATERFALL, greedy)
    with pytest.raises(NextCalledTwiceError, match="greedy"):
        await ctx.waterfall(WATERFALL, [])


async def test_a_waterfall_listener_returning_the_wrong_type_is_named() -> None:
    ctx = Context()

    async def forgetful(trail: list[str], next: Next[str]) -> str:
        await next()
        return None  # type: ignore[return-value]

    ctx.on(WATERFALL, forgetful)
    with pytest.raises(ChannelError, match=r"forgetful.*NoneType"):
        await ctx.waterfall(WATERFALL, [])


async def test_a_listener_added_during_dispatch_does_not_join_that_dispatch() -> None:
    ctx = Context()

    async def late(trail: list[str]) -> None:
        trail.append("late")

    async def adder(trail: list[str]) -> None:
        trail.append("adder")
        ctx.on(NOTIFY, late)

    ctx.on(NOTIFY, adder)
    first: list[str] = []
    await ctx.emit(NOTIFY, first)
    assert first == ["adder"]
    second: list[str] = []
    await ctx.emit(NOTIFY, second)
    assert second == ["adder", "late"]


async def test_a_listener_removed_during_dispatch_still_runs_in_that_dispatch() -> None:
    ctx = Context()

    async def victim(trail: list[str], next: Next[str]) -> str:
        trail.append("victim")
        return await next()

    async def remover(trail: list[str], next: Next[str]) -> str:
        trail.append("remover")
        disposer()
        return await next()

    ctx.on(WATERFALL, remover)
    disposer = ctx.on(WATERFALL, victim)
    first: list[str] = []
    await ctx.waterfall(WATERFALL, first)
    assert first == ["remover", "victim"]
    second: list[str] = []
    await ctx.waterfall(WATERFALL, second)
    assert second == ["remover"]


async def test_the_decorator_form_subscribes_and_returns_the_function() -> None:
    ctx = Context()

    @ctx.on(WATERFALL)
    async def decide(trail: list[str], next: Next[str]) -> str:
        return "from decorator"

    assert await ctx.waterfall(WATERFALL, []) == "from decorator"
    assert await decide([], _never_called) == "from decorator"


async def _never_called() -> str:
    raise AssertionError("next must not be called")
