"""Resuming a long session: time to the first request, and the peak memory, of `dsh run --resume`.

Run: .venv/bin/python benchmarks/bench_resume.py [--events 1000,10000,100000] [--rounds 5]
     [--compare SRC]  (SRC: another tree's ``src``, e.g. main's from ``git archive``)

Each session is a JSONL log of a realistic mix written through the store: turns
of ten steps, each step an assistant message with one tool call, its
``tool/call`` and a ~300-character ``tool/result`` (with structured output),
the turn's prompt, start and end. For each size, ``dsh run --resume ID
--no-claude-hooks next`` runs against a loopback OpenAI-compatible server
(in this process, answering one short text); the figure is the wall time
from spawning the command to the server receiving the first request, and
the command's peak RSS (``wait4``'s ``ru_maxrss``), and the whole run's CPU
time (user + system, from ``wait4``: the figure to trust on a loaded
machine). The baseline, measured interleaved in the same rounds, is the
same command resuming a session with no events: what the run costs before
the history is involved. ``--compare SRC`` also runs every resume with
``PYTHONPATH=SRC`` (another tree's ``dsh``), interleaved in the same rounds,
and prints that tree's figures and the ratios. Medians over rounds; the targets (issue 19) are
≤ 2 s and ≤ 100 MiB at 100k events.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _loopback import LoopbackServer

from dsh.messages import ToolUse
from dsh.session import (
    AssistantMessageEvent,
    JsonlSessionStore,
    SessionEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEnd,
    TurnEndReason,
    TurnStart,
    UserMessageEvent,
)

DSH = str(Path(sys.executable).with_name("dsh"))
REPLY = (
    b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"ok"}}]}\n\n'
    b"data: [DONE]\n\n"
)


def history(n: int) -> list[SessionEvent]:
    out: list[SessionEvent] = []
    step = 0
    while len(out) < n:
        turn = f"turn{len(out)}"
        out += [TurnStart(turn_id=turn), UserMessageEvent(turn_id=turn, content=f"task {step}")]
        for _ in range(10):
            step += 1
            use = ToolUse(f"call{step}", "Read", {"file_path": f"/src/file{step}.py"})
            out.append(AssistantMessageEvent(turn_id=turn, text="", tool_calls=(use,)))
            out.append(
                ToolCallEvent(
                    turn_id=turn,
                    token=f"tok{step}",
                    tool_use_id=use.id,
                    tool_name="Read",
                    arguments=use.arguments,
                )
            )
            out.append(
                ToolResultEvent(
                    turn_id=turn,
                    token=f"tok{step}",
                    tool_use_id=use.id,
                    content=f"{step}: " + "line of source code\n" * 15,
                    output={"lines": 15, "truncated": False},
                )
            )
        out += [
            AssistantMessageEvent(turn_id=turn, text=f"done {step}"),
            TurnEnd(turn_id=turn, reason=TurnEndReason("completed")),
        ]
    return out[:n]


def text_server() -> LoopbackServer:
    """Answers every request with a short text; records when each one arrived."""
    return LoopbackServer(lambda body: REPLY)


def resume(
    server: LoopbackServer, data: Path, session_id: str, project: Path, src: str | None = None
) -> tuple[float, float, float]:
    """Seconds from spawn to the first request, the peak RSS in MiB, the run's CPU seconds."""
    argv = [DSH, "run", "--resume", session_id, "--session-dir", str(data)]
    argv += ["--project", str(project), "--no-claude-hooks"]
    argv += ["--model", "m", "--base-url", server.url, "next"]
    env = {**os.environ, "DSH_API_KEY": "k"}
    if src is not None:
        env["PYTHONPATH"] = src
    before = len(server.arrivals)
    start = time.perf_counter()
    quiet = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]
    pid = os.posix_spawn(DSH, argv, env, file_actions=quiet)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or len(server.arrivals) == before:
        raise RuntimeError(f"dsh run --resume failed: status {status}")
    cpu = usage.ru_utime + usage.ru_stime
    return server.arrivals[before] - start, usage.ru_maxrss / 1024, cpu


Figures = list[tuple[float, float, float]]


def medians(runs: Figures) -> list[float]:
    return [statistics.median(r[k] for r in runs) for k in range(3)]


def report(
    results: dict[tuple[int, str | None], Figures], ids: dict[int, str], tree: str | None
) -> None:
    print(f"-- {'this tree' if tree is None else tree}")
    base = medians(results[0, tree])
    print("events   first request s (x none)  peak RSS MiB (x none)  run CPU s (x none)")
    for n in ids:
        t, m, c = medians(results[n, tree])
        print(
            f"{n:7,}  {t:15.3f} {t / base[0]:8.2f}  {m:12.1f} {m / base[1]:7.2f}"
            f"  {c:9.3f} {c / base[2]:8.2f}"
        )


def write_sessions(data: Path, sizes: list[int]) -> dict[int, str]:
    store = JsonlSessionStore(data)
    ids: dict[int, str] = {}
    for n in sizes:
        events = history(n) if n else []
        with store.create() as log:
            for i in range(0, len(events), 1000):
                log.append_many(events[i : i + 1000])
            ids[n] = log.id
    return ids


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", default="1000,10000,100000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--compare", metavar="SRC", help="another tree's src, run interleaved")
    parser.add_argument("--write", nargs=2, metavar=("DIR", "SIZES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        ids = write_sessions(Path(args.write[0]), [int(n) for n in args.write[1].split(",")])
        print(json.dumps(ids))
        return
    sizes = [int(n) for n in args.events.split(",")]
    server = text_server()
    with tempfile.TemporaryDirectory(prefix="bench-resume-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        data = Path(tmp) / "data"
        # Written by a child process: a spawned command's ru_maxrss starts from its parent's
        # RSS at the spawn, so this process must not hold 100k events when it spawns dsh.
        argv = [sys.executable, __file__, "--write", str(data), ",".join(map(str, [0, *sizes]))]
        written = subprocess.run(argv, check=True, capture_output=True, text=True)
        ids = {int(n): sid for n, sid in json.loads(written.stdout).items()}
        store = JsonlSessionStore(data)
        trees: list[str | None] = [None] if args.compare is None else [None, args.compare]
        results: dict[tuple[int, str | None], Figures] = {(n, t): [] for n in ids for t in trees}
        for r in range(args.rounds):
            order = list(ids) if r % 2 == 0 else list(reversed(ids))
            for n in order:
                for tree in trees if r % 2 == 0 else trees[::-1]:
                    results[n, tree].append(resume(server, store.data_dir, ids[n], project, tree))
        for tree in trees:
            report(results, ids, tree)
        if args.compare is not None:
            print(f"this tree / {args.compare}:  first request, peak RSS, run CPU")
            for n in ids:
                mine, theirs = medians(results[n, None]), medians(results[n, args.compare])
                ratios = "  ".join(f"{a / b:6.2f}" for a, b in zip(mine, theirs, strict=True))
                print(f"{n:7,}  {ratios}")
        size = store.log_path(ids[sizes[-1]]).stat().st_size / 2**20
        print(f"(the {sizes[-1]:,}-event log: {size:.1f} MiB; medians of {args.rounds} rounds)")
    print("targets (issue 19): <= 2 s and <= 100 MiB at 100k events")


if __name__ == "__main__":
    main()
