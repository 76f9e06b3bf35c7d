"""Hooks are cancelled with the turn: ``cancel(when="now")`` kills the hook's process group."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import psutil
import pytest

from dsh.hook_protocol import HookInvocationEvent, HookResultEvent
from dsh.hooks.claude import claude_hooks_plugin, load_catalog
from dsh.session import AbortCause, ToolResultEvent, TurnEndReason
from tests.agent.support import (
    Harness,
    bash,
    make_harness,
    of_type,
    replies,
    text,
    wait_for_file,
    wait_until_gone,
)
from tests.nspids import outer_pid

CAUSE = AbortCause(kind="user", reason="CANCEL-NOW")

# Starts a grandchild in its own group's process tree, says both pids, then sleeps. The pids
# are PID@INODE (tests/nspids.py): inside dsh's namespace the numbers are the namespace's.
SLEEPER = """
import os, subprocess, sys, time
sys.stdin.read()
child = subprocess.Popen(["sleep", "600"])
path = sys.argv[1]
inode = os.stat("/proc/self/ns/pid").st_ino
with open(path + ".tmp", "w") as f:
    f.write(f"{os.getpid()}@{inode} {child.pid}@{inode}")
os.replace(path + ".tmp", path)
time.sleep(600)
"""


def _mount(tmp_path: Path, harness: Harness, event: str, pids: Path) -> None:
    script = tmp_path / "sleeper.py"
    script.write_text(SLEEPER)
    handler = {"type": "command", "command": f"{sys.executable} {script} {pids}", "timeout": 600}
    group: dict[str, Any] = {"hooks": [handler]}
    settings = harness.project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": {event: [group]}}))
    (tmp_path / "home").mkdir(exist_ok=True)
    catalog = load_catalog(
        harness.project,
        home=tmp_path / "home",
        managed_path=tmp_path / "none.json",
        env={},
        discover_installed_plugins=False,
    )
    assert catalog.ok, catalog.diagnostics
    harness.ctx.plugin(claude_hooks_plugin(catalog, transcript_dir=tmp_path / "transcripts"))


CASES = {
    # A tool seam: the registry runs it; the hook's signal is the turn's.
    "PreToolUse": replies([bash("touch ran.txt")], [text("never")]),
    "PostToolUse": replies([bash("echo hi")], [text("never")]),
    # Agent seams: the loop cancels its own listener.
    "UserPromptSubmit": replies([text("never")]),
    "MessageDisplay": replies([text("shown?")]),
    "Stop": replies([text("done")]),
    "PostToolBatch": replies([bash("echo hi")], [text("never")]),
}


@pytest.mark.parametrize("event", list(CASES))
async def test_cancel_now_kills_a_running_hook_and_ends_the_turn(
    tmp_path: Path, event: str
) -> None:
    harness = make_harness(tmp_path, CASES[event])
    pids = tmp_path / "pids"
    _mount(tmp_path, harness, event, pids)
    agent = harness.agent()
    agent.send("go")
    task = asyncio.ensure_future(agent.run_turn())
    hook_pid, grandchild_pid = map(outer_pid, (await wait_for_file(pids)).split())
    assert hook_pid is not None
    assert grandchild_pid is not None
    assert psutil.pid_exists(hook_pid)
    assert psutil.pid_exists(grandchild_pid)
    agent.cancel(CAUSE, when="now")
    result = await task
    assert (result.end_reason, result.cause) == (TurnEndReason("aborted"), CAUSE)
    # The whole group is gone: the hook and what it started.
    await wait_until_gone(hook_pid)
    await wait_until_gone(grandchild_pid)
    # The audit trail is closed: the invocation has a result, marked cancelled.
    (invocation,) = of_type(agent.events, HookInvocationEvent)
    (hook_result,) = of_type(agent.events, HookResultEvent)
    assert hook_result.invocation_id == invocation.id
    assert hook_result.cancelled
    assert hook_result.no_decision == "cancelled"
    # A refused-by-cancellation call never ran.
    assert not (harness.project / "ran.txt").exists()
    calls = [e for e in agent.events if e.type == "tool/call"]
    assert len(of_type(agent.events, ToolResultEvent)) == len(calls)
    await agent.close("other")
