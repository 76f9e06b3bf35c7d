"""Hostile hook answers through the real loop: each is contained, logged, and the log reads back.

A real hook process (``scripts/raw_hook.py``) writes the answer's bytes on every
event of a turn that runs a tool; the turn must complete, every invocation must
get its ``hook/result``, the session log must load back (``dsh log`` and a resume
read it the same way), and every logged line must be valid UTF-8 JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dsh.hook_protocol import HookInvocationEvent, HookResultEvent
from dsh.session import TurnEndReason
from tests.agent.support import bash, make_harness, replies, text
from tests.cli.test_cli import dsh
from tests.hooks_claude.bridge_support import mount_hooks

SCRIPT = Path(__file__).parent / "scripts" / "raw_hook.py"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")


def nested(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


HOSTILE: dict[str, bytes] = {
    "overflowing number": b'{"systemMessage": "m", "n": 1e999}',
    "NaN": b'{"continue": NaN}',
    "Infinity beside a block": b'{"decision": "block", "reason": "r", "n": -Infinity}',
    "600 deep": b'{"a": ' + nested(600) + b"}",
    "600 deep arrays": b'{"a": ' + b"[" * 600 + b"]" * 600 + b"}",
    "600 deep in updatedInput": (
        b'{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": '
        + nested(600)
        + b"}}"
    ),
    "100,000 deep": b"{" + b'"a":[' * 100_000 + b"]" * 100_000 + b"}",
    "lone surrogates": b'{"systemMessage": "\\ud800", "reason": "\\udfff x"}',
    "surrogate in a key": b'{"\\ud800": 1, "systemMessage": "k"}',
    "5000-digit integer": b'{"n": ' + b"9" * 5000 + b"}",
    "duplicate keys": b'{"decision": "block", "decision": "approve", "reason": "r"}',
    "not UTF-8": b'{"systemMessage": "\xff\xfe\x00\xc3"}',
    "NUL and controls": b'{"systemMessage": "a\\u0000b\\u001b]0;title\\u0007"}',
    "arbitrary bytes": bytes(range(256)) * 4,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
async def test_a_hostile_answer_is_contained_logged_and_readable(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = make_harness(tmp_path, replies([text("Running."), bash("echo hi")], [text("Done.")]))
    hooks = {
        event: [{"hooks": [{"type": "command", "command": f"{sys.executable} {SCRIPT} {event}"}]}]
        for event in EVENTS
    }
    rig = mount_hooks(tmp_path, monkeypatch, harness, hooks, None)
    answer, ran = tmp_path / "answer.bin", tmp_path / "ran.txt"
    answer.write_bytes(HOSTILE[name])
    monkeypatch.setenv("HOSTILE_ANSWER_FILE", str(answer))
    monkeypatch.setenv("HOSTILE_HOOK_LOG", str(ran))

    agent, result = await rig.run("Please run echo hi")

    assert result.end_reason == TurnEndReason.COMPLETED
    assert ran.read_text().split() == list(EVENTS)
    events = harness.store.load(agent.session_id)
    invocations = [e for e in events if isinstance(e, HookInvocationEvent)]
    results = [e for e in events if isinstance(e, HookResultEvent)]
    assert [e.hook_event for e in invocations] == list(EVENTS)
    assert sorted(r.invocation_id or "" for r in results) == sorted(i.id for i in invocations)
    path = harness.store.log_path(agent.session_id)
    for line in path.read_bytes().splitlines():
        json.loads(line.decode("utf-8"))  # strict UTF-8, and JSON
    agent.session.close()
    shown = dsh("log", agent.session_id, "--session-dir", str(harness.store.data_dir), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "Done." in shown.stdout
    # A resume reads the log the same way, finding nothing to recover.
    reopened = harness.store.open(agent.session_id)
    try:
        assert tuple(reopened.events) == events
        assert reopened.recovered is None
    finally:
        reopened.close()
