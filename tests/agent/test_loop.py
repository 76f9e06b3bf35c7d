"""The loop's ordering rules, one per test, through the real loop with real tools."""

from __future__ import annotations

from pathlib import Path

from dsh.agent import (
    POST_TOOL_BATCH,
    PROMPT_SUBMIT,
    SESSION_START,
    TURN_CONTINUATION,
    TURN_ERROR,
    TURN_STOP,
    Agent,
    ContinuationDecision,
    ContinuationState,
    PostToolBatchDecision,
    PromptDecision,
    PromptSource,
    SessionStartSource,
    TurnStop,
)
from dsh.context import Next
from dsh.messages import Content
from dsh.models import ModelError
from dsh.session import (
    AbortCause,
    AssistantMessageEvent,
    ContextMessageEvent,
    NoticeEvent,
    PromptBlockedEvent,
    SteeringMessageEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEnd,
    TurnEndReason,
    UserMessageEvent,
)
from dsh.tools import POST_EXECUTE, PostToolDecision, ToolCall, ToolExecutionResult, ToolResult
from tests.agent.support import bash, http_error, make_harness, of_type, replies, text, tool, types


async def test_a_plain_turn_logs_start_user_assistant_end(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("hello")]))
    agent = h.agent()
    agent.send("hi")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("completed")
    assert (result.steps, result.final_text, result.notices) == (1, "hello", ())
    assert types(agent.events) == ["turn/start", "user/message", "assistant/message", "turn/end"]
    turn_ids = {e.turn_id for e in agent.events}
    assert len(turn_ids) == 1
    assert None not in turn_ids


async def test_session_start_fires_once_and_its_context_lands_before_the_first_model_call(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([text("one")], [text("two")]))
    seen: list[SessionStartSource] = []

    async def seed(agent: Agent, source: SessionStartSource) -> None:
        seen.append(source)
        agent.inject("SEED-CONTEXT", "plugin:seed")

    h.ctx.on(SESSION_START, seed)
    agent = h.agent()
    for prompt in ("first", "second"):
        agent.send(prompt)
        await agent.run_turn()
    assert seen == ["startup"]
    first = agent.events[0]
    assert isinstance(first, ContextMessageEvent)
    assert (first.source, first.text, first.turn_id) == ("plugin:seed", "SEED-CONTEXT", None)
    model_saw = h.requests()[0]["messages"]
    assert {"role": "context", "source": "plugin:seed", "text": "SEED-CONTEXT"} in model_saw


async def test_the_turn_opens_before_prompt_submit_runs(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("ok")]))
    logged_before: list[list[str]] = []

    async def policy(
        agent: Agent, content: Content, source: PromptSource, next: Next[PromptDecision]
    ) -> PromptDecision:
        logged_before.append(types(agent.events))
        assert agent.running
        assert agent.turn_id is not None
        return await next()

    h.ctx.on(PROMPT_SUBMIT, policy)
    agent = h.agent()
    agent.send("hi")
    await agent.run_turn()
    assert logged_before == [["turn/start"]]


async def test_a_fully_blocked_batch_is_a_zero_step_rejected_turn(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("never")]))

    async def block_all(
        agent: Agent, content: Content, source: PromptSource, next: Next[PromptDecision]
    ) -> PromptDecision:
        return PromptDecision.block(f"no: {content}")

    h.ctx.on(PROMPT_SUBMIT, block_all)
    agent = h.agent()
    agent.send("a")
    agent.send("b")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("rejected")
    assert result.steps == 0
    assert [n.text for n in result.notices] == ["no: a", "no: b"]
    assert types(agent.events) == [
        "turn/start",
        "prompt/blocked",
        "notice",
        "prompt/blocked",
        "notice",
        "turn/end",
    ]
    blocked = of_type(agent.events, PromptBlockedEvent)
    assert [(b.prompt, b.reason, b.source) for b in blocked] == [
        ("a", "no: a", "user"),
        ("b", "no: b", "user"),
    ]
    assert h.requests() == []


async def test_a_mixed_batch_keeps_the_blocked_prompt_and_runs_the_allowed_one(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([text("ok")]))

    async def policy(
        agent: Agent, content: Content, source: PromptSource, next: Next[PromptDecision]
    ) -> PromptDecision:
        if "secret" in str(content):
            return PromptDecision.block("no secrets")
        return await next()

    h.ctx.on(PROMPT_SUBMIT, policy)
    agent = h.agent()
    agent.send("my secret is 42")
    agent.send("what time is it")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("completed")
    assert types(agent.events) == [
        "turn/start",
        "prompt/blocked",
        "notice",
        "user/message",
        "assistant/message",
        "turn/end",
    ]
    user = of_type(agent.events, UserMessageEvent)
    assert [u.content for u in user] == ["what time is it"]
    assert [m["content"] for m in h.requests()[0]["messages"] if m["role"] == "user"] == [
        "what time is it"
    ]


async def test_an_allowed_prompt_is_rewritten_and_its_context_follows_it(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("ok")]))

    async def rewrite(
        agent: Agent, content: Content, source: PromptSource, next: Next[PromptDecision]
    ) -> PromptDecision:
        return PromptDecision.allow(
            content=f"{content} (politely)", additional_context="CTX", source="plugin:rw"
        )

    h.ctx.on(PROMPT_SUBMIT, rewrite)
    agent = h.agent()
    agent.send("do it")
    await agent.run_turn()
    assert types(agent.events)[1:3] == ["user/message", "context/message"]
    user, ctx = agent.events[1], agent.events[2]
    assert isinstance(user, UserMessageEvent)
    assert user.content == "do it (politely)"
    assert isinstance(ctx, ContextMessageEvent)
    assert (ctx.source, ctx.text) == ("plugin:rw", "CTX")


async def test_tool_results_come_in_call_order_then_the_steps_context(tmp_path: Path) -> None:
    h = make_harness(
        tmp_path,
        replies([bash("echo one"), bash("echo two")], [text("done")]),
    )

    async def context_after(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        return PostToolDecision.accept(additional_context=f"after {call.arguments['command']}")

    h.ctx.on(POST_EXECUTE, context_after)
    agent = h.agent()
    agent.send("run both")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("completed")
    step = types(agent.events)[3:10]
    assert step == [
        "tool/call",
        "tool/result",
        "tool/call",
        "tool/result",
        "context/message",
        "context/message",
        "assistant/message",
    ]
    results = of_type(agent.events, ToolResultEvent)
    assert [str(r.content).strip() for r in results] == ["one", "two"]
    contexts = of_type(agent.events, ContextMessageEvent)
    assert [c.text for c in contexts] == ["after echo one", "after echo two"]
    # The model saw both results right after its call, then the context.
    roles = [m["role"] for m in h.requests()[1]["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "context", "context"]


async def test_read_only_concurrency_safe_calls_run_together_and_log_results_in_order(
    tmp_path: Path,
) -> None:
    h = make_harness(
        tmp_path,
        replies([tool("Read", file_path="a.txt"), tool("Read", file_path="b.txt")], [text("read")]),
    )
    (h.project / "a.txt").write_text("AAA\n")
    (h.project / "b.txt").write_text("BBB\n")
    agent = h.agent()
    agent.send("read both")
    await agent.run_turn()
    calls = of_type(agent.events, ToolCallEvent)
    results = of_type(agent.events, ToolResultEvent)
    assert [c.tool_use_id for c in calls] == [r.tool_use_id for r in results]
    assert "AAA" in str(results[0].content)
    assert "BBB" in str(results[1].content)
    assert types(agent.events)[3:7] == ["tool/call", "tool/call", "tool/result", "tool/result"]


async def test_post_tool_batch_sees_the_steps_results_and_its_context_follows_them(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([bash("echo x")], [text("done")]))
    batches: list[list[str]] = []

    async def batch(
        agent: Agent, results: tuple[ToolExecutionResult, ...], next: Next[PostToolBatchDecision]
    ) -> PostToolBatchDecision:
        batches.append([r.call.name for r in results])
        assert types(agent.events)[-1] == "tool/result"
        return PostToolBatchDecision.proceed("BATCH-CONTEXT", source="plugin:batch")

    h.ctx.on(POST_TOOL_BATCH, batch)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    assert batches == [["Bash"]]
    assert types(agent.events)[3:7] == [
        "tool/call",
        "tool/result",
        "context/message",
        "assistant/message",
    ]


async def test_post_tool_batch_stop_ends_the_turn_before_the_next_model_call(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([bash("echo x")], [text("never")]))

    async def stop(
        agent: Agent, results: tuple[ToolExecutionResult, ...], next: Next[PostToolBatchDecision]
    ) -> PostToolBatchDecision:
        return PostToolBatchDecision.stop("enough tools")

    h.ctx.on(POST_TOOL_BATCH, stop)
    agent = h.agent()
    agent.send("go")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("stopped")
    assert result.cause == AbortCause(kind="hook", reason="enough tools")
    assert [n.text for n in result.notices] == ["enough tools"]
    assert len(h.requests()) == 1
    end = agent.events[-1]
    assert isinstance(end, TurnEnd)
    assert end.reason == TurnEndReason("stopped")
    assert types(agent.events)[-3:] == ["tool/result", "notice", "turn/end"]


async def test_a_failing_model_ends_the_turn_in_error_and_fires_turn_error(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([http_error(400, "CASE-400")]))
    errors: list[Exception] = []

    async def on_error(agent: Agent, error: Exception) -> None:
        errors.append(error)

    h.ctx.on(TURN_ERROR, on_error)
    agent = h.agent()
    agent.send("go")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("error")
    assert len(errors) == 1
    assert isinstance(errors[0], ModelError)
    assert errors[0].status == 400
    assert result.error is not None
    assert "CASE-400" in result.error
    end = agent.events[-1]
    assert isinstance(end, TurnEnd)
    assert end.error is not None
    assert "CASE-400" in end.error
    assert types(agent.events) == ["turn/start", "user/message", "turn/end"]


async def test_a_failing_listener_ends_the_turn_in_error_and_the_log_stays_closed(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([bash("echo x")], [text("never")]))

    async def broken(
        agent: Agent, results: tuple[ToolExecutionResult, ...], next: Next[PostToolBatchDecision]
    ) -> PostToolBatchDecision:
        raise RuntimeError("listener bug")

    h.ctx.on(POST_TOOL_BATCH, broken)
    agent = h.agent()
    agent.send("go")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("error")
    assert result.error == "RuntimeError: listener bug"
    assert types(h.store.load(agent.session_id))[-1] == "turn/end"


async def test_a_continue_reason_is_steering_at_the_top_of_the_next_step(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([text("first")], [text("second")]))
    states: list[tuple[str, int, bool]] = []

    async def keep_going(
        agent: Agent, state: ContinuationState, next: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        states.append((state.decision.kind, state.streak, state.stop_hook_active))
        if state.streak == 0:
            return ContinuationDecision.continue_("CHECK-AGAIN")
        return await next()

    h.ctx.on(TURN_CONTINUATION, keep_going)
    agent = h.agent()
    agent.send("go")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("completed")
    assert (result.steps, result.final_text) == (2, "second")
    assert states == [("stop", 0, False), ("stop", 1, True)]
    assert types(agent.events) == [
        "turn/start",
        "user/message",
        "assistant/message",
        "steering/message",
        "assistant/message",
        "turn/end",
    ]
    steering = agent.events[3]
    assert isinstance(steering, SteeringMessageEvent)
    assert (steering.text, steering.source) == ("CHECK-AGAIN", "continuation")
    assert h.requests()[1]["messages"][-1] == {"role": "steering", "text": "CHECK-AGAIN"}


async def test_the_continuation_streak_resets_after_a_step_that_ran_a_tool(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([text("a")], [bash("echo t")], [text("b")], [text("c")]))
    streaks: list[int] = []

    async def keep_going(
        agent: Agent, state: ContinuationState, next: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        streaks.append(state.streak)
        if len(streaks) < 3:
            return ContinuationDecision.continue_()
        return await next()

    h.ctx.on(TURN_CONTINUATION, keep_going)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    # a (streak 0) -> continue; tool step resets; b (streak 0) -> continue; c (streak 1).
    assert streaks == [0, 0, 1]
    # A continue without a reason adds no steering.
    assert of_type(agent.events, SteeringMessageEvent) == []


async def test_forced_continuations_are_capped_and_reaching_the_cap_is_recorded(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([text("again")]))
    streaks: list[int] = []

    async def forever(
        agent: Agent, state: ContinuationState, next: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        streaks.append(state.streak)
        return ContinuationDecision.continue_("more")

    h.ctx.on(TURN_CONTINUATION, forever)
    agent = h.agent(continuation_cap=3)
    agent.send("go")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("completed")
    assert streaks == [0, 1, 2, 3]
    assert result.steps == 4
    assert len(of_type(agent.events, SteeringMessageEvent)) == 3
    assert len(result.notices) == 1
    assert "continuation cap" in result.notices[0].text
    assert types(agent.events)[-2:] == ["notice", "turn/end"]


async def test_turn_stop_runs_before_each_model_call_after_the_first(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("echo 1")], [bash("echo 2")], [text("never")]))
    asked: list[int] = []

    async def stop_at_three(agent: Agent, step: int) -> TurnStop | None:
        asked.append(step)
        return TurnStop("budget exhausted") if step == 3 else None

    h.ctx.on(TURN_STOP, stop_at_three)
    agent = h.agent()
    agent.send("go")
    result = await agent.run_turn()
    assert asked == [2, 3]
    assert result.end_reason == TurnEndReason("stopped")
    assert result.cause == AbortCause(kind="hook", reason="budget exhausted")
    assert result.steps == 2
    assert len(h.requests()) == 2


async def test_the_first_turn_stop_wins_and_later_listeners_are_not_asked(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("echo 1")], [text("never")]))
    later: list[int] = []

    async def first(agent: Agent, step: int) -> TurnStop | None:
        return TurnStop("first")

    async def second(agent: Agent, step: int) -> TurnStop | None:
        later.append(step)
        return TurnStop("second")

    h.ctx.on(TURN_STOP, first)
    h.ctx.on(TURN_STOP, second)
    agent = h.agent()
    agent.send("go")
    result = await agent.run_turn()
    assert result.cause == AbortCause(kind="hook", reason="first")
    assert later == []


async def test_the_step_limit_ends_the_turn_as_max_steps(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("echo again")]))
    agent = h.agent(max_steps=2)
    agent.send("loop")
    result = await agent.run_turn()
    assert result.end_reason == TurnEndReason("max_steps")
    assert result.steps == 2
    assert len(h.requests()) == 2


async def test_steering_is_recorded_at_the_top_of_the_next_step(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("echo t")], [text("steered")]))

    async def steer_during_tool(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        assert isinstance(call.agent, Agent)
        call.agent.steer("USE-TABS")
        return await next()

    h.ctx.on(POST_EXECUTE, steer_during_tool)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    assert types(agent.events)[3:7] == [
        "tool/call",
        "tool/result",
        "steering/message",
        "assistant/message",
    ]
    steering = agent.events[5]
    assert isinstance(steering, SteeringMessageEvent)
    assert (steering.text, steering.source) == ("USE-TABS", "user")


async def test_queued_steering_makes_the_incoming_continuation_decision_continue(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([text("a")], [text("b")]))
    incoming: list[str] = []

    async def watch(
        agent: Agent, state: ContinuationState, next: Next[ContinuationDecision]
    ) -> ContinuationDecision:
        incoming.append(state.decision.kind)
        if len(incoming) == 1:
            agent.steer("one more thing")
            # The loop's own decision was made before this listener steered.
        return await next()

    h.ctx.on(TURN_CONTINUATION, watch)
    agent = h.agent()
    agent.steer("queued before the turn")
    agent.send("go")
    await agent.run_turn()
    assert incoming == ["stop"]
    steering = of_type(agent.events, SteeringMessageEvent)
    assert [s.text for s in steering] == ["queued before the turn"]


async def test_notices_are_logged_but_never_reach_the_model(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("echo t")], [text("ok")]))

    async def tell_user(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        assert isinstance(call.agent, Agent)
        call.agent.notice("USER-ONLY", source="plugin:tell", level="warning")
        return await next()

    h.ctx.on(POST_EXECUTE, tell_user)
    agent = h.agent()
    agent.send("go")
    result = await agent.run_turn()
    assert [(n.text, n.source, n.level) for n in result.notices] == [
        ("USER-ONLY", "plugin:tell", "warning")
    ]
    notices = of_type(agent.events, NoticeEvent)
    assert len(notices) == 1
    assert "USER-ONLY" not in str(h.requests())


async def test_tool_calls_are_logged_before_they_run(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([bash("echo t")], [text("ok")]))
    seen_at_run: list[list[str]] = []

    async def observe(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        assert isinstance(call.agent, Agent)
        seen_at_run.append(types(call.agent.events)[-1:])
        return await next()

    h.ctx.on(POST_EXECUTE, observe)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    assert seen_at_run == [["tool/call"]]
    call_event = of_type(agent.events, ToolCallEvent)[0]
    assistant = of_type(agent.events, AssistantMessageEvent)[0]
    assert call_event.tool_use_id == assistant.tool_calls[0].id
    assert call_event.tool_name == "Bash"


async def test_context_injected_while_a_tool_runs_lands_after_the_steps_results(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, replies([bash("echo 1"), bash("echo 2")], [text("ok")]))

    async def inject_during(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        assert isinstance(call.agent, Agent)
        call.agent.inject(f"INJECTED {call.arguments['command']}", "plugin:inject")
        return await next()

    h.ctx.on(POST_EXECUTE, inject_during)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    assert types(agent.events)[3:9] == [
        "tool/call",
        "tool/result",
        "tool/call",
        "tool/result",
        "context/message",
        "context/message",
    ]
    contexts = of_type(agent.events, ContextMessageEvent)
    assert [(c.source, c.text) for c in contexts] == [
        ("plugin:inject", "INJECTED echo 1"),
        ("plugin:inject", "INJECTED echo 2"),
    ]
