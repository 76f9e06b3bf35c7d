"""``agent/message-display``: a root agent's text, shown or replaced for the user only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dsh.agent import (
    MESSAGE_DISPLAY,
    Agent,
    DisplayDecision,
    DisplayRequest,
    subagent_plugin,
)
from dsh.context import Next
from dsh.messages import AssistantMessage
from dsh.session import (
    AssistantDisplayEvent,
    AssistantMessageEvent,
    JsonlSessionStore,
    TurnEndReason,
    project,
)
from tests.agent.support import bash, make_harness, of_type, text, tool, types

COMPLETED = TurnEndReason("completed")


def _two_steps() -> dict[str, Any]:
    return {"responses": [[text("I'll run it."), bash("echo hi")], [text("Done: printed hi.")]]}


async def test_each_text_message_is_offered_after_it_is_logged_and_before_its_calls(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, _two_steps())
    seen: list[tuple[DisplayRequest, list[str]]] = []

    async def display(
        agent: Agent, request: DisplayRequest, nxt: Next[DisplayDecision]
    ) -> DisplayDecision:
        seen.append((request, types(agent.events)))
        assert agent.turn_id == request.turn_id
        return await nxt()

    h.ctx.on(MESSAGE_DISPLAY, display)
    agent = h.agent()
    agent.send("Please run echo hi")
    result = await agent.run_turn()
    assert result.end_reason == COMPLETED
    messages = of_type(agent.events, AssistantMessageEvent)
    assert [(r.text, r.message_id, r.index, r.final) for r, _ in seen] == [
        ("I'll run it.", messages[0].id, 0, True),
        ("Done: printed hi.", messages[1].id, 0, True),
    ]
    # The message is already logged; its tool call is not sealed yet.
    first_log = seen[0][1]
    assert first_log[-1] == "assistant/message"
    assert "tool/call" not in first_log
    # Nothing was replaced, so nothing extra was logged.
    assert of_type(agent.events, AssistantDisplayEvent) == []


async def test_a_replacement_is_logged_for_the_user_and_the_model_keeps_the_original(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, _two_steps())

    async def redact(
        agent: Agent, request: DisplayRequest, nxt: Next[DisplayDecision]
    ) -> DisplayDecision:
        if "hi" in request.text:
            return DisplayDecision.replace(request.text.replace("hi", "[REDACTED]"))
        return await nxt()

    h.ctx.on(MESSAGE_DISPLAY, redact)
    agent = h.agent()
    agent.send("Please run echo hi")
    await agent.run_turn()
    messages = of_type(agent.events, AssistantMessageEvent)
    (shown,) = of_type(agent.events, AssistantDisplayEvent)
    assert (shown.message_id, shown.text) == (messages[1].id, "Done: printed [REDACTED].")
    # Logged right after its message, inside the turn.
    i = list(agent.events).index(messages[1])
    assert agent.events[i + 1] == shown
    assert shown.turn_id == messages[1].turn_id
    # Never model-visible: the projection and the model's next request keep the original.
    texts = [m.text for m in project(agent.events) if isinstance(m, AssistantMessage)]
    assert texts == ["I'll run it.", "Done: printed hi."]
    agent.send("again")
    await agent.run_turn()
    last = h.requests()[-1]
    assert "Done: printed hi." in [m.get("text") for m in last["messages"]]
    assert "[REDACTED]" not in str(last)
    # Durable: the event survives a reload of the log.
    session_id = agent.session_id
    agent.session.close()
    reloaded = JsonlSessionStore(tmp_path / "sessions").load(session_id)
    displayed = of_type(agent.events, AssistantDisplayEvent)
    assert shown in displayed
    assert [e for e in reloaded if isinstance(e, AssistantDisplayEvent)] == displayed


async def test_tool_call_only_messages_are_not_offered(tmp_path: Path) -> None:
    h = make_harness(tmp_path, {"responses": [[bash("echo hi")], [text("Changed dir.")]]})
    offered: list[str] = []

    async def display(
        agent: Agent, request: DisplayRequest, nxt: Next[DisplayDecision]
    ) -> DisplayDecision:
        offered.append(request.text)
        return await nxt()

    h.ctx.on(MESSAGE_DISPLAY, display)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    assert offered == ["Changed dir."]


async def test_a_subagents_text_is_never_offered(tmp_path: Path) -> None:
    script = {
        "rules": [
            {
                "first_user_contains": "SUBTASK",
                "responses": [[text("child says hello"), bash("echo x")], [text("CHILD-DONE")]],
            },
            {
                "has_tool": "Agent",
                "responses": [
                    [
                        text("Delegating."),
                        tool(
                            "Agent",
                            description="d",
                            subagent_type="general-purpose",
                            prompt="SUBTASK: do it",
                            run_in_background=False,
                        ),
                    ],
                    [text("Subagent finished.")],
                ],
            },
        ],
        "default": text("side-answer"),
    }
    h = make_harness(tmp_path, script)
    h.ctx.plugin(subagent_plugin)
    offered: list[tuple[bool, str]] = []

    async def display(
        agent: Agent, request: DisplayRequest, nxt: Next[DisplayDecision]
    ) -> DisplayDecision:
        offered.append((agent.parent is None, request.text))
        return DisplayDecision.replace(request.text.upper())

    h.ctx.on(MESSAGE_DISPLAY, display)
    agent = h.agent()
    agent.send("delegate")
    result = await agent.run_turn()
    assert result.end_reason == COMPLETED
    assert offered == [(True, "Delegating."), (True, "Subagent finished.")]
    # The child's answer reached the parent unchanged.
    assert "CHILD-DONE" in str(h.requests()[-1])


async def test_a_failing_listener_shows_the_original_and_the_turn_goes_on(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, _two_steps())

    async def broken(
        agent: Agent, request: DisplayRequest, nxt: Next[DisplayDecision]
    ) -> DisplayDecision:
        raise RuntimeError("display plugin bug")

    h.ctx.on(MESSAGE_DISPLAY, broken)
    agent = h.agent()
    agent.send("Please run echo hi")
    result = await agent.run_turn()
    assert result.end_reason == COMPLETED
    assert result.final_text == "Done: printed hi."
    assert of_type(agent.events, AssistantDisplayEvent) == []


def test_display_decisions_are_built_by_name() -> None:
    assert DisplayDecision.show().kind == "show"
    replaced = DisplayDecision.replace("")
    assert (replaced.kind, replaced.text) == ("replace", "")
    with pytest.raises(TypeError, match="must be a string"):
        DisplayDecision.replace(3)  # type: ignore[arg-type]
