"""The seed RFC's three pipeline contracts, through the real loop with a scripted model.

- an unknown tool travels the phases and is normalized by core dispatch, so
  ``tools/execute`` wrappers and ``tools/post-execute`` see its ``UNKNOWN_TOOL``
  (schema validation stays at sealing: ``INVALID_ARGS`` skips them);
- a missing approval service, or an agent-less call, is a normalized denial that
  no ``approval/request`` listener is asked about;
- identity-shape failures (a ``tool_use_id`` that is not a str, a parent that is
  not a call token) are JSON-safe error results with a stable code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dsh.approval import ApprovalDecision, ApprovalRequest
from dsh.context import Next
from dsh.session import ToolCallEvent, ToolResultEvent
from dsh.tools import (
    APPROVAL_REQUEST,
    EXECUTE,
    POST_EXECUTE,
    PRE_EXECUTE,
    TOOLS,
    ExecuteNext,
    PostToolDecision,
    PreToolDecision,
    ToolCall,
    ToolDefinition,
    ToolExecution,
    ToolInvocation,
    ToolRequest,
    ToolResult,
)
from tests.agent.support import Harness, bash, make_harness, of_type, replies, text, tool


def watch_phases(h: Harness) -> list[tuple[str, str, str | None]]:
    """Record (phase, tool, code) for the pre-execute, execute and post-execute seams."""
    seen: list[tuple[str, str, str | None]] = []

    @h.ctx.on(PRE_EXECUTE)
    async def pre(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        seen.append(("pre-execute", call.name, None))
        return await next()

    @h.ctx.on(EXECUTE)
    async def wrap(ex: ToolExecution, next: ExecuteNext) -> ToolResult:
        result = await next()
        seen.append(("execute", ex.call.name, result.code))
        return result

    @h.ctx.on(POST_EXECUTE)
    async def post(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        seen.append(("post-execute", call.name, result.code))
        return await next()

    return seen


async def test_an_unknown_tool_travels_the_phases_and_dispatch_normalizes_it(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([tool("Teleport", to="mars")], [text("ok")]))
    seen = watch_phases(h)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    assert seen == [
        ("pre-execute", "Teleport", None),
        ("execute", "Teleport", "UNKNOWN_TOOL"),
        ("post-execute", "Teleport", "UNKNOWN_TOOL"),
    ]
    (call,) = of_type(agent.events, ToolCallEvent)
    (result,) = of_type(agent.events, ToolResultEvent)
    assert (call.tool_name, dict(call.arguments)) == ("Teleport", {"to": "mars"})
    assert (result.code, result.content, result.dispatched) == (
        "UNKNOWN_TOOL",
        "No such tool available: Teleport",
        False,
    )
    assert result.info == {"tool": "Teleport"}


async def test_invalid_arguments_stay_at_sealing(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([tool("Bash", command=3)], [text("ok")]))
    seen = watch_phases(h)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    assert seen == [("post-execute", "Bash", "INVALID_ARGS")]
    (result,) = of_type(agent.events, ToolResultEvent)
    assert (result.code, result.dispatched) == ("INVALID_ARGS", False)


def ask_and_allow(h: Harness, *, agentless_only: bool = False) -> list[ApprovalRequest]:
    """Calls ask (every call, or only agent-less ones); an approval/request listener
    would allow each one, and records what it was asked."""
    asked: list[ApprovalRequest] = []

    @h.ctx.on(PRE_EXECUTE)
    async def ask(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        if agentless_only and call.agent is not None:
            return await next()
        return PreToolDecision.ask(f"{call.name} needs approval")

    @h.ctx.on(APPROVAL_REQUEST)
    async def allow(
        call: ToolCall, req: ApprovalRequest, next: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        asked.append(req)
        return ApprovalDecision.allow()

    return asked


async def test_without_an_approval_service_the_call_is_denied_unasked(tmp_path: Path) -> None:
    marker = tmp_path / "project" / "ran.txt"
    h = make_harness(tmp_path, replies([bash(f"touch {marker}")], [text("ok")]), approval=False)
    asked = ask_and_allow(h)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    (result,) = of_type(agent.events, ToolResultEvent)
    assert (result.code, result.dispatched) == ("DENIED", False)
    assert result.info["outcome"] == "no-service"
    assert result.approval == {"asked": "Bash needs approval", "outcome": "no-service"}
    assert asked == []
    assert not marker.exists()


async def test_with_a_service_the_same_listener_is_asked_and_allows(tmp_path: Path) -> None:
    marker = tmp_path / "project" / "ran.txt"
    h = make_harness(tmp_path, replies([bash(f"touch {marker}")], [text("ok")]))
    asked = ask_and_allow(h)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    (result,) = of_type(agent.events, ToolResultEvent)
    assert (result.is_error, result.dispatched) == (False, True)
    assert [r.session_id for r in asked] == [agent.session_id]
    assert marker.exists()


def nesting_tool(h: Harness, **nested: Any) -> list[ToolResult]:
    """A tool whose body makes one nested call with ``nested`` as execute()'s keywords."""
    results: list[ToolResult] = []

    async def run(inv: ToolInvocation) -> ToolResult:
        assert inv.ctx is not None
        registry = inv.ctx.require(TOOLS)
        request = ToolRequest("Bash", {"command": "true"}, nested.pop("tool_use_id", "inner"))
        res = await registry.execute(request, agent=inv.agent, **nested)
        results.append(res.result)
        return ToolResult.ok(f"nested: {res.result.code}")

    h.registry.register(ToolDefinition("Nest", "Make one nested call.", {"type": "object"}, run))
    return results


async def test_an_agentless_nested_call_is_denied_unasked(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([tool("Nest")], [text("ok")]))
    asked = ask_and_allow(h, agentless_only=True)
    results: list[ToolResult] = []

    async def run(inv: ToolInvocation) -> ToolResult:
        assert inv.ctx is not None
        res = await inv.ctx.require(TOOLS).execute(
            ToolRequest("Bash", {"command": "true"}), parent=inv.token
        )
        results.append(res.result)
        return ToolResult.ok(f"nested: {res.result.code}")

    h.registry.register(ToolDefinition("Nest", "Make one nested call.", {"type": "object"}, run))
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    (inner,) = results
    assert (inner.code, inner.info["outcome"]) == ("DENIED", "no-agent")
    assert asked == []
    (outer,) = of_type(agent.events, ToolResultEvent)
    assert outer.content == "nested: DENIED"


async def test_identity_shape_failures_are_json_safe_results(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([tool("Nest")], [text("ok")], [tool("Nest")], [text("ok")]))
    bad_id = nesting_tool(h, tool_use_id=7)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    h.registry.unregister("Nest")
    bad_parent = nesting_tool(h, parent="call_not_a_token")
    agent.send("again")
    await agent.run_turn()
    for (result,), field in ((bad_id, "tool_use_id"), (bad_parent, "parent")):
        assert (result.code, result.is_error) == ("INVALID_ARGS", True)
        assert result.info["identity"] == field
        assert f"{field} must be" in result.text
    outers = of_type(agent.events, ToolResultEvent)
    assert [r.content for r in outers] == ["nested: INVALID_ARGS", "nested: INVALID_ARGS"]
