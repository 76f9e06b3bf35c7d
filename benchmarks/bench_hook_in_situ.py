"""The cost of a near-free Claude Code hook in situ: what a PreToolUse ``true`` adds to a step.

Run: .venv/bin/python benchmarks/bench_hook_in_situ.py [--steps 100] [--rounds 5]

One turn of ``--steps`` no-op tool calls (scripted model, the JSONL store,
the Claude Code profile mounted) runs with a PreToolUse command hook ``true``
on every call and without it, interleaved round by round. The hook's cost is
the difference of the median step (wall time between model calls) with and
without it; the baseline, in the same process and rounds, is a bare
``asyncio.create_subprocess_exec("true")`` + ``wait``. Printed too: dsh's own
CPU time per step (this process; the hook's exec is in the child) and fsyncs
per step, with and without the hook. A third mode, ``setsid``, runs the same
hook with a session of its own forced (what the executor does where dsh has a
terminal, and did everywhere before): the difference to ``hook`` is what the
session costs at spawn.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dsh.agent import AgentOptions
from dsh.approval import APPROVAL, ApprovalBroker
from dsh.base._child_watcher import use_pidfd_child_watcher
from dsh.hook_protocol import _executor as executor
from dsh.hooks.claude import ClaudeCodeProfile, load_catalog
from dsh.host import HostOptions, assemble
from dsh.messages import AssistantMessage, ToolUse
from dsh.models import ModelRequest, TextCallback
from dsh.session import JsonlSessionStore
from dsh.tools import ToolDefinition, ToolInvocation, ToolResult

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
HOOK = {"PreToolUse": [{"matcher": "", "hooks": [{"type": "command", "command": "true"}]}]}


async def noop(inv: ToolInvocation) -> ToolResult:
    return ToolResult.ok("ok")


class Scripted:
    name = "scripted"

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.seen = 0
        self.wall: list[float] = []
        self.cpu: list[float] = []

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        self.wall.append(time.perf_counter())
        self.cpu.append(time.process_time())
        self.seen += 1
        if self.seen <= self.calls:
            return AssistantMessage("", (ToolUse(f"c{self.seen}", "Noop", {"n": self.seen}),))
        return AssistantMessage("done")


@contextmanager
def counting_fsyncs() -> Iterator[list[int]]:
    count = [0]
    real = os.fsync

    def fsync(fd: Any) -> None:
        count[0] += 1
        real(fd)

    os.fsync = fsync
    try:
        yield count
    finally:
        os.fsync = real


@contextmanager
def sessions_forced(on: bool) -> Iterator[None]:
    """Every hook given a session of its own (``setsid``) while the block runs, if ``on``."""
    names = vars(executor)  # the executor's own reference to ``own_session``
    saved = names["own_session"]
    if on:
        names["own_session"] = lambda: True
    try:
        yield
    finally:
        names["own_session"] = saved


async def session(root: Path, steps: int, hooks: bool) -> tuple[float, float, float]:
    """Median wall step, median CPU step (seconds) and fsyncs per step."""
    project = root / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": HOOK if hooks else {}}))
    (root / "home").mkdir()
    catalog = load_catalog(
        project,
        home=root / "home",
        managed_path=root / "no-managed.json",
        env={},
        discover_installed_plugins=False,
    )
    model = Scripted(steps)
    store = JsonlSessionStore(root / "sessions")
    options = HostOptions(
        project=project,
        model=model,
        store=store,
        builtin_tools=False,
        agent=AgentOptions(max_steps=steps + 5),
    )
    assembly = assemble(options)
    assembly.registry.register(ToolDefinition("Noop", "does nothing", SCHEMA, noop))
    if assembly.ctx.get(APPROVAL) is None:
        assembly.ctx.provide(APPROVAL, ApprovalBroker())
    profile = ClaudeCodeProfile(
        catalog=catalog,
        permission_mode="bypassPermissions",
        transcript_dir=root / "transcripts",
        instructions=False,
    )
    assert assembly.mount_profile(profile) == ()
    agent = assembly.agent(store.create())
    with counting_fsyncs() as fsyncs:
        agent.send("go")
        result = await agent.run_turn()
    await agent.close("other")
    agent.session.close()
    assert result.steps == steps + 1, result
    wall = [b - a for a, b in zip(model.wall, model.wall[1:], strict=False)]
    cpu = [b - a for a, b in zip(model.cpu, model.cpu[1:], strict=False)]
    return statistics.median(wall), statistics.median(cpu), fsyncs[0] / steps


async def bare_spawns(n: int) -> float:
    use_pidfd_child_watcher()  # as dsh spawns
    times = []
    for _ in range(n):
        start = time.perf_counter()
        proc = await asyncio.create_subprocess_exec("true")
        await proc.wait()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def main_async(steps: int, rounds: int) -> None:
    got: dict[str, list[tuple[float, float, float]]] = {"hook": [], "none": [], "setsid": []}
    bare: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-hook-") as tmp:
        for r in range(rounds + 1):  # round 0 warms up and is dropped
            order = ("hook", "setsid", "none") if r % 2 else ("none", "setsid", "hook")
            for mode in order:
                root = Path(tmp) / f"{mode}{r}"
                root.mkdir()
                with sessions_forced(mode == "setsid"):
                    sample = await session(root, steps, mode != "none")
                if r:
                    got[mode].append(sample)
            if r:
                bare.append(await bare_spawns(steps))
    med = {m: [statistics.median(s[k] for s in v) for k in range(3)] for m, v in got.items()}
    b = statistics.median(bare)
    cost = med["hook"][0] - med["none"][0]
    print(f"{steps} steps x {rounds} rounds (medians)")
    print(f"  step without hooks      {med['none'][0] * 1e3:7.3f} ms wall")
    print(f"  step with PreToolUse    {med['hook'][0] * 1e3:7.3f} ms wall")
    print(f"  the hook's cost in situ {cost * 1e3:7.3f} ms  ({cost / b:.2f}x a bare spawn)")
    print(f"  bare spawn of `true`    {b * 1e3:7.3f} ms")
    forced = med["setsid"][0] - med["none"][0]
    print(
        f"  the same hook, setsid   {forced * 1e3:7.3f} ms  ({forced / cost:.2f}x the hook's cost)"
    )
    for m in ("none", "hook", "setsid"):
        cpu, fsyncs = med[m][1] * 1e3, med[m][2]
        print(f"  {m:6} dsh CPU per step {cpu:7.3f} ms, fsyncs per step {fsyncs:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main_async(args.steps, args.rounds))


if __name__ == "__main__":
    main()
