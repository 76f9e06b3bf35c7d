"""Where a long session's HTTP step grows: the request's write, the view, the body's encoding.

Run: .venv/bin/python benchmarks/bench_request_write.py [--calls 1000] [--rounds 3]

The session of ``bench_session_length.py`` over HTTP (one no-op tool call a
step against the loopback mock), with three parts of each step timed in this
thread's CPU time: the request written to the socket (``Connection.send`` or
``send_parts``, the kernel's copy of the history into the socket included),
the projection's view (``Projection.messages``) and the body's encoding
(``ChatBodyEncoder.encode``). Printed per part: the mean per step over the
first and the last 10 % of steps (medians over rounds) and the difference,
beside the whole step's, so what the history costs each request is read off
directly rather than inferred.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_session_length as length

from dsh.models import OpenAICompatibleModel
from dsh.models._chat_body import ChatBodyEncoder
from dsh.models._http_conn import Connection
from dsh.session import Projection

PARTS: dict[str, list[tuple[type, str]]] = {
    "request write": [(Connection, "send"), (Connection, "send_parts")],
    "view": [(Projection, "messages")],
    "encode": [(ChatBodyEncoder, "encode")],
}


class Meter:
    """CPU time per part, for the step under way (``step`` is set by the model's wrapper)."""

    def __init__(self) -> None:
        self.step = 0
        self.spent: defaultdict[tuple[int, str], float] = defaultdict(float)

    def timed(self, part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        if asyncio.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                start = time.thread_time()
                try:
                    return await fn(*args, **kwargs)
                finally:
                    self.spent[self.step, part] += time.thread_time() - start

            return timed_async

        @functools.wraps(fn)
        def timed_sync(*args: Any, **kwargs: Any) -> Any:
            start = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent[self.step, part] += time.thread_time() - start

        return timed_sync


async def one_round(
    meter: Meter, root: Path, url: str, calls: int
) -> dict[str, tuple[float, float]]:
    model = OpenAICompatibleModel("m", base_url=url, api_key="k", max_retries=0)
    counting = length.Timed.complete

    async def complete(self: length.Timed, request: Any, **kw: Any) -> Any:
        meter.step += 1
        return await counting(self, request, **kw)

    meter.step, meter.spent = 0, defaultdict(float)
    length.Timed.complete = complete  # type: ignore[method-assign]
    try:
        steps = await length.one_session(root, model, calls, False)
    finally:
        length.Timed.complete = counting  # type: ignore[method-assign]
        await model.aclose()
    k = max(1, len(steps) // 10)
    # Step i runs from model call i to call i + 1: its parts are those counted under i + 1.
    first, last = range(2, k + 2), range(len(steps) - k + 2, len(steps) + 2)
    out = {"step": length.ends(steps)}
    for part in PARTS:
        spent = [[meter.spent[i, part] for i in window] for window in (first, last)]
        out[part] = (statistics.fmean(spent[0]), statistics.fmean(spent[1]))
    return out


async def measure(calls: int, rounds: int) -> list[dict[str, tuple[float, float]]]:
    meter = Meter()
    for part, places in PARTS.items():
        for owner, name in places:
            setattr(owner, name, meter.timed(part, getattr(owner, name)))
    got = []
    with tempfile.TemporaryDirectory() as tmp, length.mock_server(calls) as url:
        for r in range(rounds + 1):  # the first round is a warm-up
            root = Path(tmp) / f"r{r}"
            root.mkdir()
            figures = await one_round(meter, root, url, calls)
            if r:
                got.append(figures)
    return got


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    got = asyncio.run(measure(args.calls, args.rounds))
    print(f"http, {args.calls} tool calls, {args.rounds} rounds: CPU µs per step")
    print("part            first 10%   last 10%   last - first")
    for part in ("step", *PARTS):
        first = statistics.median(g[part][0] for g in got) * 1e6
        last = statistics.median(g[part][1] for g in got) * 1e6
        print(f"{part:14}  {first:9.1f}  {last:9.1f}  {last - first:+12.1f}")


if __name__ == "__main__":
    main()
