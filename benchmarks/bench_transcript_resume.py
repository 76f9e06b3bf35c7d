"""The Claude Code transcript writer's first sync on a resumed session: taken up vs rewritten.

Run: .venv/bin/python benchmarks/bench_transcript_resume.py [--events 100000] [--rounds 3]

A log of the ``bench_resume`` mix; its transcript is written once, then a new
``TranscriptWriter`` (what a resumed ``dsh run`` makes) syncs the same log plus
one new prompt: it takes the file up and appends one line. The baseline, in
the same process and rounds, is the same first sync when the file does not
hold the log's transcript (what every resume did before): the whole history
projected, encoded and written again. CPU seconds (``time.process_time``),
medians.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench_resume import history

from dsh.hooks.claude.transcript._projection import TranscriptWriter
from dsh.session import SessionEvent, UserMessageEvent


def first_sync(path: Path, events: list[SessionEvent]) -> float:
    writer = TranscriptWriter(path, session_id="s", permission_mode="default")
    start = time.process_time()
    writer.sync(events, cwd=path.parent)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    events = history(args.events)
    resumed = [*events, UserMessageEvent(content="next")]
    adopted: list[float] = []
    whole: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-transcript-") as tmp:
        path = Path(tmp) / "s.jsonl"
        for _ in range(args.rounds):
            first_sync(path, events)  # the previous run's transcript
            adopted.append(first_sync(path, resumed))
            path.write_text("another history\n")
            whole.append(first_sync(path, resumed))
        size = path.stat().st_size / 2**20
    a, w = statistics.median(adopted), statistics.median(whole)
    print(f"{args.events:,} events ({size:.1f} MiB transcript), medians of {args.rounds}")
    print(f"  first sync, file taken up  {a * 1e3:9.1f} ms CPU")
    print(f"  first sync, rewritten whole {w * 1e3:8.1f} ms CPU  (taken up: {w / a:.0f}x less)")


if __name__ == "__main__":
    main()
