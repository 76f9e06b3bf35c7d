"""Projection of a session's events to the model-facing message list."""

from __future__ import annotations

from dsh.messages import (
    AssistantMessage,
    ContextMessage,
    SteeringMessage,
    SummaryMessage,
    TextBlock,
    ToolResultMessage,
    ToolUse,
    UserMessage,
)
from dsh.session import (
    INTERRUPTED_TOOL_RESULT,
    AbortCause,
    AssistantMessageEvent,
    CompactionEnd,
    CompactionStart,
    ContextMessageEvent,
    MemorySessionStore,
    NoticeEvent,
    OpaqueEvent,
    PromptBlockedEvent,
    SessionEvent,
    SteeringMessageEvent,
    SubagentEnd,
    SubagentStart,
    ToolCallEvent,
    ToolResultEvent,
    TurnEnd,
    TurnEndReason,
    TurnStart,
    UserMessageEvent,
    project,
)


def call(i: str) -> ToolUse:
    return ToolUse(i, "Read", {"path": f"/{i}"})


def result(i: str, text: str = "ok", *, error: bool = False) -> ToolResultEvent:
    return ToolResultEvent(token=f"tok-{i}", tool_use_id=i, content=text, is_error=error)


def test_a_turn_projects_in_log_order_and_hides_what_the_model_never_sees() -> None:
    events: list[SessionEvent] = [
        TurnStart(turn_id="t1"),
        PromptBlockedEvent(prompt="rm -rf /", reason="policy"),
        ContextMessageEvent(source="hook:claude:SessionStart", text="repo is dsh"),
        UserMessageEvent(content=(TextBlock("read a and b"),)),
        AssistantMessageEvent(text="reading", tool_calls=(call("a"), call("b"))),
        ToolCallEvent(token="tok-a", tool_use_id="a", tool_name="Read", arguments={}),
        ToolCallEvent(token="tok-b", tool_use_id="b", tool_name="Read", arguments={}),
        result("a", "A"),
        NoticeEvent(text="b is slow"),
        result("b", "B failed", error=True),
        ContextMessageEvent(source="plugin:lint", text="b has lint errors"),
        SteeringMessageEvent(text="focus on a"),
        SubagentStart(child_session_id="c", agent_type="explore"),
        SubagentEnd(child_session_id="c", end_reason="completed"),
        AssistantMessageEvent(text="done"),
        TurnEnd(reason=TurnEndReason.COMPLETED),
        OpaqueEvent(event_type="hook/result", data=None, raw=b"{}"),
    ]
    assert project(events) == [
        ContextMessage("hook:claude:SessionStart", "repo is dsh"),
        UserMessage((TextBlock("read a and b"),)),
        AssistantMessage("reading", (call("a"), call("b"))),
        ToolResultMessage("a", "A"),
        ToolResultMessage("b", "B failed", is_error=True),
        ContextMessage("plugin:lint", "b has lint errors"),
        SteeringMessage("focus on a"),
        AssistantMessage("done"),
    ]


def test_a_rejected_turn_contributes_nothing() -> None:
    events = [
        TurnStart(),
        PromptBlockedEvent(prompt="secret", reason="no"),
        TurnEnd(reason=TurnEndReason.REJECTED),
    ]
    assert project(events) == []


def test_a_tool_call_left_without_a_result_gets_an_interrupted_error() -> None:
    # A crash mid-step, then the session resumed with a new prompt.
    events: list[SessionEvent] = [
        UserMessageEvent(content="go"),
        AssistantMessageEvent(text="", tool_calls=(call("a"), call("b"))),
        result("a"),
        TurnEnd(reason=TurnEndReason.ABORTED, cause=AbortCause("user", "ctrl-c")),
        UserMessageEvent(content="continue"),
        AssistantMessageEvent(text="", tool_calls=(call("c"),)),
    ]
    assert project(events) == [
        UserMessage("go"),
        AssistantMessage("", (call("a"), call("b"))),
        ToolResultMessage("a", "ok"),
        ToolResultMessage("b", INTERRUPTED_TOOL_RESULT, is_error=True),
        UserMessage("continue"),
        AssistantMessage("", (call("c"),)),
        ToolResultMessage("c", INTERRUPTED_TOOL_RESULT, is_error=True),
    ]


def test_messages_logged_between_results_wait_until_the_calls_are_answered() -> None:
    events: list[SessionEvent] = [
        AssistantMessageEvent(text="", tool_calls=(call("a"), call("b"))),
        result("a"),
        ContextMessageEvent(source="plugin:x", text="early context"),
        result("b"),
    ]
    assert project(events) == [
        AssistantMessage("", (call("a"), call("b"))),
        ToolResultMessage("a", "ok"),
        ToolResultMessage("b", "ok"),
        ContextMessage("plugin:x", "early context"),
    ]


def test_results_that_answer_no_pending_call_are_not_model_visible() -> None:
    events: list[SessionEvent] = [
        ToolResultEvent(token="direct", content="user-run tool"),
        AssistantMessageEvent(text="", tool_calls=(call("a"),)),
        result("a", "first"),
        result("a", "duplicate"),
        result("zzz", "unknown id"),
    ]
    assert project(events) == [
        AssistantMessage("", (call("a"),)),
        ToolResultMessage("a", "first"),
    ]


def test_compaction_replaces_the_history_before_it_with_the_summary() -> None:
    events: list[SessionEvent] = [
        UserMessageEvent(content="one"),
        AssistantMessageEvent(text="reply one"),
        CompactionStart(trigger="manual", instructions="keep names"),
        SteeringMessageEvent(text="arrived during compaction"),
        CompactionEnd(summary="we said one"),
        ContextMessageEvent(source="hook:claude:SessionStart", text="compact context"),
        UserMessageEvent(content="two"),
    ]
    assert project(events) == [
        SummaryMessage("we said one"),
        SteeringMessage("arrived during compaction"),
        ContextMessage("hook:claude:SessionStart", "compact context"),
        UserMessage("two"),
    ]


def test_a_compaction_that_never_ended_changes_nothing() -> None:
    events: list[SessionEvent] = [
        UserMessageEvent(content="one"),
        CompactionStart(),
        UserMessageEvent(content="two"),
    ]
    assert project(events) == [UserMessage("one"), UserMessage("two")]


def test_a_second_compaction_summarizes_over_the_first() -> None:
    events: list[SessionEvent] = [
        UserMessageEvent(content="one"),
        CompactionStart(),
        CompactionEnd(summary="s1"),
        UserMessageEvent(content="two"),
        CompactionStart(),
        CompactionEnd(summary="s2"),
        UserMessageEvent(content="three"),
    ]
    assert project(events) == [SummaryMessage("s2"), UserMessage("three")]


def test_projection_of_a_reloaded_log_equals_projection_of_the_live_one() -> None:
    store = MemorySessionStore()
    with store.create() as log:
        log.append_many(
            [
                UserMessageEvent(content="go"),
                AssistantMessageEvent(text="", tool_calls=(call("a"),)),
                result("a"),
            ]
        )
        live = project(log.events)
    assert project(store.load(log.id)) == live
    assert live[-1] == ToolResultMessage("a", "ok")
