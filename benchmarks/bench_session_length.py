"""Per-step time at the start and the end of long sessions: is a step's cost flat?

Run: .venv/bin/python benchmarks/bench_session_length.py [--calls 10,100,1000] [--rounds 3]

One turn of N tool calls (one no-op tool call per step, then a text answer),
through the real loop and the JSONL store (a durable append per event), with
a compaction budget set high enough never to fire (so its size check runs
every step, as it does whenever a budget is set). The model is either a
scripted one in the process (O(1) per call) or ``OpenAICompatibleModel``
streaming from a loopback server in another process that reads each body
whole and answers with one canned chunk. A step's time is the CPU time of this
process between two consecutive model calls (tool, logging, the next request
built, the call), so fsync waits and the other processes sharing the machine
stay out of it.

Each configuration runs twice per round, interleaved: ``incremental`` (this
tree: the view kept as events are logged, the body built once per message)
and ``full`` (the same process with main's behaviour restored: the whole log
re-projected, the budget summed and the body encoded from scratch every
step). Printed: the mean step of the first and the last 10% of steps (medians
over rounds), last/first (target ≤ 1.2), full/incremental for the last 10%, and
last/first again with each window's slowest and fastest tenth of steps left
out (a check against the shared machine's stray slow steps, not a new target).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dsh.agent import AgentOptions
from dsh.agent._core import AgentCore
from dsh.agent._history_size import HistorySize, message_chars
from dsh.host import HostOptions, assemble
from dsh.messages import AssistantMessage, ModelMessage, ToolUse
from dsh.models import ModelRequest, OpenAICompatibleModel, TextCallback
from dsh.session import JsonlSessionStore, project
from dsh.tools import ToolDefinition, ToolInvocation, ToolResult

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
RESULT = ToolResult.ok("ok: " + "x" * 200)

SERVER = r"""
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
calls = int(sys.argv[1])
seen = 0
def chunk(delta):
    return ("data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]}) + "\n\n").encode()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def log_message(self, *a): pass
    def do_POST(self):
        global seen
        self.rfile.read(int(self.headers["Content-Length"]))
        seen += 1
        if seen <= calls:
            call = {"index": 0, "id": f"c{seen}", "type": "function",
                    "function": {"name": "Noop", "arguments": json.dumps({"n": seen})}}
            body = chunk({"role": "assistant", "tool_calls": [call]})
        else:
            seen = 0
            body = chunk({"role": "assistant", "content": "done"})
        body += b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
"""


async def noop(inv: ToolInvocation) -> ToolResult:
    return RESULT


class Scripted:
    """N tool calls, then text; O(1) per call."""

    name = "scripted"

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.seen = 0

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        self.seen += 1
        if self.seen <= self.calls:
            return AssistantMessage("", (ToolUse(f"c{self.seen}", "Noop", {"n": self.seen}),))
        return AssistantMessage("done")


class Timed:
    """Records when each model call begins; ``full`` builds the body from scratch each time."""

    def __init__(self, inner: Any, full: bool) -> None:
        self.inner = inner
        self.full = full
        self.marks: list[float] = []

    @property
    def name(self) -> str:
        return str(self.inner.name)

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        self.marks.append(time.process_time())
        if self.full and isinstance(self.inner, OpenAICompatibleModel):
            self.inner.chat._encoder = None
        reply: AssistantMessage = await self.inner.complete(request, on_text=on_text)
        return reply


def _full_projection(self: AgentCore) -> tuple[ModelMessage, ...]:
    return tuple(project(self.session.events))


def _full_size(self: HistorySize, view: tuple[ModelMessage, ...]) -> int:
    return sum(message_chars(m) for m in view)


@contextmanager
def mains_path(full: bool) -> Iterator[None]:
    """Main's per-step work restored in this process while the block runs (``full``)."""
    saved = AgentCore.projection, HistorySize.chars
    if full:
        AgentCore.projection = _full_projection  # type: ignore[method-assign]
        HistorySize.chars = _full_size  # type: ignore[method-assign]
    try:
        yield
    finally:
        AgentCore.projection, HistorySize.chars = saved  # type: ignore[method-assign]


async def one_session(root: Path, model: Any, calls: int, full: bool) -> list[float]:
    timed = Timed(model, full)
    store = JsonlSessionStore(root / "sessions")
    options = HostOptions(
        project=root,
        model=timed,
        store=store,
        builtin_tools=False,
        agent=AgentOptions(max_steps=calls + 5, compact_budget=10**12),
    )
    assembly = assemble(options)
    assembly.registry.register(ToolDefinition("Noop", "does nothing", SCHEMA, noop))
    agent = assembly.agent(store.create())
    with mains_path(full):
        agent.send("go")
        result = await agent.run_turn()
    await agent.close("other")
    agent.session.close()
    assert result.steps == calls + 1, result
    marks = timed.marks
    return [b - a for a, b in itertools.pairwise(marks)]


def ends(steps: list[float]) -> tuple[float, float]:
    k = max(1, len(steps) // 10)
    return statistics.fmean(steps[:k]), statistics.fmean(steps[-k:])


def trimmed_ends(steps: list[float]) -> tuple[float, float]:
    """``ends`` without each window's slowest and fastest tenth of steps.

    On a shared machine one step descheduled mid-syscall or caught by the host's
    own work costs 1-17 ms, which moves a 100-step mean by up to 15 %; what the
    history costs every step stays in the trimmed mean.
    """
    k = max(1, len(steps) // 10)
    return _trimmed(steps[:k]), _trimmed(steps[-k:])


def _trimmed(window: list[float]) -> float:
    cut = len(window) // 10
    ordered = sorted(window)
    return statistics.fmean(ordered[cut : len(ordered) - cut])


@contextmanager
def mock_server(calls: int) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(calls)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.kill()
        proc.wait()


Ends = tuple[tuple[float, float], tuple[float, float]]  # (mean ends, trimmed ends)


async def measure(kind: str, calls: int, rounds: int) -> dict[str, list[Ends]]:
    out: dict[str, list[Ends]] = {"incremental": [], "full": []}
    with tempfile.TemporaryDirectory() as tmp, mock_server(calls) as url:
        for mode in ("incremental", "full"):  # warm-up: first-use costs land here
            root = Path(tmp) / f"warm-{mode}"
            root.mkdir()
            warm: Any = Scripted(3)
            if kind == "http":
                warm = OpenAICompatibleModel("m", base_url=url, api_key="k", max_retries=0)
                async with warm:
                    await one_session(root, warm, calls, mode == "full")
            else:
                await one_session(root, warm, 3, mode == "full")
        for r in range(rounds):
            order = ("incremental", "full") if r % 2 == 0 else ("full", "incremental")
            for mode in order:
                root = Path(tmp) / f"{mode}{r}"
                root.mkdir()
                model: Any = Scripted(calls)
                if kind == "http":
                    model = OpenAICompatibleModel("m", base_url=url, api_key="k", max_retries=0)
                steps = await one_session(root, model, calls, mode == "full")
                if kind == "http":
                    await model.aclose()
                out[mode].append((ends(steps), trimmed_ends(steps)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", default="10,100,1000")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(
        "model   calls  mode         first10% ms  last10% ms  last/first  full/incr(last)"
        "  trimmed last/first"
    )
    for kind in ("scripted", "http"):
        for calls in (int(c) for c in args.calls.split(",")):
            got = asyncio.run(measure(kind, calls, args.rounds))
            med = {mode: _medians(v) for mode, v in got.items()}
            for mode in ("incremental", "full"):
                (first, last), (t_first, t_last) = med[mode]
                ratio = med["full"][0][1] / med["incremental"][0][1]
                print(
                    f"{kind:8}{calls:6}  {mode:11}  {first:11.3f}  {last:10.3f}"
                    f"  {last / first:10.2f}  {ratio:15.2f}  {t_last / t_first:18.2f}"
                )


def _medians(rounds: list[Ends]) -> Ends:
    """Per statistic, the medians over rounds of the first and the last windows, in ms."""
    pairs = []
    for which in (0, 1):
        firsts = [r[which][0] for r in rounds]
        lasts = [r[which][1] for r in rounds]
        pairs.append((statistics.median(firsts) * 1e3, statistics.median(lasts) * 1e3))
    return pairs[0], pairs[1]


if __name__ == "__main__":
    main()
