"""The hook concurrency limit: at most N hook processes at once, the rest in order, same answers.

Each hook records when its process started and ended (``time.monotonic_ns``, one clock
for every process of the machine) in a file of its own. The checks are invariants on
those intervals (never more than N alive at one instant; with N = 1, each starts after
the one declared before it ended), never durations. Then the real ``dsh run``: six
UserPromptSubmit hooks under ``DSH_HOOK_CONCURRENCY=2`` decide exactly what they decide
without it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh.hook_protocol import HookCommand, HookOrigin, run_hooks
from dsh.hook_protocol._slots import (
    default_hook_concurrency,
    hook_concurrency,
    set_hook_concurrency,
)
from tests.cli.support import run_dsh

ORIGIN = HookOrigin(source="test", event="UserPromptSubmit")

# Records its interval, sleeping so that unlimited hooks would overlap; hooks declared
# later sleep less, so that without the merge's ordering they would answer first.
RECORDER = """\
import json, os, sys, time
start = time.monotonic_ns()
index = int(sys.argv[1])
sys.stdin.read()
time.sleep(0.05 * (6 - index))
print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
      "additionalContext": f"context-{index}"}}))
end = time.monotonic_ns()
with open(os.path.join(sys.argv[2], f"{index}.json"), "w") as f:
    json.dump([start, end], f)
"""


@pytest.fixture
def limit() -> Iterator[None]:
    yield
    set_hook_concurrency(None)


def intervals(folder: Path, count: int) -> list[tuple[int, int]]:
    found = []
    for i in range(count):
        start, end = json.loads((folder / f"{i}.json").read_text())
        found.append((start, end))
    return found


def most_alive(spans: list[tuple[int, int]]) -> int:
    """The largest number of intervals that hold one instant."""
    edges = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    alive = peak = 0
    for _, step in edges:  # an end sorts before a start at the same instant
        alive += step
        peak = max(peak, alive)
    return peak


def commands(script: Path, folder: Path, count: int) -> list[HookCommand]:
    return [
        HookCommand(
            argv=(sys.executable, str(script), str(i), str(folder)), timeout=30, origin=ORIGIN
        )
        for i in range(count)
    ]


def test_the_default_is_sixteen_or_four_per_cpu(limit: None) -> None:
    assert default_hook_concurrency() >= 16
    assert hook_concurrency() == default_hook_concurrency()
    set_hook_concurrency(3)
    assert hook_concurrency() == 3
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="whole number"):
            set_hook_concurrency(bad)  # type: ignore[arg-type]


def test_at_most_the_limit_run_at_once_and_runs_keep_their_order(
    tmp_path: Path, limit: None
) -> None:
    script = tmp_path / "record.py"
    script.write_text(RECORDER)
    set_hook_concurrency(2)
    runs = asyncio.run(run_hooks(commands(script, tmp_path, 6), b"{}", dedup=False))
    assert most_alive(intervals(tmp_path, 6)) <= 2
    assert [run.exit_code for run in runs] == [0] * 6
    assert [json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"] for run in runs] == [
        f"context-{i}" for i in range(6)
    ]


def test_with_one_slot_hooks_run_one_after_another_in_declaration_order(
    tmp_path: Path, limit: None
) -> None:
    script = tmp_path / "record.py"
    script.write_text(RECORDER)
    set_hook_concurrency(1)
    asyncio.run(run_hooks(commands(script, tmp_path, 4), b"{}", dedup=False))
    spans = intervals(tmp_path, 4)
    for before, after in itertools.pairwise(spans):
        assert before[1] <= after[0]  # each started once the one declared before it ended


def test_a_queued_hooks_timeout_counts_from_its_own_start(tmp_path: Path, limit: None) -> None:
    set_hook_concurrency(1)
    slow = HookCommand(
        argv=(sys.executable, "-c", "import time; time.sleep(1.2)"), timeout=5, origin=ORIGIN
    )
    quick = HookCommand(argv=(sys.executable, "-c", "pass"), timeout=1, origin=ORIGIN)
    first, second = asyncio.run(run_hooks([slow, quick], b"", dedup=False))
    assert first.exit_code == 0
    assert (second.exit_code, second.timed_out) == (0, False)  # waited 1.2 s, then ran


def test_cancelling_a_firing_with_queued_hooks_starts_none_of_them(
    tmp_path: Path, limit: None
) -> None:
    set_hook_concurrency(1)
    marks = [tmp_path / f"ran-{i}" for i in range(3)]
    cmds = [
        HookCommand(
            argv=(sys.executable, "-c", f"open({str(m)!r}, 'w'); import time; time.sleep(30)"),
            timeout=60,
            origin=ORIGIN,
        )
        for m in marks
    ]

    async def cancel_soon() -> None:
        task = asyncio.ensure_future(run_hooks(cmds, b"", dedup=False))
        for _ in range(200):  # until the first hook has started
            await asyncio.sleep(0.02)
            if marks[0].exists():
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_soon())
    assert marks[0].exists()
    assert not marks[1].exists()
    assert not marks[2].exists()


def _session_run(tmp_path: Path, name: str, env: dict[str, str]) -> tuple[str, list[str]]:
    """A ``dsh run`` with six UserPromptSubmit hooks; its stdout and the context it logged."""
    root = tmp_path / name
    project = root / "project"
    (project / ".claude").mkdir(parents=True)
    folder = root / "spans"
    folder.mkdir()
    script = root / "record.py"
    script.write_text(RECORDER)
    hooks = [
        {"type": "command", "command": f"{sys.executable} {script} {i} {folder}"} for i in range(6)
    ]
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": hooks}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    model = root / "script.json"
    model.write_text(json.dumps({"anthropic": {"responses": [[{"type": "text", "text": "ok"}]]}}))
    sessions = root / "sessions"
    done = run_dsh(
        "run",
        "hello",
        "--model",
        f"scripted:{model}",
        "--project",
        str(project),
        "--session-dir",
        str(sessions),
        "--trust-project",
        cwd=root,
        env={"HOME": str(root / "home"), "XDG_DATA_HOME": str(root / "data"), **env},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (log,) = sessions.glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    kept = [
        json.dumps(
            {k: v for k, v in e.items() if k in ("type", "text", "content", "decision")},
            sort_keys=True,
        )
        for e in events
        if e.get("type") in ("context/message", "hook/result", "user/message")
    ]
    if name == "limited":
        assert most_alive(intervals(folder, 6)) <= 2
    shown = done.stdout.replace(str(root), "ROOT").replace(log.stem, "ID")
    return shown, kept


def test_dsh_run_under_a_limit_of_two_decides_as_without_it(tmp_path: Path) -> None:
    free_out, free_events = _session_run(tmp_path, "free", {})
    limited_out, limited_events = _session_run(tmp_path, "limited", {"DSH_HOOK_CONCURRENCY": "2"})
    assert limited_events == free_events
    assert limited_out == free_out
    contexts = [e for e in limited_events if "context/message" in e]
    assert contexts
    text = contexts[0]
    positions = [text.index(f"context-{i}") for i in range(6)]
    assert positions == sorted(positions)  # merged in declaration order, not finishing order


def test_background_hooks_never_hold_up_the_foreground(tmp_path: Path, limit: None) -> None:
    from dsh.hook_protocol._slots import in_background

    set_hook_concurrency(1)
    started = tmp_path / "started"
    sleeper = HookCommand(
        argv=(sys.executable, "-c", f"open({str(started)!r}, 'w'); import time; time.sleep(60)"),
        timeout=120,
        origin=ORIGIN,
    )
    second = HookCommand(argv=(sys.executable, "-c", "pass"), timeout=120, origin=ORIGIN)
    quick = HookCommand(argv=(sys.executable, "-c", "print('ran')"), timeout=120, origin=ORIGIN)

    async def both() -> None:
        async def background() -> None:
            with in_background():
                await run_hooks([sleeper, second], b"", dedup=False)

        task = asyncio.ensure_future(background())
        while not started.exists():
            await asyncio.sleep(0.02)
        # The background limit's one slot is held (and the second background hook waits):
        # a foreground hook still runs at once, on its own limit.
        (run,) = await run_hooks([quick], b"", dedup=False)
        assert run.stdout == "ran\n"
        assert not task.done()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(both())
