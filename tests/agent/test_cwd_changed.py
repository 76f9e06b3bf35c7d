"""``agent/cwd-changed``: a tool call that leaves the workspace in another directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dsh.agent import (
    CWD_CHANGED,
    POST_TOOL_BATCH,
    Agent,
    PostToolBatchDecision,
)
from dsh.context import Next
from dsh.tools import (
    POST_EXECUTE,
    PostToolDecision,
    ToolCall,
    ToolExecutionResult,
    ToolResult,
)
from tests.agent.support import bash, make_harness, replies, text, types


def _trail(h: Any) -> list[str]:
    trail: list[str] = []

    async def post(call: ToolCall, result: ToolResult, nxt: Next[PostToolDecision]) -> Any:
        trail.append(f"post:{call.arguments['command']}")
        return await nxt()

    async def moved(agent: Agent, old: Path, new: Path) -> None:
        trail.append(f"cwd:{old.name}->{new.name}")
        # The call's result is already logged, and the workspace already moved.
        assert types(agent.events)[-1] == "tool/result"
        assert agent.workspace.cwd == new

    async def batch(
        agent: Agent, results: tuple[ToolExecutionResult, ...], nxt: Next[PostToolBatchDecision]
    ) -> PostToolBatchDecision:
        trail.append("batch")
        return await nxt()

    h.ctx.on(POST_EXECUTE, post)
    h.ctx.on(CWD_CHANGED, moved)
    h.ctx.on(POST_TOOL_BATCH, batch)
    return trail


async def test_a_cd_fires_after_the_calls_post_execute_and_before_the_batch(
    tmp_path: Path,
) -> None:
    script = replies(
        [bash("mkdir -p sub && cd sub && pwd"), bash("pwd")],
        [bash("cd .. && pwd")],
        [text("Changed dir.")],
    )
    h = make_harness(tmp_path, script)
    trail = _trail(h)
    agent = h.agent()
    agent.send("Please cd")
    await agent.run_turn()
    assert trail == [
        "post:mkdir -p sub && cd sub && pwd",
        "cwd:project->sub",
        "post:pwd",
        "batch",
        "post:cd .. && pwd",
        "cwd:sub->project",
        "batch",
    ]
    assert agent.workspace.cwd == h.project.resolve()


async def test_calls_that_stay_put_fire_nothing(tmp_path: Path) -> None:
    script = replies([bash("mkdir -p sub && (cd sub && pwd)"), bash("pwd")], [text("same")])
    h = make_harness(tmp_path, script)
    trail = _trail(h)
    agent = h.agent()
    agent.send("stay")
    await agent.run_turn()
    assert not [t for t in trail if t.startswith("cwd:")]
    assert trail.count("batch") == 1


async def test_the_old_and_new_directories_are_absolute(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("mkdir -p a/b && cd a/b")], [text("ok")]))
    seen: list[tuple[Path, Path]] = []

    async def moved(agent: Agent, old: Path, new: Path) -> None:
        seen.append((old, new))

    h.ctx.on(CWD_CHANGED, moved)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    project = h.project.resolve()
    assert seen == [(project, project / "a" / "b")]
