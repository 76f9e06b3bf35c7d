"""Subagents: the Agent tool runs a child agent on its own session, linked to the parent."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from dsh.agent import (
    PROMPT_SUBMIT,
    SUBAGENT_END,
    SUBAGENT_START,
    TURN_CONTINUATION,
    Agent,
    ContinuationDecision,
    ContinuationState,
    PromptDecision,
    PromptSource,
    TurnResult,
    subagent_plugin,
)
from dsh.agent._handback import FRAME
from dsh.context import Next
from dsh.messages import Content, content_text
from dsh.session import (
    AbortCause,
    ContextMessageEvent,
    SubagentEnd,
    SubagentStart,
    ToolCallEvent,
    ToolResultEvent,
    TurnEnd,
    TurnEndReason,
    UserMessageEvent,
)
from tests.agent.support import (
    bash,
    make_harness,
    of_type,
    text,
    tool,
    types,
    wait_for_file,
    wait_until_gone,
)
from tests.nspids import SHELL_BG_PID, outer_pid

SUB_PROMPT = "SUBTASK-MARKER: run echo from-sub and report."


def _script() -> dict[str, Any]:
    # The conformance case `subagent`, in the same vocabulary.
    return {
        "rules": [
            {
                "first_user_contains": "SUBTASK-MARKER",
                "responses": [[bash("echo from-sub")], [text("subagent result: from-sub")]],
            },
            {
                "has_tool": "Agent",
                "responses": [
                    [
                        tool(
                            "Agent",
                            description="Run echo",
                            subagent_type="general-purpose",
                            prompt=SUB_PROMPT,
                            run_in_background=False,
                        )
                    ],
                    [text("Subagent finished.")],
                ],
            },
        ],
        "default": text("side-answer"),
    }


async def test_a_subagent_runs_its_own_session_and_its_answer_is_the_tool_result(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, _script())
    h.ctx.plugin(subagent_plugin)
    trail: list[str] = []
    children: list[Agent] = []
    ended: list[TurnResult] = []

    async def on_start(parent: Agent, child: Agent) -> None:
        trail.append("subagent/start")
        children.append(child)
        assert child.parent is parent
        assert child.agent_type == "general-purpose"
        assert child.agent_id is not None
        assert len(child.agent_id) == 17
        child.inject("CHILD-CONTEXT", "plugin:sub")

    async def on_end(parent: Agent, child: Agent, result: TurnResult) -> None:
        trail.append("subagent/end")
        ended.append(result)

    sources: list[tuple[PromptSource, bool]] = []

    async def prompts(
        agent: Agent, content: Content, source: PromptSource, next: Next[PromptDecision]
    ) -> PromptDecision:
        sources.append((source, agent.parent is not None))
        return await next()

    h.ctx.on(SUBAGENT_START, on_start)
    h.ctx.on(SUBAGENT_END, on_end)
    h.ctx.on(PROMPT_SUBMIT, prompts)
    parent = h.agent()
    parent.send("Please delegate to a subagent")
    result = await parent.run_turn()

    assert result.end_reason == TurnEndReason("completed")
    assert result.final_text == "Subagent finished."
    assert trail == ["subagent/start", "subagent/end"]
    assert sources == [("user", False), ("subagent", True)]
    assert ended[0].final_text == "subagent result: from-sub"

    # The parent's log links the child: start and end around the Agent call's result.
    assert types(parent.events)[3:7] == [
        "tool/call",
        "subagent/start",
        "subagent/end",
        "tool/result",
    ]
    agent_call = of_type(parent.events, ToolCallEvent)[0]
    start = of_type(parent.events, SubagentStart)[0]
    end = of_type(parent.events, SubagentEnd)[0]
    child = children[0]
    assert (start.child_session_id, start.agent_type, start.description, start.parent_token) == (
        child.session_id,
        "general-purpose",
        "Run echo",
        agent_call.token,
    )
    assert (end.child_session_id, end.end_reason, end.final_text) == (
        child.session_id,
        "completed",
        "subagent result: from-sub",
    )
    tool_result = of_type(parent.events, ToolResultEvent)[0]
    # The report in 2.1.332's hand-back frame, indented (the corpus's `subagent-foreground`).
    assert f"{FRAME}\n  subagent result: from-sub\nagentId: " in content_text(tool_result.content)
    assert len(tool_result.content) == 1  # one text block, as 2.1.332's
    assert not tool_result.is_error

    # The child's own session, in the same store.
    child_log = h.store.load(child.session_id)
    assert types(child_log) == [
        "context/message",
        "turn/start",
        "user/message",
        "assistant/message",
        "tool/call",
        "tool/result",
        "assistant/message",
        "turn/end",
    ]
    first_prompt = of_type(child_log, UserMessageEvent)[0]
    assert (first_prompt.content, first_prompt.source) == (SUB_PROMPT, "subagent")
    injected = of_type(child_log, ContextMessageEvent)[0]
    assert injected.text == "CHILD-CONTEXT"
    # The child's tool calls carry the parent call's token.
    child_call = of_type(child_log, ToolCallEvent)[0]
    assert child_call.parent_token == agent_call.token
    assert str(of_type(child_log, ToolResultEvent)[0].content).strip() == "from-sub"


async def test_a_subagent_cancelled_at_start_ends_aborted_and_the_call_fails(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, _script())
    h.ctx.plugin(subagent_plugin)
    ended: list[TurnResult] = []

    async def cancel_child(parent: Agent, child: Agent) -> None:
        child.cancel(AbortCause(kind="hook", reason="NO-SUBAGENTS"))

    async def on_end(parent: Agent, child: Agent, result: TurnResult) -> None:
        ended.append(result)

    h.ctx.on(SUBAGENT_START, cancel_child)
    h.ctx.on(SUBAGENT_END, on_end)
    parent = h.agent()
    parent.send("Please delegate to a subagent")
    result = await parent.run_turn()
    assert result.end_reason == TurnEndReason("completed")
    assert [r.end_reason for r in ended] == [TurnEndReason("aborted")]
    assert ended[0].cause == AbortCause(kind="hook", reason="NO-SUBAGENTS")
    tool_result = of_type(parent.events, ToolResultEvent)[0]
    assert tool_result.is_error
    assert tool_result.content == "the subagent ended aborted: NO-SUBAGENTS"
    end = of_type(parent.events, SubagentEnd)[0]
    assert end.end_reason == "aborted"


async def test_a_subagents_own_continuation_can_keep_it_running(tmp_path: Path) -> None:
    script = _script()
    script["rules"][0]["responses"].append([text("double-checked")])
    h = make_harness(tmp_path, script)
    h.ctx.plugin(subagent_plugin)

    async def child_checks_twice(
        agent: Agent, state: ContinuationState, next: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        if agent.parent is not None and state.streak == 0:
            return ContinuationDecision.continue_("CHECK-AGAIN")
        return await next()

    h.ctx.on(TURN_CONTINUATION, child_checks_twice)
    parent = h.agent()
    parent.send("Please delegate to a subagent")
    await parent.run_turn()
    assert f"{FRAME}\n  double-checked\nagentId: " in content_text(
        of_type(parent.events, ToolResultEvent)[0].content
    )


async def test_the_agent_tool_leaves_with_its_plugin_scope(tmp_path: Path) -> None:
    h = make_harness(tmp_path, _script())
    scope = h.ctx.plugin(subagent_plugin)
    assert "Agent" in {d.name for d in h.registry.definitions()}
    await scope.dispose()
    assert "Agent" not in {d.name for d in h.registry.definitions()}


async def test_cancelling_the_parent_cancels_the_running_child_and_its_tool(
    tmp_path: Path,
) -> None:
    script = _script()
    script["rules"][0]["responses"] = [[bash(f"sleep 30 & echo {SHELL_BG_PID} > child.pid; wait")]]
    h = make_harness(tmp_path, script)
    h.ctx.plugin(subagent_plugin)
    children: list[Agent] = []

    async def on_start(parent: Agent, child: Agent) -> None:
        children.append(child)

    h.ctx.on(SUBAGENT_START, on_start)
    parent = h.agent()
    parent.send("Please delegate to a subagent")
    task = asyncio.create_task(parent.run_turn())
    pid = outer_pid(await wait_for_file(h.project / "child.pid"))
    assert pid is not None
    parent.cancel(AbortCause(kind="user", reason="STOP-ALL"))
    result = await task
    assert result.end_reason == TurnEndReason("aborted")
    assert result.cause == AbortCause(kind="user", reason="STOP-ALL")
    child_log = h.store.load(children[0].session_id)
    child_end = child_log[-1]
    assert isinstance(child_end, TurnEnd)
    assert child_end.reason == TurnEndReason("aborted")
    assert [r.code for r in of_type(child_log, ToolResultEvent)] == ["ABORTED"]
    assert of_type(parent.events, SubagentEnd)[0].end_reason == "aborted"
    await wait_until_gone(pid)


def test_the_agent_tools_schema_is_its_models_own() -> None:
    # The schema is written out so that declaring the tool imports no pydantic.
    from dsh.agent import AGENT_TOOL, AgentToolInput

    assert AGENT_TOOL.input_schema == AgentToolInput.model_json_schema()
    assert AGENT_TOOL.load_input_model() is AgentToolInput
