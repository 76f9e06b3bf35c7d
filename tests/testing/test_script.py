"""The scripted model built in Python: ``say``, ``call``, ``scripted_model``."""

from __future__ import annotations

from pathlib import Path

from dsh.testing import call, run_session, say, scripted_model


def test_blocks_are_the_script_format() -> None:
    assert say("hi") == {"type": "text", "text": "hi"}
    assert call("Bash", command="ls") == {
        "type": "tool_use",
        "name": "Bash",
        "input": {"command": "ls"},
    }
    # An input given as a mapping (a field may be called "name"), fields added to it.
    assert call("Write", {"file_path": "a"}, content="x")["input"] == {
        "file_path": "a",
        "content": "x",
    }
    assert call("T", name="n")["input"] == {"name": "n"}


async def test_a_scripted_model_plays_each_reply_in_turn(tmp_path: Path) -> None:
    record = tmp_path / "requests.jsonl"
    model = scripted_model(
        [say("I'll look."), call("Bash", command="echo one")], say("done"), record_to=record
    )
    run = await run_session("go", model=model)
    assert [c.content for c in run.tool_calls] == ["one"]
    assert run.final_text == "done"
    assert len(record.read_text().splitlines()) == 2  # record_to kept both requests
    assert len(run.requests) == 2
