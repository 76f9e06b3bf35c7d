"""A tool call whose arguments are over the bound is refused, and the log keeps none of them."""

from __future__ import annotations

from pathlib import Path

from tests.bounds.support import of_type, run, script, text, tool_use


def test_an_oversized_argument_is_refused_and_not_stored(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    big = "x" * (3 * 1024 * 1024)
    model = script(
        tmp_path,
        tool_use("Write", "toolu_w", file_path=str(project / "big.txt"), content=big),
        text("done"),
    )
    done = run(tmp_path, project, model)
    assert done.returncode == 0, done.stderr
    assert not (project / "big.txt").exists()
    [result] = of_type(tmp_path, "tool/result")
    assert result["is_error"] is True
    assert result["code"] == "INVALID_ARGS"
    assert "more than 1,048,576 characters" in result["content"]
    [call] = of_type(tmp_path, "tool/call")
    assert call["arguments"] == {}
    [asked, _] = of_type(tmp_path, "assistant/message")
    assert asked["tool_calls"][0]["arguments"] == {}
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    assert log.stat().st_size < 64 * 1024


def test_a_large_argument_under_the_bound_runs(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    content = "y" * 500_000
    model = script(
        tmp_path,
        tool_use("Write", "toolu_w", file_path=str(project / "ok.txt"), content=content),
        text("done"),
    )
    done = run(tmp_path, project, model, "--permission-mode", "acceptEdits")
    assert done.returncode == 0, done.stderr
    assert (project / "ok.txt").read_text() == content
