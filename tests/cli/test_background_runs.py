"""Every ``dsh run`` runner runs a background subagent's notification turn, as 2.1.332 does.

An ``Agent`` call without ``run_in_background`` returns at once; when the child finishes,
the parent gets a turn whose prompt is the ``<task-notification>``: in a plain ``dsh run``
(a real process), with ``--input-format stream-json``, live at a terminal and at the
interactive prompt (pseudo-terminals). The child's Bash waits for a file the test creates,
so the notification comes after the parent's turn has ended, whatever the timing.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from tests.cli.test_cli import dsh
from tests.cli.test_interactive import Session, bash, spawned, text

__all__ = ["spawned"]  # the fixture, used by the pseudo-terminal tests

CHILD = "SUBTASK: wait for the gate"


def _script(tmp_path: Path, gate: Path) -> Path:
    launch = {
        "type": "tool_use",
        "name": "Agent",
        "input": {"description": "Wait here", "prompt": CHILD},
    }
    rules: list[dict[str, Any]] = [
        {
            "first_user_contains": "SUBTASK",
            "responses": [
                [bash(f"while [ ! -e {gate} ]; do sleep 0.05; done; echo from-child")],
                [text("CHILD-RESULT")],
            ],
        },
        {
            "first_user_contains": "delegate",
            "responses": [[launch], [text("LAUNCHED")], [text("NOTIFIED")], [text("AFTER")]],
        },
    ]
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"anthropic": {"rules": rules}}))
    return path


def _prompts(sessions: Path) -> list[str]:
    """The user prompts of the parent's session (the child's log is a session of its own)."""
    for log in sorted(sessions.glob("*.jsonl")):
        events = [json.loads(line) for line in log.read_text().splitlines()]
        users = [e["content"] for e in events if e["type"] == "user/message"]
        prompts = [u if isinstance(u, str) else "" for u in users]
        if prompts and prompts[0] == "delegate":
            return prompts
    raise AssertionError(f"no parent session in {sessions}")


def _check_notification(sessions: Path) -> str:
    """The notification prompt, checked: it names an output file in the session dir, private,
    holding the child's log lines."""
    notes = [p for p in _prompts(sessions) if p.startswith("<task-notification>")]
    assert len(notes) == 1, _prompts(sessions)
    note = notes[0]
    assert "<result>CHILD-RESULT</result>" in note
    assert "<tool_uses>1</tool_uses>" in note
    output = Path(note.split("<output-file>")[1].split("</output-file>")[0])
    assert output.parent.parent.parent == sessions
    assert output.parent.name == "tasks"
    assert stat.S_IMODE(os.stat(output).st_mode) == 0o600
    lines = [json.loads(line) for line in output.read_text().splitlines()]
    assert any(line["type"] == "tool/call" for line in lines)
    assert lines[-1]["type"] == "turn/end"
    return note


def _args(tmp_path: Path, project: Path, script: Path) -> list[str]:
    return [
        "--model",
        f"scripted:{script}",
        "--project",
        str(project),
        "--session-dir",
        str(tmp_path / "sessions"),
        "--permission-mode",
        "bypassPermissions",
    ]


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    return project


def _spawn(spawned: list[Session], tmp_path: Path, *prompts: str) -> tuple[Session, Path]:
    """``dsh run [PROMPTS]`` in a pseudo-terminal (none: interactive); the child's gate."""
    project = _project(tmp_path)
    gate = tmp_path / "gate"
    script = _script(tmp_path, gate)
    session = Session(tmp_path, ["run", *_args(tmp_path, project, script), *prompts], {})
    spawned.append(session)
    return session, gate


def test_a_plain_run_waits_for_the_child_and_runs_its_notification_turn(tmp_path: Path) -> None:
    project = _project(tmp_path)
    gate = tmp_path / "gate"
    gate.touch()  # the child runs straight through; the parent's turn still ends first
    script = _script(tmp_path, gate)
    done = dsh("run", *_args(tmp_path, project, script), "delegate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.index("LAUNCHED") < done.stdout.index("NOTIFIED")
    _check_notification(tmp_path / "sessions")


def test_stream_json_input_runs_the_notification_turn_after_the_users(tmp_path: Path) -> None:
    project = _project(tmp_path)
    gate = tmp_path / "gate"
    gate.touch()
    script = _script(tmp_path, gate)
    line = {"type": "user", "message": {"role": "user", "content": "delegate"}}
    args = [*_args(tmp_path, project, script), "--input-format", "stream-json"]
    args += ["--output-format", "stream-json", "--verbose"]
    done = dsh("run", *args, cwd=tmp_path, stdin=json.dumps(line) + "\n")
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
    results = [x["result"] for x in out if x.get("type") == "result"]
    # One `result` per turn, the notification's too, as the real 2.1.332 prints them
    # (checked with `claude -p … --output-format stream-json` against a loopback model).
    assert results == ["LAUNCHED", "NOTIFIED"]
    _check_notification(tmp_path / "sessions")


def test_stream_json_output_gives_a_result_per_turn_and_json_the_last(tmp_path: Path) -> None:
    project = _project(tmp_path)
    gate = tmp_path / "gate"
    gate.touch()
    script = _script(tmp_path, gate)
    args = [*_args(tmp_path, project, script), "--output-format", "stream-json", "--verbose"]
    done = dsh("run", *args, "delegate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
    assert [x["result"] for x in out if x.get("type") == "result"] == ["LAUNCHED", "NOTIFIED"]
    args = [*_args(tmp_path, project, script), "--output-format", "json"]
    done = dsh("run", *args, "delegate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "NOTIFIED"


def test_a_live_run_at_a_terminal_runs_the_notification_turn(
    spawned: list[Session], tmp_path: Path
) -> None:
    s, gate = _spawn(spawned, tmp_path, "delegate")
    s.expect("LAUNCHED")
    gate.touch()
    s.expect("NOTIFIED")
    assert s.leave() == 0
    _check_notification(tmp_path / "sessions")


def test_at_the_prompt_a_finished_child_starts_its_turn_and_the_typed_line_is_kept(
    spawned: list[Session], tmp_path: Path
) -> None:
    s, gate = _spawn(spawned, tmp_path)
    s.say("delegate")
    s.expect("LAUNCHED")
    s.prompt()
    s.child.send("half a ")
    s.expect("half a")
    gate.touch()
    s.expect("NOTIFIED")
    s.prompt()
    s.child.sendline("line")
    s.expect("AFTER")
    s.prompt()
    s.child.sendeof()
    assert s.leave() == 0
    prompts = _prompts(tmp_path / "sessions")
    assert prompts[0] == "delegate"
    assert prompts[1].startswith("<task-notification>")
    assert prompts[2] == "half a line"
    _check_notification(tmp_path / "sessions")
