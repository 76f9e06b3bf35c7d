"""``dsh run`` and a PreToolUse hook's ``defer``: the run ends on the waiting call (exit 0, as
``claude -p``; stream-json's result says ``tool_deferred`` with the call), and ``dsh run
--resume ID`` with no prompt settles it after the restart: it runs with the same id (the
hook asked again), or ``--reject-deferred REASON`` refuses it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli.test_interactive import Session, bash, start, text

HOOK = """
import json, pathlib, sys
payload = json.load(sys.stdin)
seen = pathlib.Path(sys.argv[1])
with seen.open("a") as f:
    f.write(payload["tool_use_id"] + "\\n")
if len(seen.read_text().splitlines()) == 1:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                             "permissionDecision": "defer"}}))
"""


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    hook = tmp_path / "hook.py"
    hook.write_text(HOOK)
    command = f"{sys.executable} {hook} {tmp_path / 'seen.txt'}"
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [group]}})
    )
    script = {
        "anthropic": {
            "rules": [
                {
                    "responses": [
                        [{"type": "tool_use", "name": "Bash", "input": {"command": "echo ran-it"}}],
                        [{"type": "text", "text": "all done"}],
                    ]
                }
            ]
        }
    }
    (tmp_path / "script.json").write_text(json.dumps(script))
    return project


def _dsh(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    env.update({"NO_COLOR": "1", "COLUMNS": "200", "HOME": str(tmp_path / "home")})
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "cfg")
    argv = [sys.executable, "-m", "dsh", "run", *args, "--model"]
    argv += [f"scripted:{tmp_path / 'script.json'}", "--project", str(tmp_path / "project")]
    argv += ["--session-dir", str(tmp_path / "sessions"), "--trust-project"]
    return subprocess.run(
        argv,
        cwd=tmp_path,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _lines(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def _session(tmp_path: Path) -> str:
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    return log.stem


def test_a_deferred_call_ends_the_run_and_runs_on_resume(tmp_path: Path) -> None:
    _project(tmp_path)
    first = _dsh(tmp_path, "run it", "--output-format", "stream-json")
    assert first.returncode == 0, first.stderr
    result = _lines(first)[-1]
    assert result["type"] == "result"
    assert result["stop_reason"] == result["terminal_reason"] == "tool_deferred"
    assert result["is_error"] is False
    assert result["result"] == ""
    deferred = result["deferred_tool_use"]
    assert deferred["name"] == "Bash"
    assert deferred["input"] == {"command": "echo ran-it"}
    session = _session(tmp_path)
    second = _dsh(tmp_path, "--resume", session)
    assert second.returncode == 0, second.stderr
    assert "ran-it" in second.stdout
    assert "all done" in second.stdout
    # The hook was asked again about the same call: the same id both times.
    seen = (tmp_path / "seen.txt").read_text().splitlines()
    assert seen == [deferred["id"], deferred["id"]]
    # Nothing waits any more: a resume without a prompt has nothing to do.
    third = _dsh(tmp_path, "--resume", session)
    assert third.returncode == 2
    assert "no deferred call waits" in third.stderr


def test_a_deferred_call_rejected_on_resume_never_runs(tmp_path: Path) -> None:
    _project(tmp_path)
    first = _dsh(tmp_path, "run it")
    assert first.returncode == 0, first.stderr
    session = _session(tmp_path)
    assert "deferred: Bash (" in first.stdout
    assert f"dsh run --resume {session} --reject-deferred REASON" in first.stdout
    second = _dsh(tmp_path, "--resume", session, "--reject-deferred", "not today")
    assert second.returncode == 0, second.stderr
    assert "The deferred call was rejected by resume: not today" in second.stdout
    assert "ran-it" not in second.stdout
    assert len((tmp_path / "seen.txt").read_text().splitlines()) == 1


def test_reject_deferred_needs_a_resumed_session(tmp_path: Path) -> None:
    _project(tmp_path)
    done = _dsh(tmp_path, "run it", "--reject-deferred", "no")
    assert done.returncode == 2
    assert "--reject-deferred settles a resumed session" in done.stderr


def test_at_the_terminal_the_person_settles_a_deferred_call(tmp_path: Path) -> None:
    project = _project(tmp_path)
    (tmp_path / "home").mkdir()
    spawned: list[Session] = []
    responses = [[bash("echo ran-it")], [text("all done")]]
    try:
        s = start(spawned, tmp_path, project, responses)
        s.say("run it")
        s.expect("⏸ deferred: Bash")
        s.expect("Run it? [y/N]")
        s.child.sendline("y")
        s.expect("ran-it")
        s.expect("all done")
        s.say("/exit")
        assert s.leave() == 0
    finally:
        for session in spawned:
            if session.child.isalive():
                session.child.terminate(force=True)
    seen = (tmp_path / "seen.txt").read_text().splitlines()
    assert len(seen) == 2
    assert seen[0] == seen[1]
