"""A call's slot (``call.state``) in the real loop: a step's parallel calls and a subagent's."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from dsh.agent import POST_TOOL_BATCH, Agent, PostToolBatchDecision, subagent_plugin
from dsh.context import Next
from dsh.tools import (
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    RESULT,
    CallStateKey,
    ExecuteNext,
    PostToolDecision,
    PreToolDecision,
    ToolCall,
    ToolExecution,
    ToolExecutionResult,
    ToolResult,
)
from tests.agent.support import bash, foreground_agent, make_harness, replies, text, tool

TARGET: CallStateKey[str] = CallStateKey("test.target")


async def test_a_steps_parallel_calls_each_read_their_own_slot(tmp_path: Path) -> None:
    names = ("a.txt", "b.txt", "c.txt")
    h = make_harness(tmp_path, replies([tool("Read", file_path=n) for n in names], [text("read")]))
    for n in names:
        (h.project / n).write_text(f"{n}\n")
    inside = 0
    all_inside = asyncio.Event()
    read: list[tuple[str, str | None]] = []
    batches: list[list[int]] = []

    @h.ctx.on(PRE_EXECUTE)
    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        call.state[TARGET] = str(call.arguments["file_path"])
        return await next()

    @h.ctx.on(EXECUTE)
    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        nonlocal inside
        inside += 1
        if inside == len(names):
            all_inside.set()
        await all_inside.wait()  # the three run together, each slot written
        return await next()

    @h.ctx.on(POST_EXECUTE)
    async def post(call: ToolCall, result: ToolResult, next: Next[PostToolDecision]) -> Any:
        read.append((str(call.arguments["file_path"]), call.state.get(TARGET)))
        return await next()

    async def batch(
        agent: Agent, results: tuple[ToolExecutionResult, ...], next: Next[PostToolBatchDecision]
    ) -> PostToolBatchDecision:
        batches.append([len(r.call.state) for r in results])
        return await next()

    h.ctx.on(POST_TOOL_BATCH, batch)
    agent = h.agent()
    agent.send("read them")
    await agent.run_turn()
    await agent.close("other")
    assert sorted(read) == [(n, n) for n in names]
    # By the batch's end every call's result is final: the slots are empty.
    assert batches == [[0, 0, 0]]


async def test_a_subagents_calls_have_slots_of_their_own(tmp_path: Path) -> None:
    script = {
        "rules": [
            {
                "first_user_contains": "SUBTASK",
                "responses": [[bash("echo from-sub")], [text("sub done")]],
            },
            {
                "has_tool": "Agent",
                "responses": [[foreground_agent("SUBTASK: echo")], [text("parent done")]],
            },
        ],
        "default": text("side-answer"),
    }
    h = make_harness(tmp_path, script)
    h.ctx.plugin(subagent_plugin)
    found_at_pre: list[tuple[str, str | None]] = []
    read_at_result: list[tuple[str, bool]] = []

    @h.ctx.on(PRE_EXECUTE)
    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        found_at_pre.append((call.name, call.state.get(TARGET)))
        call.state[TARGET] = str(call.token)
        return await next()

    @h.ctx.on(RESULT)
    def observe(call: ToolCall, result: ToolResult) -> None:
        read_at_result.append((call.name, call.state.get(TARGET) == str(call.token)))

    agent = h.agent()
    agent.send("delegate")
    result = await agent.run_turn()
    await agent.close("other")
    assert result.final_text == "parent done"
    # The child's Bash call runs inside the parent's Agent call, in a slot of its own.
    assert found_at_pre == [("Agent", None), ("Bash", None)]
    assert read_at_result == [("Bash", True), ("Agent", True)]
