"""A writer killed with SIGKILL mid-append: every acknowledged event survives, no partial one."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dsh.session import JsonlSessionStore, NoticeEvent

CHILD = Path(__file__).with_name("writer_child.py")
REPO = Path(__file__).resolve().parents[2]

# (batch size, filler bytes): small events, group commits, and events large
# enough that a kill often lands inside their write.
SHAPES = [(1, 10), (7, 40), (1, 300_000), (3, 120_000), (1, 2_000), (25, 10)]


def run_and_kill(
    store: JsonlSessionStore, sid: str, start: int, rng: random.Random, mode: str
) -> list[int]:
    batch, pad = rng.choice(SHAPES)
    argv = [sys.executable, str(CHILD), str(store.data_dir), sid, str(start), str(batch), str(pad)]
    proc = subprocess.Popen(
        [*argv, mode],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=REPO,
    )
    acked: list[int] = []
    try:
        assert proc.stdout is not None
        wanted = rng.randint(1, 12)
        while len(acked) < wanted:
            line = proc.stdout.readline()
            assert line, "the writer died before acknowledging anything"
            acked.append(int(line))
        # Land somewhere inside a later append (or between two).
        time.sleep(rng.random() * 0.004)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        rest, _ = proc.communicate(timeout=30)
    # Whatever it printed before dying was acknowledged too.
    acked.extend(int(x) for x in rest.split())
    assert proc.returncode == -signal.SIGKILL
    return acked


@pytest.mark.parametrize("mode", ["durable", "deferred"])
def test_every_acknowledged_event_survives_sigkill_and_no_partial_one_is_read(
    tmp_path: Path, mode: str
) -> None:
    """``deferred``: every other batch written with ``durable=False``, which a killed
    process loses no more of than of durable ones (the kernel has the bytes)."""
    rng = random.Random(20240611)
    store = JsonlSessionStore(tmp_path)
    log = store.create()
    sid = log.id
    log.close()
    all_acked: set[int] = set()
    count = 0
    for _ in range(14):
        all_acked.update(run_and_kill(store, sid, count, rng, mode))
        with store.open(sid) as reopened:
            events = reopened.events
            if reopened.recovered is not None:
                # The tail cut is the start of an unacknowledged event.
                assert reopened.recovered.offset == reopened.path.stat().st_size
            for seq, event in enumerate(events):
                assert isinstance(event, NoticeEvent)
                counter, _, filler = event.text.partition(":")
                assert event.seq == seq == int(counter)
                assert set(filler) == {"x"}
                assert len(filler) in {pad for _, pad in SHAPES}
            count = len(events)
            assert all_acked <= set(range(count))
