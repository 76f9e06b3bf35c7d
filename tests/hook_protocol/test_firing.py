"""fire_hooks: a toy bridge's hooks run as real processes, logged to a real session journal.

The toy bridge (``ToyRules`` over ``ToyDecision``) is not Claude Code's: the
runtime is generic in the answer type, and everything protocol-specific comes
from the rules it is given.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from dsh.base import AbortSignal, FrozenDict
from dsh.hook_protocol import (
    HookCommand,
    HookInvocationEvent,
    HookOutcome,
    HookResultEvent,
    HookRun,
    MergedAnswers,
    RoutedSink,
    WrongEvent,
    fire_hooks,
    shell_argv,
)
from dsh.session import JsonlSessionStore, NoticeEvent, SessionEvent, SessionLog
from tests.hook_protocol.support import (
    ToyDecision,
    alive,
    command,
    said_group,
    script,
    toy_decoder,
    wait_for_file,
    wait_gone,
)
from tests.nspids import SHELL_BG_PID


@dataclass(frozen=True)
class ToyRules:
    """A toy bridge's answer rules: the toy decoder, a block for failing closed."""

    event: str = "PreToolUse"

    def decode(self, run: HookRun) -> ToyDecision | WrongEvent | None:
        return toy_decoder(self.event)(run)

    def fail_closed(self, outcome: HookOutcome[ToyDecision]) -> ToyDecision:
        return ToyDecision("block", f"failed closed: {outcome.reason}")

    def to_json(self, answer: ToyDecision) -> object:
        return {"behavior": answer.behavior, "reason": answer.reason}


class JournalSink:
    """A sink over a real session journal, keeping each appended group apart."""

    def __init__(self, log: SessionLog, signal: AbortSignal | None = None) -> None:
        self.log = log
        self.signal = signal
        self.groups: list[tuple[SessionEvent, ...]] = []

    def append_events(self, events: Sequence[SessionEvent], /, *, durable: bool = True) -> object:
        logged = tuple(self.log.append_many(events))
        self.groups.append(logged)
        return logged


@pytest.fixture
def store(tmp_path: Path) -> JsonlSessionStore:
    return JsonlSessionStore(tmp_path / "sessions")


@pytest.fixture
def sink(store: JsonlSessionStore) -> Iterator[JournalSink]:
    with store.create() as log:
        yield JournalSink(log, AbortSignal())


def _block(reason: str) -> tuple[str, ...]:
    return shell_argv(f"echo '{reason}' >&2; exit 2")


def _named(cmds: Sequence[HookCommand]) -> list[tuple[str, HookCommand]]:
    return [(f"h{i}", cmd) for i, cmd in enumerate(cmds)]


async def _stamp(stem: Path, which: str) -> int:
    return int(await asyncio.to_thread(Path(f"{stem}.{which}").read_text))


def _results(sink: JournalSink) -> list[HookResultEvent]:
    return [e for group in sink.groups for e in group if isinstance(e, HookResultEvent)]


async def test_answers_merge_in_declaration_order_and_each_group_is_one_write(
    sink: JournalSink, store: JsonlSessionStore, tmp_path: Path
) -> None:
    log = tmp_path / "runs"
    handlers = _named(
        [
            command(script("count_run.sh", log, '{"decision": "block", "reason": "one"}')),
            command(script("emit.py", "empty"), index=1),  # abstains: no entry
            command(_block("two"), index=2),
            command(script("count_run.sh", log, "{}"), index=3),
        ]
    )
    merged = await fire_hooks(handlers, b"{}", sink=sink, rules=ToyRules())

    assert [(h, a) for h, a in merged] == [
        ("h0", ToyDecision("block", "one")),
        ("h2", ToyDecision("block", "two")),
        ("h3", ToyDecision("allow")),
    ]
    # All invocations in one append, all results in another, linked one to one.
    invocations, results = sink.groups
    assert all(isinstance(e, HookInvocationEvent) for e in invocations)
    assert [r.invocation_id for r in results if isinstance(r, HookResultEvent)] == [
        i.id for i in invocations
    ]
    decided = [r for r in results if isinstance(r, HookResultEvent)]
    assert decided[0].decision == FrozenDict({"behavior": "block", "reason": "one"})
    assert decided[1].no_decision == "abstained"
    assert store.load(sink.log.id) == (*invocations, *results)


async def test_hooks_with_the_same_key_run_once_under_the_first_declaration(
    sink: JournalSink, tmp_path: Path
) -> None:
    log = tmp_path / "runs"
    same = script("count_run.sh", log, "{}")
    handlers = _named(
        [
            command(same),
            command(same, index=1),  # the same handler declared twice: runs once
            command(same, index=2, dedup_key=("plugin", "p1")),  # the bridge keeps it apart
        ]
    )
    merged = await fire_hooks(handlers, b"{}", sink=sink, rules=ToyRules())

    assert [h for h, _ in merged] == ["h0", "h2"]
    assert log.read_text().splitlines() == ["{}", "{}"]
    invocations, _ = sink.groups
    assert [e.index for e in invocations if isinstance(e, HookInvocationEvent)] == [0, 2]


async def test_hooks_of_one_firing_run_concurrently(sink: JournalSink, tmp_path: Path) -> None:
    stems = [tmp_path / f"h{i}" for i in range(3)]
    # Each waits for all three to have started (run in turn, the first would wait alone).
    every_start = tmp_path / "*.start"
    handlers = _named(
        [
            command(script("record_until.sh", s, "3", every_start), index=i)
            for i, s in enumerate(stems)
        ]
    )
    await fire_hooks(handlers, b"{}", sink=sink, rules=ToyRules())
    spans = [(await _stamp(s, "start"), await _stamp(s, "end")) for s in stems]
    assert max(start for start, _ in spans) < min(end for _, end in spans)


async def test_a_failure_fails_closed_only_where_declared_so(sink: JournalSink) -> None:
    handlers = _named(
        [
            command(script("exit_with.sh", "1")),  # fails open: no entry
            command(script("exit_with.sh", "3"), index=1, on_failure="block"),
            command(script("emit.py", "bad-json"), index=2, on_failure="block"),
            command(script("emit.py", "empty"), index=3, on_failure="block"),  # abstains
        ]
    )
    merged = await fire_hooks(handlers, b"{}", sink=sink, rules=ToyRules())

    assert [h for h, _ in merged] == ["h1", "h2"]
    assert [a.behavior for _, a in merged] == ["block", "block"]
    assert next(a.reason for _, a in merged) == "failed closed: exit code 3"
    assert [r.no_decision for r in _results(sink)] == [
        "nonzero_exit",
        "nonzero_exit",
        "undecodable",
        "abstained",
    ]
    # The synthesized answer is the bridge's; the log records what the hook did.
    assert [r.decision for r in _results(sink)] == [None] * 4


async def test_aborting_the_signal_ends_the_hooks_and_they_decide_nothing(
    sink: JournalSink, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pids"
    ran = tmp_path / "ran"
    handlers = _named(
        [
            command(script("pidfile_sleep.sh", pidfile), on_failure="block"),
            command(script("mark_exit.sh", ran), index=1),
        ]
    )
    firing = asyncio.create_task(fire_hooks(handlers, b"{}", sink=sink, rules=ToyRules()))
    pgid, pids = said_group(await wait_for_file(pidfile))
    await wait_for_file(ran)
    await asyncio.sleep(0.2)  # the quick hook exits right after writing
    assert sink.signal is not None
    sink.signal.abort("user interrupt")
    merged = await firing

    assert len(merged) == 0  # cancelled is no failure: nothing fails closed
    slow, quick = (r.no_decision for r in _results(sink))
    assert slow == "cancelled"
    # On a loaded machine the quick hook may still be being reaped when the abort lands.
    assert quick in ("abstained", "cancelled")
    assert await wait_gone(pgid, *pids) == []


async def test_a_cancelled_firing_still_gives_every_invocation_its_result(
    sink: JournalSink, store: JsonlSessionStore, tmp_path: Path
) -> None:
    pidfiles = [tmp_path / "a", tmp_path / "b"]
    handlers = _named(
        [command(script("pidfile_sleep.sh", p), index=i) for i, p in enumerate(pidfiles)]
    )
    firing = asyncio.create_task(fire_hooks(handlers, b"{}", sink=sink, rules=ToyRules()))
    groups = [said_group(await wait_for_file(p)) for p in pidfiles]
    firing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await firing

    invocations, results = sink.groups
    assert [r.invocation_id for r in results if isinstance(r, HookResultEvent)] == [
        i.id for i in invocations
    ]
    assert [r.no_decision for r in _results(sink)] == ["cancelled", "cancelled"]
    assert store.load(sink.log.id) == (*invocations, *results)
    for pgid, pids in groups:
        assert await wait_gone(pgid, *pids) == []


async def test_a_routed_sink_logs_in_one_place_and_cancels_by_another_signal(
    store: JsonlSessionStore, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pids"
    child_signal = AbortSignal()
    with store.create() as log:
        parent = JournalSink(log, AbortSignal())
        routed = RoutedSink(parent, child_signal)
        handlers = _named([command(script("pidfile_sleep.sh", pidfile))])
        firing = asyncio.create_task(fire_hooks(handlers, b"{}", sink=routed, rules=ToyRules()))
        await wait_for_file(pidfile)
        child_signal.abort("the subagent was cancelled")
        await firing
    assert [r.no_decision for r in _results(parent)] == ["cancelled"]
    assert parent.signal is not None
    assert not parent.signal.aborted


async def test_no_handlers_log_nothing(sink: JournalSink) -> None:
    merged: MergedAnswers[str, ToyDecision] = await fire_hooks(
        [], b"{}", sink=sink, rules=ToyRules()
    )
    assert len(merged) == 0
    assert sink.groups == []


async def test_the_bridge_reads_the_merge_with_its_own_precedence(sink: JournalSink) -> None:
    allow = shell_argv("echo '{}'")
    handlers = _named(
        [
            command(allow),
            command(_block("first"), index=1),
            command(shell_argv("echo '{}'; true"), index=2),
            command(_block("second"), index=3),
        ]
    )
    merged = await fire_hooks(handlers, b"{}", sink=sink, rules=ToyRules())

    strongest = merged.strongest(lambda a: a.behavior, ("block", "allow"))
    assert strongest is not None
    assert strongest.kind == "block"
    assert [h for h, _ in strongest.answers] == ["h1", "h3"]
    # Another bridge, another precedence: any allow wins.
    lenient = merged.strongest(lambda a: a.behavior, ("allow", "block"))
    assert lenient is not None
    assert [h for h, _ in lenient.answers] == ["h0", "h2"]
    assert merged.strongest(lambda a: None, ("block",)) is None
    assert merged.first(lambda a: a.behavior == "block") == ToyDecision("block", "first")
    assert merged.last(lambda a: a.behavior == "block") == ToyDecision("block", "second")
    assert [h for h, _ in merged.where(lambda a: a.behavior == "allow")] == ["h0", "h2"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="marks are read from /proc")
async def test_a_hook_that_left_processes_running_gets_one_notice_naming_it_plainly(
    sink: JournalSink, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pid"
    # The command, from a settings file, carries a terminal escape: the notice shows it escaped.
    left = f"sleep 60 >/dev/null 2>&1 </dev/null & echo {SHELL_BG_PID} > {pidfile}; : '\x1b[2J'"
    handlers = _named([command(shell_argv(left)), command(shell_argv("true"), index=1)])
    await fire_hooks(handlers, b"{}", sink=sink, rules=ToyRules())
    [notice] = [e for group in sink.groups for e in group if isinstance(e, NoticeEvent)]
    assert (notice.level, notice.source) == ("info", "hooks")
    assert notice.text.startswith("ended 1 process the PreToolUse hook `sleep 60 ")
    assert "\x1b" not in notice.text
    assert "\\x1b[2J" in notice.text
    assert 'hook_helpers = "session"' in notice.text
    assert not alive(pidfile.read_text().strip())  # ended at the hook's end (tests/nspids.py)
