"""CwdChanged through the bridge: real hook processes on ``agent/cwd-changed``."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh.session import NoticeEvent
from tests.agent.support import bash, replies, text
from tests.hooks_claude.bridge_support import make_rig

SCRIPT = replies([bash("mkdir -p sub && cd sub && pwd")], [text("Changed dir.")])
EVENTS = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "CwdChanged", "PostToolBatch"]


async def test_payload_order_and_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(tmp_path, monkeypatch, SCRIPT, EVENTS)
    await rig.run("Please cd")
    assert rig.order() == EVENTS
    project = rig.harness.project.resolve()
    (entry,) = [e for e in rig.entries() if e["event"] == "CwdChanged"]
    payload = entry["payload"]
    assert list(payload) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "hook_event_name",
        "old_cwd",
        "new_cwd",
    ]
    assert payload["old_cwd"] == str(project)
    assert payload["new_cwd"] == payload["cwd"] == entry["cwd"] == str(project / "sub")


async def test_exit_2_and_system_message_reach_the_user_and_continue_is_discarded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = {
        "CwdChanged": {
            "exit": 2,
            "stderr": "CASE-CWD-STDERR",
            "stdout": {"continue": False, "systemMessage": "CASE-CWD-NOTICE"},
        }
    }
    rig = make_rig(tmp_path, monkeypatch, SCRIPT, ["CwdChanged"], answers)
    agent, result = await rig.run("Please cd")
    assert result.end_reason.value == "completed"
    assert result.final_text == "Changed dir."
    notices = [(e.text, e.level) for e in agent.events if isinstance(e, NoticeEvent)]
    assert ("CASE-CWD-NOTICE", "info") in notices
    assert any("CASE-CWD-STDERR" in t and level == "warning" for t, level in notices)
    # Nothing of it is model-visible.
    assert "CASE-CWD" not in str(rig.requests())


async def test_no_change_no_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = replies([bash("pwd")], [text("same")])
    rig = make_rig(tmp_path, monkeypatch, script, ["CwdChanged", "PostToolUse"])
    await rig.run("stay")
    assert rig.order() == ["PostToolUse"]
