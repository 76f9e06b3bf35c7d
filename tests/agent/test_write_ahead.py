"""The log is write-ahead of every effect: before a tool runs, all logged so far is fsynced.

Replies and tool results are appended without their own fsync (the next
write-ahead record covers them), so a step costs one fsync, not three; what
a tool does is still never ahead of the durable log.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dsh.tools import ToolDefinition, ToolInvocation, ToolResult
from tests.agent.support import make_harness, replies, text, tool


class Disk:
    """Whether the session file has bytes written since its last fsync."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.dirty = False
        self.fsyncs = 0
        real_write, real_fsync = os.write, os.fsync

        def write(fd: int, data: Any) -> int:
            self.dirty = True
            return real_write(fd, data)

        def fsync(fd: int) -> None:
            real_fsync(fd)
            self.fsyncs += 1
            self.dirty = False

        monkeypatch.setattr("dsh.session._store.os.write", write)
        monkeypatch.setattr("dsh.session._store.os.fsync", fsync)


async def test_each_tool_runs_behind_a_durable_log_and_a_step_costs_one_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = make_harness(
        tmp_path,
        replies([tool("Probe", n=1)], [tool("Probe", n=2)], [tool("Probe", n=3)], [text("done")]),
    )
    disk = Disk(monkeypatch)
    seen: list[bool] = []

    async def probe(inv: ToolInvocation) -> ToolResult:
        seen.append(disk.dirty)
        return ToolResult.ok("probed")

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    h.registry.register(
        ToolDefinition("Probe", "probes", schema, probe, read_only=True, concurrency_safe=True)
    )
    agent = h.agent()
    before = disk.fsyncs
    agent.send("go")
    result = await agent.run_turn()
    assert result.final_text == "done", result
    assert seen == [False, False, False]  # nothing logged was still unsynced
    appended = len(agent.events)
    # turn/start, the prompt, three tool calls and turn/end: six fsyncs for 13 events.
    assert disk.fsyncs - before == 6 < appended
    assert not disk.dirty  # the turn's end is durable
    await agent.close("other")
    agent.session.close()
    assert not disk.dirty
