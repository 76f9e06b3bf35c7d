"""The interactive terminal's ``idle_prompt`` Notification: after a turn, once the prompt has
waited ``DSH_IDLE_NOTIFY_SECONDS`` (2.1.332: about 60 s) with nothing typed."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pexpect

from tests.cli.test_interactive import Session, text


def test_an_idle_prompt_after_a_turn_notifies(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    seen = tmp_path / "seen.jsonl"
    hook = f"{sys.executable} -c \"import sys; open('{seen}', 'a').write(sys.stdin.read())\""
    group = [{"matcher": "idle_prompt", "hooks": [{"type": "command", "command": hook}]}]
    settings = {"hooks": {"Notification": group}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": [[text("hi there")]]}]}}))
    args = ["run", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), "--trust-project"]
    s = Session(tmp_path, args, {"DSH_IDLE_NOTIFY_SECONDS": "0.2"})
    try:
        s.say("hello")
        s.expect("hi there")
        s.prompt()
        # The notification comes while the prompt waits (its timer is dsh's, not the test's).
        for _ in range(600):
            if seen.exists() and seen.read_text().strip():
                break
            time.sleep(0.05)
        s.child.sendline("/exit")
        assert s.leave() == 0
    finally:
        if s.child.isalive():
            s.child.terminate(force=True)
    payload = json.loads(seen.read_text().splitlines()[0])
    assert payload["hook_event_name"] == "Notification"
    assert payload["notification_type"] == "idle_prompt"
    assert payload["message"] == "Claude is waiting for your input"


def test_a_permission_question_left_waiting_notifies_as_claude_codes_terminal(
    tmp_path: Path,
) -> None:
    """2.1.332's terminal says ``Claude needs your permission`` (``permission_prompt``) once
    its question has waited 6 s unanswered: the wait here is 0.05 s
    (``DSH_PERMISSION_NOTIFY_SECONDS``), and the question is answered only after the hook ran.
    The idle wait is 2.1.332's ``messageIdleNotifThresholdMs`` from ``~/.claude.json``."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text(json.dumps({"messageIdleNotifThresholdMs": 100}))
    seen = tmp_path / "seen.jsonl"
    record = f"{sys.executable} -c \"import sys; open('{seen}', 'a').write(sys.stdin.read())\""
    ask = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}
    asking = f"echo '{json.dumps(ask)}'"
    hooks = {
        "Notification": [{"hooks": [{"type": "command", "command": record}]}],
        "PreToolUse": [{"hooks": [{"type": "command", "command": asking}]}],
    }
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    call = {"type": "tool_use", "name": "Bash", "input": {"command": "echo x"}}
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"anthropic": {"responses": [[call], [text("DONE")]]}}))
    args = ["run", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), "--trust-project"]
    s = Session(tmp_path, args, {"DSH_PERMISSION_NOTIFY_SECONDS": "0.05"})

    def notified() -> list[dict[str, Any]]:
        if not seen.exists():
            return []
        return [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]

    try:
        s.say("go")
        s.expect("Allow?")
        while not notified():  # dsh's timer, not the test's: the question waits meanwhile
            s.child.expect([pexpect.TIMEOUT], timeout=0.05)
        s.child.sendline("y")
        s.expect("DONE")
        s.prompt()
        while len(notified()) < 2:  # then the prompt waits: idle_prompt
            s.child.expect([pexpect.TIMEOUT], timeout=0.05)
        s.child.sendline("/exit")
        assert s.leave() == 0
    finally:
        if s.child.isalive():
            s.child.terminate(force=True)
    first, second = notified()[:2]
    assert first["notification_type"] == "permission_prompt"
    assert first["message"] == "Claude needs your permission"
    assert second["notification_type"] == "idle_prompt"
