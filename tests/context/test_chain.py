"""The one waterfall runner: one semantics for a listener that raises or answers wrong."""

from __future__ import annotations

import pytest

from dsh.context import ChannelError, Context, ListenerError, Next, WaterfallChannel
from dsh.context._chain import run_waterfall

CHAIN: WaterfallChannel[str, list[str]] = WaterfallChannel(
    "test/chain", default=lambda trail: "default", returns=str
)


async def outer(trail: list[str], next: Next[str]) -> str:
    try:
        return await next()
    except KeyError:
        trail.append("outer swallowed it")
        return "outer answer"


async def broken(trail: list[str], next: Next[str]) -> str:
    raise KeyError("inner broke")


async def test_the_first_failure_stands_even_when_an_outer_listener_swallows_it() -> None:
    ctx = Context()
    ctx.on(CHAIN, outer)
    ctx.on(CHAIN, broken)
    trail: list[str] = []
    with pytest.raises(KeyError, match="inner broke"):
        await ctx.waterfall(CHAIN, trail)
    assert trail == ["outer swallowed it"]


async def test_the_runner_names_the_listener_and_the_channel() -> None:
    with pytest.raises(ListenerError) as caught:
        await run_waterfall("test/chain", (outer, broken), ([],), lambda: "default", str)
    failure = caught.value
    assert failure.listener is broken
    assert failure.channel == "test/chain"
    assert isinstance(failure.error, KeyError)
    assert "broken on channel test/chain failed: KeyError" in str(failure)


async def test_a_wrong_answer_is_a_channel_error_naming_the_expected_type() -> None:
    async def forgetful(trail: list[str], next: Next[str]) -> str:
        return 3  # type: ignore[return-value]

    with pytest.raises(ListenerError) as caught:
        await run_waterfall("test/chain", (forgetful,), ([],), lambda: "default", str)
    assert isinstance(caught.value.error, ChannelError)
    assert "returned int, not a str" in str(caught.value.error)


async def test_an_empty_chain_is_its_default() -> None:
    assert await run_waterfall("test/chain", (), ([],), lambda: "default", str) == "default"
