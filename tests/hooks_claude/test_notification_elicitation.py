"""Notification's ``elicitation_response`` after an MCP server's elicitation, as 2.1.332 sends it
headless (``tests/fixtures/claude_notification.json``, recorded by
``benchmarks/record_claude_notification.py``): after the ElicitationResult hooks, with the final
action (``decline`` when one blocked); none when an Elicitation hook answered.

``dsh run`` with a scripted model calling the sample MCP server's ``ask-user`` (a real server,
real hook processes), one run per case.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.cli.support import run_dsh
from tests.cli.test_cli import write_script

RECORDED = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "claude_notification.json").read_text()
)["cases"]
SERVER = str(Path(__file__).parents[1] / "mcp" / "sample_server.py")
LOG = """
import json, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(payload) + "\\n")
"""
ACCEPT = {
    "hookSpecificOutput": {
        "hookEventName": "Elicitation",
        "action": "accept",
        "content": {"name": "Ada", "check": True},
    }
}


def _run(tmp_path: Path, answers: dict[str, str], tool: str = "ask-user") -> list[dict[str, Any]]:
    """``ask-user`` once, with logging hooks on the recorded events (``answers``: shell to
    add after the log, per event); the payloads in the order the hooks ran."""
    (tmp_path / "home").mkdir()
    config = tmp_path / "mcp.json"
    server = {"command": sys.executable, "args": [SERVER]}
    config.write_text(json.dumps({"mcpServers": {"sample": server}}))
    call = [{"type": "tool_use", "name": f"mcp__sample__{tool}", "input": {}}]
    model = write_script(tmp_path / "script.json", [call, [{"type": "text", "text": "done"}]])
    (tmp_path / "log.py").write_text(LOG)
    logged = f"{sys.executable} {tmp_path / 'log.py'} {tmp_path / 'log.jsonl'}"
    hooks = {
        event: [{"hooks": [{"type": "command", "command": logged + answers.get(event, "")}]}]
        for event in ("Notification", "Elicitation", "ElicitationResult", "PostToolUse")
    }
    (tmp_path / "settings.json").write_text(json.dumps({"hooks": hooks}))
    done = run_dsh(
        "run", "go", "--model", f"scripted:{model}", "--mcp-config", str(config),
        "--strict-mcp-config", "--settings", str(tmp_path / "settings.json"),
        "--permission-mode", "bypassPermissions", "--session-dir", str(tmp_path / "sessions"),
        cwd=tmp_path, env={"HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    ("case", "answers"),
    [
        ("elicitation-unanswered", {}),
        ("elicitation-result-blocks", {"ElicitationResult": "; echo CASE-BLOCKED >&2; exit 2"}),
        ("elicitation-hook-accepts", {"Elicitation": f" && echo '{json.dumps(ACCEPT)}'"}),
    ],
)
def test_an_elicitation_notifies_its_response_as_recorded(
    tmp_path: Path, case: str, answers: dict[str, str]
) -> None:
    recorded = RECORDED[case]["hooks"]
    payloads = _run(tmp_path, answers)
    assert [p["hook_event_name"] for p in payloads] == [h["event"] for h in recorded]
    theirs = [h["payload"] for h in recorded if h["event"] == "Notification"]
    mine = [p for p in payloads if p["hook_event_name"] == "Notification"]
    assert len(mine) == len(theirs) <= 1
    for ours, recorded_payload in zip(mine, theirs, strict=True):
        assert list(ours) == list(recorded_payload)  # no permission_mode, a prompt_id
        server = recorded_payload["message"].split('"')[1]
        assert ours["message"] == recorded_payload["message"].replace(server, "sample")
        assert ours["notification_type"] == recorded_payload["notification_type"]


def test_a_servers_elicitation_complete_notifies_as_2_1_332_does(tmp_path: Path) -> None:
    """``notifications/elicitation/complete`` (read in 2.1.332's binary: ``MCP server "S"
    confirmed elicitation <id> complete``, ``elicitation_complete``), after the response's."""
    payloads = _run(tmp_path, {}, tool="ask-then-complete")
    notes = [p for p in payloads if p["hook_event_name"] == "Notification"]
    assert [(p["notification_type"], p["message"]) for p in notes] == [
        ("elicitation_response", 'Elicitation response for server "sample": cancel'),
        ("elicitation_complete", 'MCP server "sample" confirmed elicitation elic-7 complete'),
    ]
    recorded = next(
        h["payload"]
        for h in RECORDED["elicitation-unanswered"]["hooks"]
        if h["event"] == "Notification"
    )
    assert list(notes[1]) == list(recorded)


def test_a_form_left_waiting_at_the_terminal_notifies_then_its_response(tmp_path: Path) -> None:
    """2.1.332's terminal: ``Claude Code needs your input`` (``elicitation_dialog``) once the
    form has waited with nothing typed (here 0.05 s, ``DSH_PERMISSION_NOTIFY_SECONDS``), then,
    answered, ``elicitation_response`` with the action."""
    from tests.cli.test_interactive import Session

    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    config = tmp_path / "mcp.json"
    server = {"command": sys.executable, "args": [SERVER]}
    config.write_text(json.dumps({"mcpServers": {"sample": server}}))
    (tmp_path / "log.py").write_text(LOG)
    logged = f"{sys.executable} {tmp_path / 'log.py'} {tmp_path / 'log.jsonl'}"
    hooks = {"Notification": [{"hooks": [{"type": "command", "command": logged}]}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    ask = [{"type": "tool_use", "name": "mcp__sample__ask-user", "input": {}}]
    done = [{"type": "text", "text": "DONE"}]
    log = tmp_path / "log.jsonl"

    def notified() -> list[dict[str, Any]]:
        lines = log.read_text().splitlines() if log.exists() else []
        return [json.loads(line) for line in lines if line.strip()]

    model = write_script(tmp_path / "script.json", [ask, done])
    args = ["run", "--model", f"scripted:{model}", "--project", str(project), "--trust-project"]
    args += ["--session-dir", str(tmp_path / "sessions"), "--mcp-config", str(config)]
    args += ["--permission-mode", "bypassPermissions"]
    s = Session(tmp_path, args, {"DSH_PERMISSION_NOTIFY_SECONDS": "0.05"})
    try:
        s.say("go")
        s.expect("name:")
        while not notified():  # dsh's timer, not the test's: the form waits meanwhile
            s.child.expect([pexpect.TIMEOUT], timeout=0.05)
        s.child.sendline("Ada")
        s.expect("check:")
        s.child.sendline("y")
        s.expect("Send? [Y/n]")
        s.child.sendline("")
        s.expect("DONE")
        s.say("/exit")
        assert s.leave() == 0
    finally:
        s.child.close(force=True)
    kinds = [(p["notification_type"], p["message"]) for p in notified()]
    assert kinds[:2] == [
        ("elicitation_dialog", "Claude Code needs your input"),
        ("elicitation_response", 'Elicitation response for server "sample": accept'),
    ]
