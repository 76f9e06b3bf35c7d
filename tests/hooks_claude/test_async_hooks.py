"""``async: true`` hooks run in the background; ``asyncRewake`` hooks are waited for (headless).

Through the real loop with real hook processes: what an async hook answers
reaches the first model request after it finished, as one context message
``M\\nC``; the session's end cancels one still running and logs its result.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.hook_protocol import HookInvocationEvent, HookResultEvent
from tests.agent.support import Harness, bash, make_harness, of_type, replies, text, wait_for_file
from tests.hooks_claude.bridge_support import mount_hooks

# Answers (the first time only) with a systemMessage and a context, once `release` exists.
GATED = """
import json, os, sys, time
sys.stdin.read()
folder = sys.argv[1]
if os.path.exists(os.path.join(folder, "started")):
    sys.exit(0)  # only the first invocation answers
open(os.path.join(folder, "started"), "w").write(str(os.getpid()))
while not os.path.exists(os.path.join(folder, "release")):
    time.sleep(0.02)
print(json.dumps({"systemMessage": "ASYNC-M", "hookSpecificOutput": {
    "hookEventName": "PostToolUse", "additionalContext": "ASYNC-C"}}))
sys.stdout.flush()
open(os.path.join(folder, "answered"), "w").write("1")
"""

EXIT2 = """
import sys, time
sys.stdin.read()
time.sleep(0.3)
sys.stderr.write("REWAKE-STDERR")
sys.exit(2)
"""


def _mount(
    tmp_path: Path, mp: pytest.MonkeyPatch, harness: Harness, script: str, **flags: Any
) -> None:
    path = tmp_path / "hook.py"
    path.write_text(script)
    handler = {"type": "command", "command": f"{sys.executable} {path} {tmp_path}", **flags}
    mount_hooks(
        tmp_path, mp, harness, {"PostToolUse": [{"matcher": "*", "hooks": [handler]}]}, None
    )


def _texts(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"])


async def test_an_async_hook_is_not_waited_for_and_answers_a_later_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release, sessions = tmp_path / "release", tmp_path / "sessions"
    # The second call lets the hook answer, and lasts until dsh has its answer: its
    # `hook/result` in the session log, written in the same step that queues the answer for
    # the next request (the pattern is not this command's own text, which the log holds too).
    logged = f"grep -qs 'hook/resul[t]' {sessions}/*.jsonl"
    second = f"touch {release}; until {logged}; do sleep 0.02; done"
    harness = make_harness(tmp_path, replies([bash("echo hi")], [bash(second)], [text("done")]))
    _mount(tmp_path, monkeypatch, harness, GATED, **{"async": True})
    agent = harness.agent()
    agent.send("go")
    await agent.run_turn()
    _first, after_hi, after_second = harness.requests()
    # Not waited for: the request after `echo hi` went out while the hook still ran.
    assert "ASYNC-" not in _texts(after_hi)
    delivered = [m for m in after_second["messages"] if "ASYNC-M" in json.dumps(m)]
    assert len(delivered) == 1
    assert delivered[0]["text"] == "ASYNC-M\nASYNC-C"
    await agent.close("other")
    # Each call's invocation and result are logged like a waited-for hook's.
    invocations = of_type(agent.events, HookInvocationEvent)
    results = of_type(agent.events, HookResultEvent)
    assert len(invocations) == 2
    assert sorted(r.invocation_id for r in results) == sorted(i.id for i in invocations)


async def test_the_session_end_cancels_an_async_hook_and_logs_its_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = make_harness(tmp_path, replies([bash("echo hi")], [text("done")]))
    _mount(tmp_path, monkeypatch, harness, GATED, **{"async": True})
    agent = harness.agent()
    agent.send("go")
    await agent.run_turn()
    await wait_for_file(tmp_path / "started")
    await asyncio.wait_for(agent.close("other"), timeout=10)
    (invocation,) = of_type(agent.events, HookInvocationEvent)
    (result,) = of_type(agent.events, HookResultEvent)
    assert result.invocation_id == invocation.id
    assert result.cancelled
    assert not (tmp_path / "answered").exists()
    assert "ASYNC-" not in json.dumps(harness.requests())


async def test_an_async_rewake_hook_is_waited_for_and_its_exit_2_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = make_harness(tmp_path, replies([bash("echo hi")], [text("done")]))
    _mount(tmp_path, monkeypatch, harness, EXIT2, asyncRewake=True)
    agent = harness.agent()
    agent.send("go")
    await agent.run_turn()
    after_hi = harness.requests()[1]
    assert "PostToolUse:Bash hook blocking error from command" in _texts(after_hi)
    assert "REWAKE-STDERR" in _texts(after_hi)
    await agent.close("other")
