"""``dsh.hooks.claude.payloads``: a ``TypedDict`` per event, held to what Claude Code sends.

Every payload the real Claude Code 2.1.332 recorded in the conformance corpus has
exactly the keys its event's type declares (each required one, no other), in the
declared order; the payloads dsh builds are held to the same types in the replay
(``test_conformance``'s invocation comparison).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

from dsh.hooks.claude import HOOK_EVENT_HOST_SUPPORT
from dsh.hooks.claude.payloads import HOOK_INPUTS, PreToolUseHookInput
from tests.hook_payloads import payload_problems, recorded_payloads
from tests.hooks_claude._conformance_replay import CASES_DIR
from tests.hooks_claude.test_conformance import require_corpus
from tests.shared_paths import CONFORMANCE, on_ci

UNRECORDED: dict[str, str] = {
    # Strict: once a case records it, the set comparison below fails until it comes out.
    "WorktreeRemove": "fires only from 2.1.332's interactive exit dialog (not under -p), which"
    " the recordings do not drive; its payload is read in the binary (gws: the session's base"
    " fields and worktree_path), tests/cli/test_worktree_exit.py checks dsh's keys",
}
FIXTURES = Path(__file__).parent.parent / "fixtures"


def _fixture_payloads() -> list[tuple[str, dict[str, object]]]:
    """The Claude Code payloads ``benchmarks/record_mcp_hooks.py`` recorded (ElicitationResult
    among them), ids scrubbed (``<id>``) but every key kept."""
    recorded = json.loads((FIXTURES / "mcp_hooks.json").read_text())
    return [
        (f"mcp_hooks.json/{case['case']}", hook["payload"])
        for case in recorded["cases"]
        if case["case"].startswith("claude-")
        for hook in case["hooks"]
    ]


def test_every_event_the_bridge_runs_has_a_payload_type_named_for_it() -> None:
    runs = {e for e, s in HOOK_EVENT_HOST_SUPPORT.items() if s.status != "not-supported"}
    assert set(HOOK_INPUTS) == runs
    for event, kind in HOOK_INPUTS.items():
        assert kind.__name__ == f"{event}HookInput"
        assert get_args(kind.__annotations__["hook_event_name"]) == (event,)
        declared = list(kind.__annotations__)
        assert declared[:3] == ["session_id", "transcript_path", "cwd"]


def test_every_recorded_payload_has_exactly_its_events_keys_in_order() -> None:
    require_corpus(CASES_DIR, ci=on_ci())
    payloads = recorded_payloads(CASES_DIR)
    assert len(payloads) > 500
    # The events dsh sends that only the claude-next corpus records (its MCP and worktree
    # cases).
    nexts = [
        (where, p)
        for where, p in recorded_payloads(CONFORMANCE / "claude-next")
        if where.split("/")[0].startswith(("mcp-", "worktree-"))
        and p.get("hook_event_name") in HOOK_INPUTS
    ]
    payloads += nexts + _fixture_payloads()
    # Recorded elsewhere (claude-next's config-change, tests/fixtures/claude_events.json):
    # tests/hooks_claude/test_watched_files.py checks their payloads the same way.
    elsewhere = {"ConfigChange", "FileChanged", "Notification"}
    elsewhere = {"ConfigChange", "FileChanged", "Notification"}
    assert {p["hook_event_name"] for _, p in payloads} == set(HOOK_INPUTS) - elsewhere - set(
        UNRECORDED
    )
    problems = [f"{where}: {p}" for where, d in payloads for p in payload_problems(d, HOOK_INPUTS)]
    assert problems == []


def test_a_payload_missing_or_adding_a_key_or_out_of_order_is_named() -> None:
    good: PreToolUseHookInput = {
        "session_id": "s",
        "transcript_path": "/t.jsonl",
        "cwd": "/p",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
    }
    assert payload_problems(good, HOOK_INPUTS) == []
    lacking = {k: v for k, v in good.items() if k != "tool_use_id"}
    assert payload_problems(lacking, HOOK_INPUTS) == ["PreToolUse: lacks ['tool_use_id'], adds []"]
    assert payload_problems({**good, "extra": 1}, HOOK_INPUTS) == [
        "PreToolUse: lacks [], adds ['extra']"
    ]
    moved = {"tool_name": "Bash", **{k: v for k, v in good.items() if k != "tool_name"}}
    assert payload_problems(moved, HOOK_INPUTS)[0].startswith("PreToolUse: keys in the order")
    assert payload_problems({"hook_event_name": "Nope"}, HOOK_INPUTS) == [
        "Nope: no payload type for this event"
    ]
