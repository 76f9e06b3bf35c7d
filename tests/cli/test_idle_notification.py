"""The interactive terminal's ``idle_prompt`` Notification: after a turn, once the prompt has
waited ``DSH_IDLE_NOTIFY_SECONDS`` (2.1.332: about 60 s) with nothing typed."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

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
