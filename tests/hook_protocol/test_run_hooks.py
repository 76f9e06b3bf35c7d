"""run_hooks: concurrency, declaration order, deduplication, per-hook payloads, cancellation."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from dsh.hook_protocol import HookCommand, run_hooks
from tests.hook_protocol.support import (
    command,
    origin,
    said_group,
    script,
    wait_for_file,
    wait_gone,
)


def _times(stem: Path) -> tuple[int, int]:
    return int(Path(f"{stem}.start").read_text()), int(Path(f"{stem}.end").read_text())


async def test_hooks_run_concurrently(tmp_path: Path) -> None:
    stems = [tmp_path / f"h{i}" for i in range(4)]
    # Each waits for all four to have started (run in turn, the first would wait alone).
    every_start = tmp_path / "*.start"
    cmds = [
        command(script("record_until.sh", s, "4", every_start), index=i)
        for i, s in enumerate(stems)
    ]
    runs = await run_hooks(cmds, b"{}", dedup=False)
    assert [r.exit_code for r in runs] == [0, 0, 0, 0]
    spans = [_times(s) for s in stems]
    # Every hook started before any finished: they overlapped, not ran in turn.
    assert max(start for start, _ in spans) < min(end for _, end in spans)


async def test_results_come_back_in_declaration_order_whatever_the_finish_order(
    tmp_path: Path,
) -> None:
    stems = [tmp_path / f"h{i}" for i in range(3)]
    # Each waits for the next one to have finished; the last waits for nothing.
    after = [("1", f"{stem}.end") for stem in stems[1:]] + [("0", "-")]
    cmds = [
        command(script("record_until.sh", stem, *after[i], f"hook{i}"), index=i)
        for i, stem in enumerate(stems)
    ]
    runs = await run_hooks(cmds, b"{}", dedup=False)
    ends = [_times(s)[1] for s in stems]
    assert ends[2] < ends[1] < ends[0]  # later-declared hooks finished first
    assert [r.stdout for r in runs] == ["hook0", "hook1", "hook2"]
    assert [r.command for r in runs] == cmds


def _counting(file: Path, tag: str, index: int, *, plugin: str | None = None) -> HookCommand:
    return HookCommand(
        argv=script("count_run.sh", file, tag),
        timeout=20,
        origin=origin(index=index, plugin=plugin),
        dedup_key=None if plugin is None else (plugin, "count_run.sh", tag),
    )


async def test_dedup_runs_identical_hooks_once_and_keeps_the_first_declaration(
    tmp_path: Path,
) -> None:
    log = tmp_path / "log"
    cmds = [
        _counting(log, "a", 0),
        _counting(log, "b", 1),
        _counting(log, "a", 2),  # the same handler from another settings file
        _counting(log, "a", 3, plugin="p1"),  # a plugin's copy stays separate
        _counting(log, "a", 4, plugin="p1"),  # the same plugin twice: once
        _counting(log, "a", 5, plugin="p2"),
    ]
    runs = await run_hooks(cmds, b"{}", dedup=True)
    assert [r.command.origin.index for r in runs] == [0, 1, 3, 5]
    assert [r.stdout for r in runs] == ["a", "b", "a", "a"]
    assert sorted(log.read_text().split()) == ["a", "a", "a", "b"]


async def test_without_dedup_every_declaration_runs(tmp_path: Path) -> None:
    log = tmp_path / "log"
    cmds = [_counting(log, "a", i) for i in range(3)]
    runs = await run_hooks(cmds, b"{}", dedup=False)
    assert [r.command.origin.index for r in runs] == [0, 1, 2]
    assert log.read_text().split() == ["a", "a", "a"]


async def test_per_hook_payloads_and_dedup_keeps_different_payloads_apart() -> None:
    digest = script("stdin_digest.py")
    cmds = [command(digest, index=i) for i in range(3)]
    runs = await run_hooks(cmds, [b"one", b"two", b"one"], dedup=True)
    assert [r.command.origin.index for r in runs] == [0, 1]
    assert [r.stdout.split()[0] for r in runs] == ["3", "3"]
    assert runs[0].stdout != runs[1].stdout


async def test_payload_count_must_match() -> None:
    with pytest.raises(ValueError, match="2 commands but 1 payloads"):
        await run_hooks([command(("true",)), command(("true",))], [b"x"], dedup=False)


async def test_failures_are_contained_per_hook(tmp_path: Path) -> None:
    cmds = [
        command((str(tmp_path / "missing"),), index=0),
        command(script("exit_with.sh", "0"), index=1),
        command(script("record_sleep.sh", tmp_path / "s", "30"), timeout=0.3, index=2),
    ]
    runs = await run_hooks(cmds, b"{}", dedup=False, kill_grace=0.1)
    assert runs[0].spawn_error is not None
    assert runs[1].exit_code == 0
    assert runs[2].timed_out


async def test_cancelling_run_hooks_kills_every_group(tmp_path: Path) -> None:
    pidfiles = [tmp_path / f"p{i}" for i in range(3)]
    cmds = [command(script("pidfile_sleep.sh", p), index=i) for i, p in enumerate(pidfiles)]
    task = asyncio.create_task(run_hooks(cmds, b"{}", dedup=False))
    groups = [said_group(await wait_for_file(p)) for p in pidfiles]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for pgid, pids in groups:
        assert await wait_gone(pgid, *pids) == []


async def test_no_hooks_is_no_runs() -> None:
    assert await run_hooks([], b"{}", dedup=True) == ()


async def test_whoever_waits_is_told_once_every_hook_has_started_before_any_ends(
    tmp_path: Path,
) -> None:
    from dsh.base._hooks_started import telling_hooks_started

    gate = tmp_path / "gate"
    # Each hook can end only once the gate exists, which only being told makes: told after
    # the last one ended, they would time out instead.
    wait = f'while [ ! -e "{gate}" ]; do sleep 0.01; done'
    cmds = [command(("sh", "-c", wait), timeout=10.0, index=i) for i in range(3)]
    told: list[int] = []

    def tell() -> None:
        told.append(len(told))
        gate.touch()

    with telling_hooks_started(tell):
        runs = await run_hooks(cmds, b"{}", dedup=False)
    assert [(r.exit_code, r.timed_out) for r in runs] == [(0, False)] * 3
    assert told == [0]
    # Outside the block nobody is told, and a hook that cannot start counts as started.
    gate.unlink()
    missing = command((str(tmp_path / "absent"),))
    with telling_hooks_started(tell):
        (run,) = await run_hooks([missing], b"{}", dedup=False)
    assert run.spawn_error is not None
    assert told == [0, 1]
    await run_hooks([command(("true",))], b"{}", dedup=False)
    assert told == [0, 1]
