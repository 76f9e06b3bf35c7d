"""The task tools through the real registry, and their two seams.

TaskCreate, TaskGet, TaskList and TaskUpdate run as an agent would run them:
a ``ToolRegistry`` with a ``Context``, the built-in tools registered and a
``Workspace`` in tmp_path. The recorded Claude Code case gives the exact
outputs and texts; listeners on ``TASK_CREATED`` / ``TASK_COMPLETED`` allow,
block, or fail; hypothesis checks that any sequence of calls keeps TaskList
equal to a plain model of the list.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from dsh.base import freeze_json, thaw_json
from dsh.context import Context, Next
from dsh.tools import (
    TASK_COMPLETED,
    TASK_CREATED,
    TOOLS,
    Task,
    TaskAllow,
    TaskBlock,
    TaskDecision,
    ToolInvocation,
    ToolRegistry,
    ToolRequest,
    ToolResult,
    Workspace,
)
from dsh.tools.builtin import (
    TASK_CREATE_TOOL,
    TASK_GET_TOOL,
    TASK_LIST_TOOL,
    TASK_UPDATE_TOOL,
    TaskCreateOutput,
    TaskGetOutput,
    TaskListOutput,
    TaskUpdateOutput,
    builtin_tools,
)
from dsh.tools.builtin._tasks import TASKS_STATE_KEY
from tests.tools.support import FakeAgent

from ._support import CONFORMANCE

CASE = CONFORMANCE / "task-tools"
TOOLS_BY_NAME = {
    t.name: t for t in (TASK_CREATE_TOOL, TASK_GET_TOOL, TASK_LIST_TOOL, TASK_UPDATE_TOOL)
}
OUTPUT_MODELS: dict[str, type[BaseModel]] = {
    "TaskCreate": TaskCreateOutput,
    "TaskGet": TaskGetOutput,
    "TaskList": TaskListOutput,
    "TaskUpdate": TaskUpdateOutput,
}

Listener = Callable[[Any, Task, Next[TaskDecision]], Awaitable[TaskDecision]]


class Session:
    """A registry with the built-in tools and one session's workspace and agent."""

    def __init__(self, cwd: Path) -> None:
        self.ctx = Context()
        self.registry = ToolRegistry(self.ctx)
        self.ctx.provide(TOOLS, self.registry)
        for tool in builtin_tools():
            self.registry.register(tool)
        self.workspace = Workspace(cwd)
        self.agent = FakeAgent("sess-1", self.workspace)
        self.seen: list[tuple[str, Any, Task]] = []

    async def call(self, name: str, **arguments: Any) -> ToolResult:
        executed = await self.registry.execute(
            ToolRequest(name, arguments, "toolu_task"), agent=self.agent
        )
        result = executed.result
        if not result.is_error:
            assert_presented(name, result)
        return result

    async def tasks(self) -> list[dict[str, Any]]:
        listed = await self.call("TaskList")
        tasks: list[dict[str, Any]] = thaw_json(out(listed))["tasks"]
        return tasks

    async def get(self, task_id: str) -> ToolResult:
        return await self.call("TaskGet", taskId=task_id)

    def record(self, channel_name: str, decide: TaskDecision | None = None) -> Listener:
        """A listener that notes what it saw, then answers ``decide`` (else passes on)."""

        async def listener(agent: Any, task: Task, next: Next[TaskDecision]) -> TaskDecision:
            self.seen.append((channel_name, agent, task))
            return decide if decide is not None else await next()

        return listener


def out(result: ToolResult) -> Any:
    """The result's output as plain JSON (lists, not the frozen tuples)."""
    return thaw_json(result.output)


def assert_presented(name: str, result: ToolResult) -> None:
    """A success's output fits the tool's output model and ``present`` renders its content."""
    tool = TOOLS_BY_NAME[name]
    plain = thaw_json(out(result))
    assert tool.load_output_model() is OUTPUT_MODELS[name]
    OUTPUT_MODELS[name].model_validate(plain)
    assert tool.present is not None
    assert tool.present(plain) == result.content
    assert tool.present_output(freeze_json(plain)) == result.content


@pytest.fixture
def session(tmp_path: Path) -> Session:
    return Session(tmp_path)


# The recorded case ------------------------------------------------------------------------


def _recorded(name: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((CASE / name).read_text())["payload"]
    return payload


async def test_the_recorded_calls_give_the_recorded_outputs_and_texts(session: Session) -> None:
    case = json.loads((CASE / "case.json").read_text())
    shown = [item["tool_result"] for item in case["model_view"][-1]["hook_relevant"]]
    pres = [_recorded("PreToolUse.json"), _recorded("PreToolUse-2.json")]
    calls = [_recorded("PostToolUse.json"), _recorded("PostToolUse-2.json")]
    batches = [_recorded("PostToolBatch.json"), _recorded("PostToolBatch-2.json")]
    session.ctx.on(TASK_CREATED, session.record("created"))
    session.ctx.on(TASK_COMPLETED, session.record("completed"))
    for pre, post, batch, text in zip(pres, calls, batches, shown, strict=True):
        assert pre["tool_input"] == post["tool_input"]
        result = await session.call(post["tool_name"], **post["tool_input"])
        assert not result.is_error
        assert thaw_json(out(result)) == post["tool_response"]
        assert result.content == text == batch["tool_calls"][0]["tool_response"]
    # The seams saw what Claude Code's TaskCreated / TaskCompleted hooks were given.
    assert [kind for kind, _, _ in session.seen] == ["created", "completed"]
    for (_, agent, task), event in zip(
        session.seen, ("TaskCreated.json", "TaskCompleted.json"), strict=True
    ):
        hook = _recorded(event)
        assert agent is session.agent
        assert (task.id, task.subject, task.description) == (
            hook["task_id"],
            hook["task_subject"],
            hook["task_description"],
        )
        assert task.active_form == "Doing the thing"
        assert task.status == "pending"  # TaskCompleted: as it was, before the change


# Ids ------------------------------------------------------------------------------------------


async def test_ids_count_per_session_from_one(tmp_path: Path) -> None:
    first, second = Session(tmp_path), Session(tmp_path)
    for expected in ("1", "2", "3"):
        result = await first.call("TaskCreate", subject=f"t{expected}", description="d")
        assert out(result)["task"]["id"] == expected
        assert result.content == f"Task #{expected} created successfully: t{expected}"
    other = await second.call("TaskCreate", subject="s", description="d")
    assert out(other)["task"]["id"] == "1"  # a new Workspace starts at 1


async def test_ids_are_never_reused_after_a_delete_or_a_block(session: Session) -> None:
    await session.call("TaskCreate", subject="a", description="")
    await session.call("TaskCreate", subject="b", description="")
    await session.call("TaskUpdate", taskId="2", status="deleted")
    created = await session.call("TaskCreate", subject="c", description="")
    assert out(created)["task"]["id"] == "3"
    dispose = session.ctx.on(TASK_CREATED, session.record("created", TaskDecision.block("no")))
    refused = await session.call("TaskCreate", subject="d", description="")
    assert refused.is_error
    dispose()
    created = await session.call("TaskCreate", subject="e", description="")
    assert out(created)["task"]["id"] == "5"
    assert [t["id"] for t in await session.tasks()] == ["1", "3", "5"]


# TaskUpdate -------------------------------------------------------------------------------------


async def test_update_lists_changed_fields_in_claude_codes_order(session: Session) -> None:
    await session.call("TaskCreate", subject="a", description="d", activeForm="Doing a")
    await session.call("TaskCreate", subject="b", description="")
    await session.call("TaskCreate", subject="c", description="")
    result = await session.call(
        "TaskUpdate",
        taskId="1",
        addBlockedBy=["3"],
        addBlocks=["2"],
        status="in_progress",
        metadata={"k": 1},
        owner="me",
        activeForm="Doing A",
        description="d2",
        subject="A",
    )
    assert out(result) == {
        "success": True,
        "taskId": "1",
        "updatedFields": [
            "subject",
            "description",
            "activeForm",
            "owner",
            "metadata",
            "status",
            "blocks",
            "blockedBy",
        ],
        "statusChange": {"from": "pending", "to": "in_progress"},
    }
    assert result.content == (
        "Updated task #1 subject, description, activeForm, owner, metadata, status, blocks,"
        " blockedBy"
    )
    got = await session.get("1")
    assert out(got) == {
        "task": {
            "id": "1",
            "subject": "A",
            "description": "d2",
            "status": "in_progress",
            "blocks": ["2"],
            "blockedBy": ["3"],
        }
    }
    # Both sides of each link.
    assert out(await session.get("2"))["task"]["blockedBy"] == ["1"]
    assert out(await session.get("3"))["task"]["blocks"] == ["1"]


async def test_update_leaves_out_unchanged_values(session: Session) -> None:
    await session.call("TaskCreate", subject="a", description="d")
    await session.call("TaskCreate", subject="b", description="")
    await session.call("TaskUpdate", taskId="1", addBlocks=["2"])
    same = await session.call(
        "TaskUpdate", taskId="1", subject="a", description="d", status="pending", addBlocks=["2"]
    )
    assert out(same) == {"success": True, "taskId": "1", "updatedFields": []}
    assert same.content == "Updated task #1 "  # Claude Code's text, its trailing space too
    twice = await session.call("TaskUpdate", taskId="2", addBlockedBy=["1", "1"])
    assert out(twice)["updatedFields"] == []


async def test_metadata_merges_and_null_deletes_a_key(session: Session) -> None:
    await session.call("TaskCreate", subject="a", description="", metadata={"a": 1, "b": [2]})
    result = await session.call("TaskUpdate", taskId="1", metadata={"b": None, "c": {"d": 3}})
    assert out(result)["updatedFields"] == ["metadata"]
    session.ctx.on(TASK_COMPLETED, session.record("completed"))
    await session.call("TaskUpdate", taskId="1", status="completed")
    task = session.seen[-1][2]
    assert thaw_json(task.metadata) == {"a": 1, "c": {"d": 3}}
    with pytest.raises(TypeError):
        task.metadata["a"] = 2  # frozen: a listener cannot change the kept task


async def test_deleted_removes_the_task_and_its_links(session: Session) -> None:
    for subject in ("a", "b", "c"):
        await session.call("TaskCreate", subject=subject, description="")
    await session.call("TaskUpdate", taskId="2", addBlockedBy=["1"], addBlocks=["3"])
    result = await session.call(
        "TaskUpdate", taskId="2", status="deleted", subject="ignored", owner="x"
    )
    assert out(result) == {
        "success": True,
        "taskId": "2",
        "updatedFields": ["deleted"],
        "statusChange": {"from": "pending", "to": "deleted"},
    }
    assert result.content == "Updated task #2 deleted"
    assert [t["id"] for t in await session.tasks()] == ["1", "3"]
    assert out(await session.get("1"))["task"]["blocks"] == []
    assert out(await session.get("3"))["task"]["blockedBy"] == []
    gone = await session.get("2")
    assert (gone.is_error, gone.content, out(gone)) == (False, "Task not found", {"task": None})
    again = await session.call("TaskUpdate", taskId="2", status="deleted")
    assert (again.is_error, again.content) == (False, "Task not found")


async def test_unknown_ids_are_errors_naming_them(session: Session) -> None:
    await session.call("TaskCreate", subject="a", description="")
    # An unknown task itself: a normal result, as 2.1.332's (claude_strict.json, `task-tools`).
    for name, arguments, output in [
        ("TaskGet", {"taskId": "9"}, {"task": None}),
        (
            "TaskUpdate",
            {"taskId": "9", "status": "completed"},
            {"success": False, "taskId": "9", "updatedFields": [], "error": "Task not found"},
        ),
    ]:
        result = await session.call(name, **arguments)
        assert (result.is_error, result.content, out(result)) == (False, "Task not found", output)
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("TaskUpdate", {"taskId": "1", "subject": "x", "addBlocks": ["7"]}, "Task #7 not found"),
        ("TaskUpdate", {"taskId": "1", "addBlockedBy": ["1"]}, "Task #1 cannot block itself"),
    ]
    for name, arguments, text in cases:
        result = await session.call(name, **arguments)
        assert (result.is_error, result.code, result.content) == (True, "TOOL_ERROR", text)
    assert await session.tasks() == [
        {"id": "1", "subject": "a", "status": "pending", "blockedBy": []}
    ]


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("TaskCreate", {"subject": "a"}),
        ("TaskCreate", {"subject": 1, "description": ""}),
        ("TaskCreate", {"subject": "a", "description": "", "metadata": [1]}),
        ("TaskCreate", {"subject": "a", "description": "", "status": "pending"}),
        ("TaskGet", {}),
        ("TaskGet", {"taskId": 1}),
        ("TaskList", {"taskId": "1"}),
        ("TaskUpdate", {"status": "completed"}),
        ("TaskUpdate", {"taskId": "1", "status": "done"}),
        ("TaskUpdate", {"taskId": "1", "addBlocks": "2"}),
        ("TaskUpdate", {"taskId": "1", "addBlockedBy": [2]}),
        ("TaskUpdate", {"taskId": "1", "metadata": "k=1"}),
        ("TaskUpdate", {"taskId": "1", "blocks": ["2"]}),
    ],
)
async def test_invalid_inputs_are_refused_by_the_schema(
    session: Session, name: str, arguments: dict[str, Any]
) -> None:
    await session.call("TaskCreate", subject="a", description="")
    await session.call("TaskCreate", subject="b", description="")
    result = await session.call(name, **arguments)
    assert (result.is_error, result.code) == (True, "INVALID_ARGS")
    assert name in result.text
    assert [t["subject"] for t in await session.tasks()] == ["a", "b"]


# TaskGet and TaskList ------------------------------------------------------------------------


async def test_task_get_shows_the_task_and_its_links(session: Session) -> None:
    for subject in ("a", "b", "c"):
        await session.call("TaskCreate", subject=subject, description=f"do {subject}")
    await session.call("TaskUpdate", taskId="2", addBlockedBy=["1", "3"])
    await session.call("TaskUpdate", taskId="1", addBlocks=["3"])
    one, two = await session.get("1"), await session.get("2")
    assert one.content == "Task #1: a\nStatus: pending\nDescription: do a\nBlocks: #2, #3"
    assert two.content == "Task #2: b\nStatus: pending\nDescription: do b\nBlocked by: #1, #3"
    three = await session.get("3")
    assert three.content == (
        "Task #3: c\nStatus: pending\nDescription: do c\nBlocked by: #1\nBlocks: #2"
    )
    assert out(three) == {
        "task": {
            "id": "3",
            "subject": "c",
            "description": "do c",
            "status": "pending",
            "blocks": ["2"],
            "blockedBy": ["1"],
        }
    }


async def test_task_list_shape_and_text(session: Session) -> None:
    empty = await session.call("TaskList")
    assert (out(empty), empty.content) == ({"tasks": []}, "No tasks found")
    for subject in ("a", "b", "c"):
        await session.call("TaskCreate", subject=subject, description="")
    await session.call("TaskUpdate", taskId="3", addBlockedBy=["1", "2"], owner="ann")
    await session.call("TaskUpdate", taskId="1", status="completed")
    await session.call("TaskUpdate", taskId="2", status="in_progress")
    listed = await session.call("TaskList")
    # A completed blocker no longer blocks; owner appears only when there is one.
    assert out(listed) == {
        "tasks": [
            {"id": "1", "subject": "a", "status": "completed", "blockedBy": []},
            {"id": "2", "subject": "b", "status": "in_progress", "blockedBy": []},
            {"id": "3", "subject": "c", "status": "pending", "owner": "ann", "blockedBy": ["2"]},
        ]
    }
    assert listed.content == (
        "#1 [completed] a\n#2 [in_progress] b\n#3 [pending] c (ann) [blocked by #2]"
    )
    # TaskGet still names every blocker.
    assert out(await session.get("3"))["task"]["blockedBy"] == ["1", "2"]


def test_flags() -> None:
    for tool in (TASK_GET_TOOL, TASK_LIST_TOOL):
        assert tool.read_only
        assert tool.concurrency_safe
    for tool in (TASK_CREATE_TOOL, TASK_UPDATE_TOOL):
        assert not tool.read_only
        assert not tool.concurrency_safe  # listeners run between reading and changing the list


# The seams ------------------------------------------------------------------------------------


async def test_a_blocked_creation_fails_with_the_reason_and_keeps_nothing(
    session: Session,
) -> None:
    session.ctx.on(TASK_CREATED, session.record("created", TaskDecision.block("not now\nsorry")))
    result = await session.call("TaskCreate", subject="a", description="d", metadata={"x": 1})
    assert (result.is_error, result.code, result.content) == (True, "TOOL_ERROR", "not now\nsorry")
    assert result.output is None
    ((_, agent, task),) = session.seen
    assert agent is session.agent
    assert task == Task(id="1", subject="a", description="d", metadata={"x": 1})
    assert await session.tasks() == []
    assert (await session.get("1")).content == "Task not found"


async def test_a_chain_of_listeners_decides_in_order(session: Session) -> None:
    order: list[str] = []

    async def passes(agent: Any, task: Task, next: Next[TaskDecision]) -> TaskDecision:
        order.append("first")
        decision = await next()
        order.append(f"first saw {decision.kind}")
        return decision

    async def refuses_b(agent: Any, task: Task, next: Next[TaskDecision]) -> TaskDecision:
        order.append(f"second {task.subject}")
        return TaskDecision.block("no b") if task.subject == "b" else TaskDecision.allow()

    session.ctx.on(TASK_CREATED, passes)
    session.ctx.on(TASK_CREATED, refuses_b)
    assert not (await session.call("TaskCreate", subject="a", description="")).is_error
    assert (await session.call("TaskCreate", subject="b", description="")).content == "no b"
    assert order == ["first", "second a", "first saw allow", "first", "second b", "first saw block"]
    assert [t["subject"] for t in await session.tasks()] == ["a"]


async def test_task_completed_fires_only_on_a_change_to_completed(session: Session) -> None:
    session.ctx.on(TASK_COMPLETED, session.record("completed"))
    await session.call("TaskCreate", subject="a", description="d")
    await session.call("TaskUpdate", taskId="1", status="in_progress", owner="me")
    await session.call("TaskUpdate", taskId="1", status="pending")
    await session.call("TaskUpdate", taskId="1", subject="a2")
    assert session.seen == []
    done = await session.call("TaskUpdate", taskId="1", status="completed", subject="a3")
    assert out(done)["statusChange"] == {"from": "pending", "to": "completed"}
    ((_, agent, task),) = session.seen
    assert agent is session.agent
    # The task as it was: the same call's subject not applied yet.
    assert task == Task(id="1", subject="a2", description="d", owner="me", status="pending")
    await session.call("TaskUpdate", taskId="1", status="completed")  # no change: no event
    await session.call("TaskUpdate", taskId="1", status="deleted")  # not a completion
    assert len(session.seen) == 1


async def test_a_blocked_completion_applies_no_field_of_the_update(session: Session) -> None:
    await session.call("TaskCreate", subject="a", description="d")
    await session.call("TaskCreate", subject="b", description="")
    before = out(await session.get("1")), await session.tasks()
    session.ctx.on(TASK_COMPLETED, session.record("completed", TaskDecision.block("tests fail")))
    result = await session.call(
        "TaskUpdate",
        taskId="1",
        status="completed",
        subject="A",
        owner="me",
        metadata={"k": 1},
        addBlocks=["2"],
    )
    # Claude Code's answer: not an error, success false, the reason as text and error.
    assert (result.is_error, result.code, result.content) == (False, None, "tests fail")
    assert out(result) == {
        "success": False,
        "taskId": "1",
        "updatedFields": [],
        "error": "tests fail",
    }
    assert (out(await session.get("1")), await session.tasks()) == before
    assert out(await session.get("2"))["task"]["blockedBy"] == []


async def test_a_completion_blocked_once_can_complete_later(session: Session) -> None:
    answers = [TaskDecision.block("not yet"), TaskDecision.allow()]

    async def once(agent: Any, task: Task, next: Next[TaskDecision]) -> TaskDecision:
        return answers.pop(0)

    session.ctx.on(TASK_COMPLETED, once)
    await session.call("TaskCreate", subject="a", description="")
    assert out(await session.call("TaskUpdate", taskId="1", status="completed"))["success"] is False
    assert (await session.tasks())[0]["status"] == "pending"
    done = await session.call("TaskUpdate", taskId="1", status="completed", owner="me")
    assert out(done)["updatedFields"] == ["owner", "status"]
    assert (await session.tasks())[0]["status"] == "completed"


class Broken(RuntimeError):
    pass


async def _raises(agent: Any, task: Task, next: Next[TaskDecision]) -> TaskDecision:
    raise Broken("the policy server is down")


async def _returns_none(agent: Any, task: Task, next: Next[TaskDecision]) -> Any:
    return None


@pytest.mark.parametrize(
    ("listener", "error"),
    [
        (_raises, "Broken: the policy server is down"),
        (_returns_none, "ChannelError: listener"),
    ],
)
async def test_a_failing_create_listener_fails_the_call_and_keeps_nothing(
    session: Session, listener: Listener, error: str
) -> None:
    session.ctx.on(TASK_CREATED, listener)
    result = await session.call("TaskCreate", subject="a", description="")
    assert (result.is_error, result.code) == (True, "LISTENER_ERROR")
    assert result.text.startswith(f"tools/task-created listener failed: {error}")
    assert result.info["seam"] == "tools/task-created"
    assert await session.tasks() == []


@pytest.mark.parametrize("listener", [_raises, _returns_none])
async def test_a_failing_complete_listener_fails_the_call_and_changes_nothing(
    session: Session, listener: Listener
) -> None:
    await session.call("TaskCreate", subject="a", description="")
    session.ctx.on(TASK_COMPLETED, listener)
    result = await session.call("TaskUpdate", taskId="1", status="completed", subject="b")
    assert (result.is_error, result.code) == (True, "LISTENER_ERROR")
    assert result.text.startswith("tools/task-completed listener failed: ")
    assert await session.tasks() == [
        {"id": "1", "subject": "a", "status": "pending", "blockedBy": []}
    ]


async def test_without_a_context_every_listener_allows(tmp_path: Path) -> None:
    # A body called without a registry (``ctx`` None) behaves as if every listener allowed.
    workspace = Workspace(tmp_path)

    async def run(name: str, **arguments: Any) -> ToolResult:
        tool = TOOLS_BY_NAME[name]
        return await tool.run(ToolInvocation(name, freeze_json(arguments), workspace))

    assert (await run("TaskCreate", subject="a", description="")).content == (
        "Task #1 created successfully: a"
    )
    assert (await run("TaskUpdate", taskId="1", status="completed")).content == (
        "Updated task #1 status"
    )
    assert (await run("TaskList")).content == "#1 [completed] a"


async def test_a_listener_that_changes_the_task_meanwhile_voids_the_update(
    session: Session,
) -> None:
    await session.call("TaskCreate", subject="a", description="")

    async def renames(agent: Any, task: Task, next: Next[TaskDecision]) -> TaskDecision:
        await session.call("TaskUpdate", taskId=task.id, subject="renamed")
        return TaskDecision.allow()

    session.ctx.on(TASK_COMPLETED, renames)
    result = await session.call("TaskUpdate", taskId="1", status="completed")
    assert result.is_error
    assert "was changed while the tools/task-completed listeners ran" in result.text
    assert await session.tasks() == [
        {"id": "1", "subject": "renamed", "status": "pending", "blockedBy": []}
    ]


def test_task_decision_constructors() -> None:
    assert TaskDecision.allow() == TaskAllow()
    assert TaskDecision.allow().kind == "allow"
    assert TaskDecision.block("r") == TaskBlock("r")
    assert TaskDecision.block("r").reason == "r"
    with pytest.raises(ValueError, match="empty"):
        TaskDecision.block("")
    with pytest.raises(TypeError, match="str"):
        TaskDecision.block(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="named constructors"):
        TaskDecision("deny", "r")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        TaskAllow("r")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="closed union"):

        class Later(TaskDecision):
            pass

    assert TASK_CREATED.name == "tools/task-created"
    assert TASK_COMPLETED.name == "tools/task-completed"


async def test_something_else_in_the_tasks_state_key_is_not_taken_for_a_list(
    tmp_path: Path,
) -> None:
    workspace = Workspace(tmp_path)
    workspace.session_state[TASKS_STATE_KEY] = {"not": "a task list"}
    with pytest.raises(TypeError, match=r"session_state\['dsh\.tasks'\] holds a dict"):
        await TASK_LIST_TOOL.run(ToolInvocation("TaskList", freeze_json({}), workspace))


# The property: TaskList always equals a plain model of the list ---------------------------------

_subjects = st.sampled_from(["a", "b", "blocked", "stuck"])
_ids = st.integers(1, 5).map(str)  # few ids, so that most calls name an existing task
_ops = st.lists(
    st.one_of(
        st.tuples(st.just("create"), _subjects),
        st.tuples(
            st.just("update"),
            _ids,
            st.fixed_dictionaries(
                {},
                optional={
                    "subject": _subjects,
                    "status": st.sampled_from(["pending", "in_progress", "completed"]),
                    "owner": st.sampled_from(["ann", "bob"]),
                },
            ),
        ),
        st.tuples(st.just("update"), _ids, st.just({"status": "completed"})),
        # (op, task, other): the task is blocked by the other / blocks the other.
        st.tuples(st.sampled_from(["addBlockedBy", "addBlocks"]), _ids, _ids),
        st.tuples(st.just("delete"), _ids),
    ),
    min_size=3,
    max_size=20,
)


class Model:
    """The list as a plain dict: what TaskList must show after each call."""

    def __init__(self) -> None:
        self.last = 0
        self.tasks: dict[str, dict[str, Any]] = {}

    def create(self, subject: str) -> bool:
        self.last += 1
        if subject == "blocked":
            return False
        self.tasks[str(self.last)] = {"subject": subject, "status": "pending", "blockedBy": []}
        return True

    def update(self, task_id: str, changes: dict[str, Any]) -> bool:
        task = self.tasks.get(task_id)
        if task is None:
            return False
        completing = changes.get("status") == "completed" != task["status"]
        if completing and task["subject"] == "stuck":
            return False
        for key in ("subject", "status", "owner"):
            if key in changes:
                task[key] = changes[key]
        return True

    def link(self, blocked: str, blocker: str) -> bool:
        if blocked == blocker or blocked not in self.tasks or blocker not in self.tasks:
            return False
        if blocker not in self.tasks[blocked]["blockedBy"]:
            self.tasks[blocked]["blockedBy"].append(blocker)
        return True

    def delete(self, task_id: str) -> bool:
        if self.tasks.pop(task_id, None) is None:
            return False
        for task in self.tasks.values():
            task["blockedBy"] = [b for b in task["blockedBy"] if b != task_id]
        return True

    def listed(self) -> list[dict[str, Any]]:
        done = {i for i, t in self.tasks.items() if t["status"] == "completed"}
        out = []
        for task_id, task in self.tasks.items():
            entry = {"id": task_id, "subject": task["subject"], "status": task["status"]}
            if "owner" in task:
                entry["owner"] = task["owner"]
            entry["blockedBy"] = [b for b in task["blockedBy"] if b not in done]
            out.append(entry)
        return out


async def _refuse_blocked(agent: Any, task: Task, next: Next[TaskDecision]) -> TaskDecision:
    return TaskDecision.block("refused") if task.subject == "blocked" else await next()


async def _refuse_stuck(agent: Any, task: Task, next: Next[TaskDecision]) -> TaskDecision:
    return TaskDecision.block("stuck") if task.subject == "stuck" else await next()


@settings(max_examples=100, deadline=None)
@given(first=st.lists(_subjects, min_size=2, max_size=4), ops=_ops)
def test_any_sequence_of_calls_keeps_task_list_equal_to_the_model(
    first: list[str], ops: list[tuple[Any, ...]]
) -> None:
    ops = [("create", subject) for subject in first] + ops  # a few tasks to work on

    async def play() -> None:
        with tempfile.TemporaryDirectory(prefix="dsh-tasks-") as d:
            session = Session(Path(d))
            session.ctx.on(TASK_CREATED, _refuse_blocked)
            session.ctx.on(TASK_COMPLETED, _refuse_stuck)
            model = Model()
            for op in ops:
                if op[0] == "create":
                    ok = model.create(op[1])
                    result = await session.call("TaskCreate", subject=op[1], description="")
                    if ok:
                        assert out(result)["task"]["id"] == str(model.last)
                elif op[0] == "update":
                    ok = model.update(op[1], op[2])
                    result = await session.call("TaskUpdate", taskId=op[1], **op[2])
                elif op[0] == "addBlockedBy":
                    ok = model.link(op[1], op[2])
                    result = await session.call("TaskUpdate", taskId=op[1], addBlockedBy=[op[2]])
                elif op[0] == "addBlocks":
                    ok = model.link(op[2], op[1])
                    result = await session.call("TaskUpdate", taskId=op[1], addBlocks=[op[2]])
                else:
                    ok = model.delete(op[1])
                    result = await session.call("TaskUpdate", taskId=op[1], status="deleted")
                failed = result.is_error or (out(result) or {}).get("success") is False
                assert failed is not ok, (op, result.text)
                assert await session.tasks() == model.listed()
                for task_id, task in model.tasks.items():
                    got = thaw_json((await session.get(task_id)).output)["task"]
                    assert got["blockedBy"] == task["blockedBy"]
                    blocks = {i for i, t in model.tasks.items() if task_id in t["blockedBy"]}
                    assert sorted(got["blocks"]) == sorted(blocks)

    asyncio.run(play())
