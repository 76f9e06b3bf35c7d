"""``dsh run`` with a ToolSearch call: in stream-json, the ``user`` line's ``tool_result``
carries the ``tool_reference`` blocks as Claude Code writes them, and the tool loaded runs
next; the text view names what was loaded."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.cli.test_cli import dsh, write_script


def _run(tmp_path: Path, replies: list[Any], *extra: str) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "project"
    project.mkdir()
    model = write_script(tmp_path / "script.json", replies)
    args = ["--model", f"scripted:{model}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), *extra]
    done = dsh("run", "track it", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done


def _call(name: str, **arguments: Any) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "name": name, "input": arguments}]


def test_the_result_line_carries_the_references(tmp_path: Path) -> None:
    replies = [
        _call("ToolSearch", query="select:TaskCreate"),
        _call("TaskCreate", subject="s", description="d"),
        [{"type": "text", "text": "tracked"}],
    ]
    done = _run(tmp_path, replies, "--output-format", "stream-json")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    results = [
        (line["message"]["content"][0], line["tool_use_result"])
        for line in lines
        if line.get("type") == "user"
    ]
    (first, first_output), (second, _) = results
    assert first["content"] == [{"type": "tool_reference", "tool_name": "TaskCreate"}]
    assert first_output == {
        "matches": ["TaskCreate"],
        "query": "select:TaskCreate",
        "total_deferred_tools": 15,  # 2.1.332's: the task tools, SendMessage and 10 more
    }
    assert second["content"] == "Task #1 created successfully: s"
    assert lines[-1]["result"] == "tracked"


def test_the_text_view_names_what_was_loaded(tmp_path: Path) -> None:
    done = _run(
        tmp_path, [_call("ToolSearch", query="+task list"), [{"type": "text", "text": "ok"}]]
    )
    assert "loaded TaskList" in done.stdout
