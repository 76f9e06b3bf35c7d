"""The coverage table, the catalog's admitted events, and the generated page."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from dsh.hooks.claude import (
    CLAUDE_HOOK_EVENTS,
    EVENT_SPECS,
    HOOK_EVENT_HOST_SUPPORT,
    EventSupport,
    render_coverage_markdown,
)
from dsh.hooks.claude.events._support import ADMITTED_EVENTS
from tests.hooks_claude.conftest import Machine, command
from tests.shared_paths import REFERENCE as SHARED_REFERENCE

REPO = Path(__file__).resolve().parents[2]
REFERENCE = SHARED_REFERENCE / "claude-code-hooks.md"

NEWER_THAN_REFERENCE = {"PreSkillShellCommand"}

SEAMS = {
    "WorktreeCreate": "subagent/start",
    "WorktreeRemove": "cli/worktree-exit",
    "Setup": "agent/setup",
    "SessionStart": "agent/session-start",
    "InstructionsLoaded": "agent/instructions-loaded",
    "UserPromptSubmit": "agent/prompt-submit",
    "UserPromptExpansion": "agent/prompt-submit",
    "PreSkillShellCommand": "agent/prompt-submit",
    "MessageDisplay": "agent/message-display",
    "CwdChanged": "agent/cwd-changed",
    "PreToolUse": "tools/rewrite-input",
    "PermissionRequest": "approval/request",
    "PermissionDenied": "tools/pre-execute",
    "PostToolUse": "tools/post-execute",
    "PostToolUseFailure": "tools/post-execute",
    "PostToolBatch": "agent/post-tool-batch",
    "TaskCreated": "tools/task-created",
    "TaskCompleted": "tools/task-completed",
    "Stop": "agent/turn-continuation",
    "StopFailure": "agent/turn-error",
    "SubagentStart": "subagent/start",
    "SubagentStop": "agent/turn-continuation",
    "PreCompact": "agent/pre-compact",
    "PostCompact": "agent/post-compact",
    "SessionEnd": "agent/session-end",
    "DirectoryAdded": "agent/directory-added",
    "PreModelSwitch": "agent/model-switch",
    "PostModelSwitch": "agent/model-switched",
    "Elicitation": "mcp/elicitation",
    # Compared after each tool call (and before each prompt): runtime/_watch.py.
    "ConfigChange": "tools/post-execute",
    "FileChanged": "tools/post-execute",
    "Notification": "agent/notification",
    "ElicitationResult": "mcp/elicitation",
}


def test_the_table_has_every_event_of_the_reference() -> None:
    assert tuple(HOOK_EVENT_HOST_SUPPORT) == CLAUDE_HOOK_EVENTS
    assert set(EVENT_SPECS) == set(CLAUDE_HOOK_EVENTS)
    assert len(CLAUDE_HOOK_EVENTS) == 34


@pytest.mark.skipif(not REFERENCE.exists(), reason="shared reference not present")
def test_the_table_matches_the_reference_event_list() -> None:
    text = REFERENCE.read_text()
    section8 = text[text.index("## 8. Compact table") :]
    events = set(re.findall(r"^\| ([A-Z][A-Za-z]+)(?: \(2\.1\.\d+\))? \|", section8, re.M))
    events.discard("Event")
    # The corpus (normative over the reference) shows 2.1.332's PreSkillShellCommand too.
    assert events == set(CLAUDE_HOOK_EVENTS) - NEWER_THAN_REFERENCE


def test_seams_follow_the_architecture_mapping() -> None:
    seams = {e: r.seam for e, r in HOOK_EVENT_HOST_SUPPORT.items() if r.status != "not-supported"}
    assert seams == SEAMS
    assert set(SEAMS) == ADMITTED_EVENTS


def test_every_unsupported_event_says_why() -> None:
    for event, row in HOOK_EVENT_HOST_SUPPORT.items():
        if row.status == "not-supported":
            assert row.seam == ""
            assert row.applied == ()
            assert row.limits, event
            assert all(reason.strip() for reason in row.limits), event
        else:
            assert row.applied, event
        if row.status == "partial":
            assert row.limits, event


def test_the_table_states_the_deliberate_differences() -> None:
    pre = HOOK_EVENT_HOST_SUPPORT["PreToolUse"]
    assert any("`updatedInput` replaces the whole input" in item for item in pre.applied)
    assert not any("updatedInput" in limit for limit in pre.limits)
    assert pre.difference is not None
    assert "declaration order" in pre.difference
    for event in ("PostToolUse", "PostToolUseFailure"):
        diff = HOOK_EVENT_HOST_SUPPORT[event].difference
        assert diff is not None
        assert "predates the split" in diff
    others = {e for e, r in HOOK_EVENT_HOST_SUPPORT.items() if r.difference is not None}
    assert others == {"PreToolUse", "PostToolUse", "PostToolUseFailure"}


def test_event_support_refuses_inconsistent_rows() -> None:
    with pytest.raises(ValueError, match="must say why"):
        EventSupport(seam="", status="not-supported")
    with pytest.raises(ValueError, match="seam"):
        EventSupport(seam="", status="supported", applied=("x",))
    with pytest.raises(ValueError, match="does not apply"):
        EventSupport(seam="a/b", status="partial", applied=("x",))


def test_the_catalog_admits_exactly_the_table_events(machine: Machine) -> None:
    hooks = {event: [{"hooks": [command(f"echo {event}")]}] for event in CLAUDE_HOOK_EVENTS}
    machine.write(machine.project_settings, {"hooks": hooks})

    catalog = machine.load()

    assert set(catalog.hooks) == ADMITTED_EVENTS
    diagnosed = {d.event for d in catalog.diagnostics if d.code == "unsupported-event"}
    assert diagnosed == set(CLAUDE_HOOK_EVENTS) - ADMITTED_EVENTS
    for event in CLAUDE_HOOK_EVENTS:
        if event in ADMITTED_EVENTS:
            continue
        (diag,) = [d for d in catalog.diagnostics if d.event == event]
        assert HOOK_EVENT_HOST_SUPPORT[event].limits[0] in diag.reason


def test_the_committed_page_is_the_rendered_table() -> None:
    committed = (REPO / "docs" / "hooks-claude.md").read_text(encoding="utf-8")
    assert committed == render_coverage_markdown(), (
        "docs/hooks-claude.md is stale: run"
        " `.venv/bin/python -m dsh.hooks.claude coverage --write docs/hooks-claude.md`"
    )


def test_the_page_shows_every_event_and_escapes_pipes() -> None:
    page = render_coverage_markdown()
    for event, row in HOOK_EVENT_HOST_SUPPORT.items():
        assert f"| `{event}` |" in page
        if row.seam:
            assert f"`{row.seam}`" in page
    table_rows = [line for line in page.splitlines() if line.startswith("| `")]
    for line in table_rows:
        cells = re.split(r"(?<!\\)\|", line)
        assert len(cells) in (5 + 2, 3 + 2), line


def test_the_module_entry_point_writes_the_page(tmp_path: Path) -> None:
    out = tmp_path / "page.md"
    subprocess.run(
        [sys.executable, "-m", "dsh.hooks.claude", "coverage", "--write", str(out)],
        check=True,
        timeout=60,
    )
    assert out.read_text(encoding="utf-8") == render_coverage_markdown()


def test_the_check_entry_point_exits_non_zero_when_diagnosed(machine: Machine) -> None:
    machine.write(machine.project_settings, {"hooks": {"Bogus": []}})
    run = subprocess.run(
        [sys.executable, "-m", "dsh.hooks.claude", "check", "--project", str(machine.project)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"HOME": str(machine.home), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 1
    assert "`Bogus` is not a Claude Code hook event" in run.stdout
