"""Codex ``async: true`` hooks: run in the background, as Codex 0.171 runs them.

Checked with the binary: the turn does not wait; a finished hook's
``additionalContext`` reaches the first model request after it finished, its
``systemMessage`` is shown, its block counts for nothing; at most 8 run at
once; the session's end kills what still runs. Real hook processes, held by a
gate file that a test tool opens, so what "before" and "after" mean is fixed by
the test, never by timing.
"""

from __future__ import annotations

import asyncio
import os
import shlex
from pathlib import Path
from typing import Any

import pytest

from dsh.hook_protocol import HookInvocationEvent, HookResultEvent
from dsh.session import NoticeEvent, SessionEvent
from dsh.tools import ToolDefinition, ToolInvocation, ToolResult
from tests.agent.support import bash, make_harness, text, tool
from tests.hooks_codex.codex_support import hook_command, mount_codex, recording_hooks
from tests.nspids import SHELL_PID, outer_pid


def gated(command: str, gate: Path) -> str:
    """``command`` once ``gate`` exists (a hook process that waits for the test)."""
    wait = f"while [ ! -f {shlex.quote(str(gate))} ]; do sleep 0.02; done"
    return f"{wait}; {command}"


class Watch:
    """The async hooks' ``hook/*`` events as they are logged, and a tool that opens the gate."""

    def __init__(self, gate: Path, event: str, *, invoked: int = 0, results: int = 1) -> None:
        self.gate, self.event = gate, event
        self.invocations: list[HookInvocationEvent] = []
        self.results: list[HookResultEvent] = []
        self._invoked, self._results = invoked, results
        self.seen_invoked = asyncio.Event()
        self.seen_results = asyncio.Event()
        self.invoked_when_opened = -1

    def on_event(self, event: SessionEvent) -> None:
        if isinstance(event, HookInvocationEvent) and event.hook_event == self.event:
            self.invocations.append(event)
            if len(self.invocations) >= self._invoked:
                self.seen_invoked.set()
        if isinstance(event, HookResultEvent) and event.hook_event == self.event:
            self.results.append(event)
            if len(self.results) >= self._results:
                self.seen_results.set()

    def tool(self) -> ToolDefinition:
        async def open_gate(invocation: ToolInvocation) -> ToolResult:
            await self.seen_invoked.wait()
            self.invoked_when_opened = len(self.invocations)
            self.gate.touch()
            await self.seen_results.wait()
            return ToolResult.ok("opened")

        schema: dict[str, Any] = {"type": "object", "properties": {}}
        return ToolDefinition("open_gate", "Opens the gate.", schema, open_gate)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def context_texts(request: dict[str, Any]) -> list[str]:
    return [m["text"] for m in request["messages"] if m["role"] == "context"]


ASYNC_ANSWER = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "CASE-ASYNC-DENY",
        "additionalContext": "CASE-ASYNC-CONTEXT",
    },
    "systemMessage": "CASE-ASYNC-SYS",
}


async def test_an_async_hook_cannot_block_and_its_context_comes_when_it_is_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "gate"
    script = {"rules": [], "responses": [[bash("echo hi")], [tool("open_gate")], [text("done")]]}
    harness = make_harness(tmp_path, script)
    watch = Watch(gate, "PreToolUse")
    harness.registry.register(watch.tool())
    answers = {"PreToolUse": {"stdout": ASYNC_ANSWER}}
    handler = {"type": "command", "command": gated(hook_command("PreToolUse"), gate), "async": True}
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [handler]}],
        "PostToolUse": recording_hooks()["PostToolUse"],
    }
    rig = mount_codex(tmp_path, monkeypatch, harness, hooks, answers)
    agent, _ = await rig.run("go", on_event=watch.on_event)
    _, second, third = rig.requests()
    # The turn did not wait: the call ran (its deny counts for nothing) while the hook waited.
    assert rig.order()[0] == "PostToolUse"
    assert any("hi" in str(m.get("content")) for m in second["messages"] if m["role"] == "tool")
    assert "CASE-ASYNC-CONTEXT" not in context_texts(second)
    # Done once the gate opened: its context is in the next request, after open_gate's result.
    assert context_texts(third).count("CASE-ASYNC-CONTEXT") == 1
    roles = [m["role"] for m in third["messages"]]
    assert roles.index("context") > max(i for i, r in enumerate(roles) if r == "tool")
    notices = [e.text for e in agent.events if isinstance(e, NoticeEvent)]
    assert "CASE-ASYNC-SYS" in notices


async def test_at_most_eight_async_hooks_run_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "gate"
    script = {"rules": [], "responses": [[bash("true")], [tool("open_gate")], [text("done")]]}
    harness = make_harness(tmp_path, script)
    watch = Watch(gate, "PostToolUse", invoked=8, results=9)
    harness.registry.register(watch.tool())
    handlers = [
        {"type": "command", "command": gated(f"echo {n} >/dev/null", gate), "async": True}
        for n in range(9)
    ]
    rig = mount_codex(
        tmp_path, monkeypatch, harness, {"PostToolUse": [{"matcher": "Bash", "hooks": handlers}]}
    )
    await rig.run("go", on_event=watch.on_event)
    # Eight were running, held by the gate; the ninth waited for a slot before it started.
    assert watch.invoked_when_opened == 8
    assert len(watch.invocations) == 9
    assert [r.exit_code for r in watch.results] == [0] * 9


async def test_the_session_end_kills_an_async_hook_still_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate, pid_file = tmp_path / "never-opened", tmp_path / "hook.pid"
    script = {"rules": [], "responses": [[bash("true")], [text("done")]]}
    harness = make_harness(tmp_path, script)
    command = f"echo {SHELL_PID} > {shlex.quote(str(pid_file))}; " + gated("true", gate)
    handler = {"type": "command", "command": command, "async": True}
    # No SessionEnd hook: the bridge still ends its async hooks with the session.
    hooks = {"PostToolUse": [{"hooks": [handler]}], "Stop": recording_hooks()["Stop"]}
    rig = mount_codex(tmp_path, monkeypatch, harness, hooks)
    agent, result = await rig.run("go")
    assert result.end_reason == "completed"
    assert rig.order() == ["Stop"]  # the turn ended with the hook still waiting
    (ended,) = [
        e for e in agent.events if isinstance(e, HookResultEvent) and e.hook_event == "PostToolUse"
    ]
    assert ended.cancelled
    assert outer_pid(pid_file.read_text().strip()) is None  # PID@INODE: tests/nspids.py


def test_the_coverage_page_says_async_hooks_run_in_the_background() -> None:
    from dsh.hooks.codex import render_codex_coverage
    from dsh.hooks.codex.events._support import CONFIG_LIMITS

    page = " ".join(render_codex_coverage().split())
    assert "`async: true` handlers run in the background" in page
    assert "at most 8 run at once" in page
    assert not any("async" in line for line in CONFIG_LIMITS)
