"""Deferred tools and ToolSearch through the real loop: the task tools are offered only once a
ToolSearch result references them, as Claude Code 2.1.332 offers them; the model sees them
named in the system prompt, and in chat-completions form as a ``<functions>`` block."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dsh.base import freeze_json
from dsh.messages import (
    AssistantMessage,
    ToolReferenceBlock,
    ToolResultMessage,
    ToolUse,
    UserMessage,
)
from dsh.models import ModelRequest, ToolSpec
from dsh.models._chat_body import ChatBodyEncoder, compact_json
from dsh.models._chat_request import chat_body, to_chat_messages
from dsh.session import ToolResultEvent
from dsh.tools import ToolDefinition, ToolResult, offered_tools
from dsh.tools._deferred import TOOL_SEARCH
from dsh.tools.builtin import BASH_TOOL, TASK_CREATE_TOOL, TOOL_SEARCH_TOOL
from dsh.tools.builtin._tool_search import search_tools
from tests.agent.support import make_harness, replies, text, tool

TASK_TOOLS = {"TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}


def offered(request: dict[str, Any]) -> set[str]:
    return {t["name"] for t in request["tools"]}


async def test_select_loads_the_named_tools_for_the_next_requests(tmp_path: Path) -> None:
    h = make_harness(
        tmp_path,
        replies(
            [tool(TOOL_SEARCH, query="select:TaskCreate,TaskUpdate")],
            [tool("TaskCreate", subject="s", description="d")],
            [text("done")],
        ),
    )
    agent = h.agent()
    agent.send("track it")
    assert (await agent.run_turn()).final_text == "done"
    first, second, third = h.requests()
    assert TOOL_SEARCH in offered(first)
    assert not offered(first) & TASK_TOOLS
    # The system prompt names every deferred tool, and stays the same once some are loaded.
    # In 2.1.332's words (tests/fixtures/claude_deferred_tools.json's announcement).
    assert (
        "The following deferred tools are now available via ToolSearch. Their schemas are NOT"
        " loaded \u2014 calling them directly will fail with InputValidationError. Use ToolSearch"
        ' with query "select:<name>[,<name>...]" to load tool schemas before calling them:\n'
    ) in first["system"]
    assert all(name in first["system"] for name in TASK_TOOLS)
    assert second["system"] == first["system"] == third["system"]
    assert offered(second) & TASK_TOOLS == {"TaskCreate", "TaskUpdate"}
    result = next(m for m in second["messages"] if m["role"] == "tool")
    assert result["content"] == [
        {"type": "tool_reference", "tool_name": "TaskCreate"},
        {"type": "tool_reference", "tool_name": "TaskUpdate"},
    ]
    # The log keeps the blocks typed, and the output is 2.1.332's.
    search, create = [e for e in agent.session.events if isinstance(e, ToolResultEvent)]
    assert search.content == (ToolReferenceBlock("TaskCreate"), ToolReferenceBlock("TaskUpdate"))
    assert search.output == freeze_json(
        {
            "matches": ["TaskCreate", "TaskUpdate"],
            "query": "select:TaskCreate,TaskUpdate",
            "total_deferred_tools": 14,  # 2.1.332's 15 but SendMessage (no Agent tool here)
        }
    )
    assert create.content == "Task #1 created successfully: s"
    await agent.close()


async def test_a_resumed_session_keeps_what_its_log_loaded(tmp_path: Path) -> None:
    h = make_harness(
        tmp_path,
        replies([tool(TOOL_SEARCH, query="select:TaskList")], [text("ok")], [text("again")]),
    )
    agent = h.agent()
    agent.send("list")
    await agent.run_turn()
    session_id = agent.session_id
    await agent.close()
    agent.session.close()
    again = h.agent(h.store.open(session_id))
    again.send("more")
    await again.run_turn()
    assert offered(h.requests()[-1]) & TASK_TOOLS == {"TaskList"}
    await again.close()


async def test_a_deferred_tool_called_before_it_is_loaded_still_runs(tmp_path: Path) -> None:
    h = make_harness(
        tmp_path, replies([tool("TaskCreate", subject="s", description="d")], [text("k")])
    )
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    (result,) = [e for e in agent.session.events if isinstance(e, ToolResultEvent)]
    assert not result.is_error
    assert result.content == "Task #1 created successfully: s"
    assert not offered(h.requests()[-1]) & TASK_TOOLS
    await agent.close()


async def test_a_query_matching_nothing_says_so_and_loads_nothing(tmp_path: Path) -> None:
    h = make_harness(tmp_path, replies([tool(TOOL_SEARCH, query="kubernetes")], [text("k")]))
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    (result,) = [e for e in agent.session.events if isinstance(e, ToolResultEvent)]
    assert result.content == "No matching deferred tools found"
    assert not result.is_error
    assert not offered(h.requests()[-1]) & TASK_TOOLS
    await agent.close()


def test_the_search_ranks_as_2_1_332_does() -> None:
    everything = (BASH_TOOL, TOOL_SEARCH_TOOL, *_tasks())
    deferred = _tasks()
    assert search_tools("select:TaskGet, taskupdate ,Nope", deferred, everything) == [
        "TaskGet",
        "TaskUpdate",
    ]
    assert search_tools("select:Bash", deferred, everything) == ["Bash"]  # any tool by name
    assert search_tools("tasklist", deferred, everything) == ["TaskList"]  # an exact name
    assert search_tools("+create task", deferred, everything) == ["TaskCreate"]
    assert search_tools("+list task", deferred, everything)[0] == "TaskList"
    assert search_tools("task", deferred, everything, max_results=2) == ["TaskCreate", "TaskGet"]
    assert search_tools("task", deferred, everything, max_results=0) == []
    assert search_tools("", deferred, everything) == []
    assert search_tools("x" * 100_000, deferred, everything) == []


def _tasks() -> tuple[ToolDefinition, ...]:
    from dsh.tools.builtin import TASK_GET_TOOL, TASK_LIST_TOOL, TASK_UPDATE_TOOL

    return (TASK_CREATE_TOOL, TASK_GET_TOOL, TASK_LIST_TOOL, TASK_UPDATE_TOOL)


def test_toolsearch_is_offered_only_while_a_tool_is_deferred() -> None:
    assert offered_tools((BASH_TOOL, TOOL_SEARCH_TOOL), ()) == (BASH_TOOL,)
    # With no ToolSearch to load them, deferred tools are offered like the others.
    assert offered_tools((BASH_TOOL, TASK_CREATE_TOOL), ()) == (BASH_TOOL, TASK_CREATE_TOOL)
    loaded = (ToolResultMessage("t", (ToolReferenceBlock("TaskCreate"),)),)
    assert offered_tools((TOOL_SEARCH_TOOL, TASK_CREATE_TOOL), loaded) == (
        TOOL_SEARCH_TOOL,
        TASK_CREATE_TOOL,
    )


def _spec(d: ToolDefinition) -> ToolSpec:
    return ToolSpec(name=d.name, description=d.description, input_schema=d.input_schema)


def test_chat_completions_gets_the_loaded_definitions_as_a_functions_block() -> None:
    call = ToolUse("c1", TOOL_SEARCH, freeze_json({"query": "select:TaskCreate,Gone"}))
    refs = (ToolReferenceBlock("TaskCreate"), ToolReferenceBlock("Gone"))
    messages = (
        UserMessage("go"),
        AssistantMessage("", (call,)),
        ToolResultMessage("c1", refs),
    )
    request = ModelRequest(messages, tools=(_spec(TOOL_SEARCH_TOOL), _spec(TASK_CREATE_TOOL)))
    wire = to_chat_messages(request)
    content = wire[-1]["content"]
    assert wire[-1]["role"] == "tool"
    lines = content.split("\n")
    assert lines[0] == "<functions>"
    assert lines[-1] == "</functions>"
    create = json.loads(lines[1].removeprefix("<function>").removesuffix("</function>"))
    assert create == {
        "description": TASK_CREATE_TOOL.description,
        "name": "TaskCreate",
        "parameters": dict(TASK_CREATE_TOOL.input_schema),
    }
    assert lines[2] == '<function>{"name": "Gone"}</function>'


def test_the_incremental_body_follows_a_change_of_the_tools_offered() -> None:
    call = ToolUse("c1", TOOL_SEARCH, freeze_json({"query": "select:TaskCreate"}))
    messages = (
        UserMessage("go"),
        AssistantMessage("", (call,)),
        ToolResultMessage("c1", (ToolReferenceBlock("TaskCreate"),)),
    )
    encoder = ChatBodyEncoder("m")
    for tools in ((_spec(TOOL_SEARCH_TOOL),), (_spec(TOOL_SEARCH_TOOL), _spec(TASK_CREATE_TOOL))):
        request = ModelRequest(messages, tools=tools)
        body = encoder.encode(request, stream=False, max_tokens=None)
        assert body.data == compact_json(chat_body("m", request, stream=False, max_tokens=None))


async def test_a_tool_of_ones_own_can_be_deferred(tmp_path: Path) -> None:
    async def run(_: object) -> ToolResult:
        return ToolResult.ok("pong")

    mine = ToolDefinition(
        "Ping", "Answers pong.", {"type": "object", "properties": {}}, run, deferred=True
    )
    h = make_harness(
        tmp_path, replies([tool(TOOL_SEARCH, query="ping")], [tool("Ping")], [text("k")])
    )
    h.registry.register(mine)
    agent = h.agent()
    agent.send("go")
    await agent.run_turn()
    first, second, _ = h.requests()
    assert "Ping" not in offered(first)
    assert "Ping" in offered(second)
    assert "\nPing" in first["system"]
    await agent.close()
