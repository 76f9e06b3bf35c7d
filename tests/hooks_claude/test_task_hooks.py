"""TaskCreated and TaskCompleted on the task tools' seams: real hook processes, the real loop.

TaskCreated fires while TaskCreate runs (the id assigned, the task not yet
kept); TaskCompleted while TaskUpdate would mark a task completed. Exit 2 or
``decision: "block"`` refuses the change and the model reads the reasons: as
TaskCreate's error result, as TaskUpdate's non-error ``success: false`` result
(Claude Code 2.1.332's); ``systemMessage`` is a notice; ``continue: false`` is
ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dsh.base import thaw_json
from dsh.session import NoticeEvent, ToolResultEvent
from tests.agent.support import of_type, replies, text, tool
from tests.hooks_claude.bridge_support import Rig, hook_command, make_rig

CREATE = tool("TaskCreate", subject="Sample task", description="do the thing")
COMPLETE = tool("TaskUpdate", taskId="1", status="completed")


def rig(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers: dict[str, Any], *steps: Any
) -> Rig:
    script = replies(*[[s] for s in steps], [tool("TaskList")], [text("done")])
    return make_rig(tmp_path, monkeypatch, script, ["TaskCreated", "TaskCompleted"], answers)


def results(agent: Any) -> list[tuple[str, bool]]:
    out = []
    for e in of_type(agent.events, ToolResultEvent):
        content = e.content if isinstance(e.content, str) else "".join(b.text for b in e.content)
        out.append((content, e.is_error))
    return out


async def test_the_hooks_see_the_task_and_allow_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {}, CREATE, COMPLETE)
    agent, _ = await r.run("track it")
    assert r.order() == ["TaskCreated", "TaskCompleted"]
    for event in ("TaskCreated", "TaskCompleted"):
        (payload,) = r.payloads(event)
        assert payload["hook_event_name"] == event
        assert (payload["task_id"], payload["task_subject"], payload["task_description"]) == (
            "1",
            "Sample task",
            "do the thing",
        )
        assert "permission_mode" not in payload
        assert "effort" not in payload
        assert "prompt_id" in payload
    assert results(agent) == [
        ("Task #1 created successfully: Sample task", False),
        ("Updated task #1 status", False),
        ("#1 [completed] Sample task", False),
    ]


@pytest.mark.parametrize(
    "answer",
    [
        {"exit": 2, "stderr": "CASE-NO-TASKS"},
        {"stdout": {"decision": "block", "reason": "CASE-NO-TASKS"}},
    ],
)
async def test_a_blocked_creation_keeps_no_task_and_the_model_reads_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: dict[str, Any]
) -> None:
    r = rig(tmp_path, monkeypatch, {"TaskCreated": answer}, CREATE)
    agent, _ = await r.run("track it")
    (created, listed) = results(agent)
    assert created == (
        f"TaskCreated hook feedback:\n[{hook_command('TaskCreated')}]: CASE-NO-TASKS",
        True,
    )
    assert listed == ("No tasks found", False)
    assert r.order() == ["TaskCreated"]


async def test_a_blocked_completion_leaves_the_task_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = {"TaskCompleted": {"exit": 2, "stderr": "CASE-TESTS-FAIL"}}
    r = rig(tmp_path, monkeypatch, answers, CREATE, COMPLETE)
    agent, _ = await r.run("track it")
    feedback = f"TaskCompleted hook feedback:\n[{hook_command('TaskCompleted')}]: CASE-TESTS-FAIL"
    assert results(agent) == [
        ("Task #1 created successfully: Sample task", False),
        (feedback, False),
        ("#1 [pending] Sample task", False),
    ]
    update = of_type(agent.events, ToolResultEvent)[1]
    assert thaw_json(update.output) == {
        "success": False,
        "taskId": "1",
        "updatedFields": [],
        "error": feedback,
    }


async def test_a_system_message_is_a_notice_and_continue_false_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = {"stdout": {"systemMessage": "CASE-NOTE", "continue": False, "stopReason": "x"}}
    r = rig(tmp_path, monkeypatch, {"TaskCreated": answer}, CREATE)
    agent, result = await r.run("track it")
    assert result.end_reason == "completed"
    assert results(agent)[0] == ("Task #1 created successfully: Sample task", False)
    assert "CASE-NOTE" in [n.text for n in of_type(agent.events, NoticeEvent)]
