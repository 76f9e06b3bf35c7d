"""``dsh run --output-format stream-json`` with a ToolSearch call: the ``user`` line's
``tool_result`` carries the ``tool_reference`` blocks as Claude Code writes them, and the
tool loaded runs next; the text view names what was loaded."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import dsh, write_script


def test_the_result_line_carries_the_references(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    search = {"query": "select:TaskCreate"}
    create = {"subject": "s", "description": "d"}
    model = write_script(
        tmp_path / "script.json",
        [
            [{"type": "tool_use", "name": "ToolSearch", "input": search}],
            [{"type": "tool_use", "name": "TaskCreate", "input": create}],
            [{"type": "text", "text": "tracked"}],
        ],
    )
    args = ["--model", f"scripted:{model}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), "--output-format", "stream-json"]
    done = dsh("run", "track it", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
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
        "total_deferred_tools": 4,
    }
    assert second["content"] == "Task #1 created successfully: s"
    assert lines[-1]["result"] == "tracked"


def test_the_text_view_names_what_was_loaded(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    model = write_script(
        tmp_path / "script.json",
        [
            [{"type": "tool_use", "name": "ToolSearch", "input": {"query": "+task list"}}],
            [{"type": "text", "text": "ok"}],
        ],
    )
    args = ["--model", f"scripted:{model}", "--project", str(project)]
    done = dsh("run", "go", *args, "--session-dir", str(tmp_path / "sessions"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "loaded TaskList" in done.stdout
