"""Durable appends and reloads of the JSONL session store, beside raw baselines.

Run: .venv/bin/python benchmarks/bench_session.py
Prints events/s for batched appends (100k small events, 100 per group commit)
and one-at-a-time appends (10k: each is its own fsync), and the seconds to
reload 100k events (small ones, and a tool call/result mix). Baselines from
the same process: raw ``write`` + ``fsync`` of pre-encoded lines (the disk's
floor), and ``json.loads`` + a plain dataclass per line (the decode floor).
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dsh.session import (
    JsonlSessionStore,
    NoticeEvent,
    SessionEvent,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)

N = 100_000
N_SINGLE = 10_000
BATCH = 100
ROUNDS = 3


def small_events(n: int) -> list[SessionEvent]:
    return [
        UserMessageEvent(turn_id="t1", content=f"message {i}")
        if i % 2
        else NoticeEvent(turn_id="t1", text=f"notice {i}")
        for i in range(n)
    ]


def tool_events(n: int) -> list[SessionEvent]:
    out: list[SessionEvent] = []
    for i in range(n // 2):
        out.append(
            ToolCallEvent(
                turn_id="t1",
                token=f"tok{i}",
                tool_use_id=f"call{i}",
                tool_name="Read",
                arguments={"path": f"/src/file{i}.py", "limit": 200},
            )
        )
        out.append(
            ToolResultEvent(
                turn_id="t1",
                token=f"tok{i}",
                tool_use_id=f"call{i}",
                content=f"contents of file {i}",
                output={"lines": 20, "truncated": False},
            )
        )
    return out


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def append_batched(store: JsonlSessionStore, events: list[SessionEvent]) -> str:
    with store.create() as log:
        for i in range(0, len(events), BATCH):
            log.append_many(events[i : i + BATCH])
        return log.id


def append_single(store: JsonlSessionStore, events: list[SessionEvent]) -> str:
    with store.create() as log:
        for event in events:
            log.append(event)
        return log.id


def raw_write(path: Path, lines: list[bytes], batch: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for i in range(0, len(lines), batch):
            os.write(fd, b"".join(lines[i : i + batch]))
            os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlainEvent:
    type: str
    id: str
    session_id: str
    turn_id: str | None
    seq: int
    time: float
    text: str = ""
    content: str = ""
    source: str = ""
    level: str = ""


def plain_decode(path: Path) -> int:
    was = gc.isenabled()
    gc.disable()
    try:
        lines = path.read_bytes().decode().split("\n")[1:-1]
        return len([PlainEvent(**json.loads(line)) for line in lines])
    finally:
        if was:
            gc.enable()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-session-") as tmp:
        store = JsonlSessionStore(Path(tmp))
        events = small_events(N)

        batched = [timed(lambda: append_batched(store, events)) for _ in range(ROUNDS)]
        sid = append_batched(store, events)
        single = timed(lambda: append_single(store, events[:N_SINGLE]))

        path = store.log_path(sid)
        lines = path.read_bytes().splitlines(keepends=True)[1:]
        raw_batched = timed(lambda: raw_write(Path(tmp) / "raw100.jsonl", lines, BATCH))
        raw_single = timed(lambda: raw_write(Path(tmp) / "raw1.jsonl", lines[:N_SINGLE], 1))

        reload_small = [timed(lambda: store.load(sid)) for _ in range(ROUNDS)]
        plain = [timed(lambda: plain_decode(path)) for _ in range(ROUNDS)]
        assert len(store.load(sid)) == N

        tool_sid = append_batched(store, tool_events(N))
        reload_tools = [timed(lambda: store.load(tool_sid)) for _ in range(ROUNDS)]
        size_small = path.stat().st_size / N
        size_tools = store.log_path(tool_sid).stat().st_size / N

    b = statistics.median(batched)
    print(f"session store, {N:,} small events (~{size_small:.0f} B/line), median of {ROUNDS}")
    print(f"  append_many x{BATCH}, durable  {N / b:>10,.0f} events/s  ({b:.2f} s)")
    print(
        f"    baseline raw write+fsync x{BATCH} {N / raw_batched:>10,.0f} lines/s "
        f"(store at {raw_batched / b:.0%} of it)"
    )
    print(f"  append one at a time ({N_SINGLE:,}) {N_SINGLE / single:>10,.0f} events/s")
    print(
        f"    baseline raw write+fsync x1  {N_SINGLE / raw_single:>10,.0f} lines/s "
        f"(store at {raw_single / single:.0%} of it)"
    )
    r = statistics.median(reload_small)
    p = statistics.median(plain)
    print(f"  reload {N:,} small events     {r:>10.3f} s  (target <= 1 s)")
    print(f"    baseline json.loads + plain dataclass {p:.3f} s (store {r / p:.2f}x)")
    t = statistics.median(reload_tools)
    print(f"  reload {N:,} tool call/result events (~{size_tools:.0f} B/line) {t:.3f} s")


if __name__ == "__main__":
    main()
