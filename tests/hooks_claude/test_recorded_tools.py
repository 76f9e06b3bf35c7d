"""Read, Edit, Write and Bash as Claude Code 2.1.332 shows them, against its recording.

``tests/fixtures/claude_strict.json`` (``benchmarks/record_claude_strict.py``), case
``file-tools``: the same files and model replies run through the real loop with the
recording hook on PostToolUse; every tool result the model was sent back is compared
exactly, and each PostToolUse's ``tool_input`` and ``tool_response`` (modulo the project's
path). 2.1.332 offers no Glob or Grep on its default model (the recording's calls of them
get `No such tool available`), so those calls are not compared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.session import NoticeEvent
from tests.hooks_claude.bridge_support import hook_command, make_rig

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "claude_strict.json"
NOT_OFFERED = {"Glob", "Grep"}


def recorded(case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())[case]
    return data


def recorded_results(request: dict[str, Any]) -> list[list[Any]]:
    """Per assistant turn of the request's history, its calls' results in call order, each
    ``[tool, content, is_error]`` (2.1.332 lists parallel results as they finish)."""
    out: list[list[Any]] = []
    names: dict[str, str] = {}
    calls: list[str] = []
    for message in request["messages"]:
        content = message["content"]
        if message["role"] == "assistant" and isinstance(content, list):
            calls = [b["id"] for b in content if b["type"] == "tool_use"]
            names |= {b["id"]: b["name"] for b in content if b["type"] == "tool_use"}
        elif message["role"] == "user" and isinstance(content, list) and calls:
            by_id = {b["tool_use_id"]: b for b in content if b.get("type") == "tool_result"}
            for call in calls:
                block = by_id[call]
                out.append([names[call], block["content"], bool(block.get("is_error"))])
            calls = []
    return out


def our_results(request: dict[str, Any], calls: list[str]) -> list[list[Any]]:
    results = [m for m in request["messages"] if m["role"] == "tool"]
    out = []
    for name, m in zip(calls, results, strict=True):
        content = m["content"]
        if isinstance(content, list) and len(content) == 1 and content[0]["type"] == "text":
            content = content[0]["text"]
        out.append([name, content, m["is_error"]])
    return out


async def test_file_tools_as_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = recorded("file-tools")
    project = tmp_path / "project"
    replies = case["case"]["replies"]
    script = {"anthropic": {"rules": [{"has_tool": "Bash", "responses": replies}]}}
    rig = make_rig(
        tmp_path,
        monkeypatch,
        script,
        {"PostToolUse": "*"},
        substitutions={"${PROJECT_DIR}": str(project)},
    )
    for name, text in case["case"]["files"].items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    await rig.run("go")
    calls = [b["name"] for reply in replies for b in reply if b["type"] == "tool_use"]
    theirs = recorded_results(case["requests"][-1])
    ours = our_results(rig.requests()[-1], calls)
    text = json.dumps(ours).replace(str(project), "${PROJECT_DIR}")
    ours = json.loads(text)
    assert len(ours) == len(theirs)
    for mine, want in zip(ours, theirs, strict=True):
        if want[0] not in NOT_OFFERED:
            assert mine == want
    want_hooks = [
        h["payload"]
        for h in case["hooks"]
        if h["event"] == "PostToolUse" and h["payload"]["tool_name"] not in NOT_OFFERED
    ]
    got_hooks = json.loads(
        json.dumps(
            [p for p in rig.payloads("PostToolUse") if p["tool_name"] not in NOT_OFFERED]
        ).replace(str(project), "${PROJECT_DIR}")
    )
    key = lambda p: json.dumps(p["tool_input"], sort_keys=True)  # noqa: E731
    assert len(got_hooks) == len(want_hooks)
    for mine_p, want_p in zip(sorted(got_hooks, key=key), sorted(want_hooks, key=key), strict=True):
        assert mine_p["tool_input"] == want_p["tool_input"]
        assert list(mine_p["tool_input"]) == list(want_p["tool_input"])  # key order too
        assert mine_p["tool_response"] == want_p["tool_response"]


def renamed(value: Any, ours: str, theirs: str) -> Any:
    """``value`` with our hook's command written as the recording's."""
    if isinstance(value, str):
        return value.replace(ours, theirs)
    if isinstance(value, list):
        return [renamed(v, ours, theirs) for v in value]
    if isinstance(value, dict):
        return {k: renamed(v, ours, theirs) for k, v in value.items()}
    return value


def without_volatile(payload: dict[str, Any]) -> dict[str, Any]:
    volatile = {"session_id", "transcript_path", "cwd", "prompt_id", "duration_ms"}
    volatile |= {"tool_use_id", "permission_mode", "effort"}
    out = {k: v for k, v in payload.items() if k not in volatile}
    if "tool_calls" in out:
        out["tool_calls"] = [without_volatile(c) for c in out["tool_calls"]]
    return out


async def test_task_tools_as_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TaskCreated's exit 2 (the call fails with its feedback), TaskUpdate and TaskGet of a
    task that does not exist (a normal result `Task not found`): results and payloads."""
    case = recorded("task-tools")
    monkeypatch.setenv("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1")
    replies = case["case"]["replies"]
    script = {"anthropic": {"rules": [{"has_tool": "Bash", "responses": replies}]}}
    events = ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "TaskCreated"]
    command = next(h["payload"] for h in case["hooks"] if h["event"] == "PostToolUseFailure")
    rig = make_rig(
        tmp_path,
        monkeypatch,
        script,
        events,
        {"TaskCreated": {"exit": 2, "stderr": "NO-TASK-PLEASE"}},
    )
    await rig.run("go")
    ours = our_results(rig.requests()[-1], ["TaskCreate", "TaskUpdate", "TaskGet"])
    theirs = recorded_results(case["requests"][-1])
    recorded_hook = command["error"].split("\n[")[1].split("]: ")[0]
    assert renamed(ours, hook_command("TaskCreated"), recorded_hook) == theirs
    want = [
        without_volatile(h["payload"])
        for h in case["hooks"]
        if h["event"] in events and h["event"] != "TaskCreated"
    ]
    got = [
        without_volatile(e["payload"])
        for e in rig.entries()
        if e["event"] in events and e["event"] != "TaskCreated"
    ]
    assert renamed(got, hook_command("TaskCreated"), recorded_hook) == want


async def test_stop_block_cap_as_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Stop hook that always blocks: as many requests and Stops as 2.1.332's, and its
    notice, word for word, when the cap overrides the block."""
    case = recorded("stop-cap")
    script = {"anthropic": {"rules": [{"has_tool": "Bash", "responses": case["case"]["replies"]}]}}
    block = {"stdout": {"decision": "block", "reason": "STOP-AGAIN"}}
    rig = make_rig(tmp_path, monkeypatch, script, ["Stop"], {"Stop": block})
    agent, _ = await rig.run("go")
    assert len(rig.requests()) == len(case["requests"])
    assert rig.order().count("Stop") == [h["event"] for h in case["hooks"]].count("Stop")
    (notice,) = (s for s in case["stream"] if s.get("subtype") == "informational")
    events = rig.harness.store.load(agent.session_id)
    shown = [e.text for e in events if isinstance(e, NoticeEvent) and e.level == "warning"]
    assert shown == [notice["content"]]
