"""The bridge's other seams: compaction, post-tool batch, subagents, turn errors, coverage."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.agent import (
    CWD_CHANGED,
    DIRECTORY_ADDED,
    INSTRUCTIONS_LOADED,
    MESSAGE_DISPLAY,
    MODEL_SWITCH,
    MODEL_SWITCHED,
    NOTIFICATION,
    POST_COMPACT,
    POST_TOOL_BATCH,
    PRE_COMPACT,
    PROMPT_SUBMIT,
    SESSION_END,
    SESSION_START,
    SETUP,
    SUBAGENT_END,
    SUBAGENT_START,
    TURN_CONTINUATION,
    TURN_ERROR,
    subagent_plugin,
)
from dsh.context import Context
from dsh.hook_protocol import HookCommand, HookDecodeError, HookOrigin, HookRun, WrongEvent
from dsh.hooks.claude import (
    HOOK_EVENT_HOST_SUPPORT,
    HookAnswer,
    claude_hooks_plugin,
    decode_answer,
    load_catalog,
)
from dsh.mcp import ELICITATION
from dsh.session import AbortCause, NoticeEvent, TurnEndReason
from dsh.tools import (
    APPROVAL_REQUEST,
    POST_EXECUTE,
    PRE_EXECUTE,
    REWRITE_INPUT,
    TASK_COMPLETED,
    TASK_CREATED,
)
from tests.agent.support import bash, http_error, replies, text, tool
from tests.hooks_claude.bridge_support import SCRIPT, hook_command, make_rig, read_jsonl

# The start of 2.1.332's compaction prompt, which the bridge's compaction request carries.
CLAUDE_COMPACT_PROMPT = "Your task is to create a detailed summary"
SUPPORTED = [e for e, row in HOOK_EVENT_HOST_SUPPORT.items() if row.status != "not-supported"]

CHANNELS: dict[str, Any] = {
    ch.name: ch
    for ch in (
        SESSION_START,
        SETUP,
        INSTRUCTIONS_LOADED,
        PROMPT_SUBMIT,
        REWRITE_INPUT,
        PRE_EXECUTE,
        APPROVAL_REQUEST,
        POST_EXECUTE,
        POST_TOOL_BATCH,
        TURN_CONTINUATION,
        TURN_ERROR,
        SUBAGENT_START,
        SUBAGENT_END,
        PRE_COMPACT,
        POST_COMPACT,
        SESSION_END,
        MESSAGE_DISPLAY,
        CWD_CHANGED,
        TASK_CREATED,
        TASK_COMPLETED,
        MODEL_SWITCH,
        MODEL_SWITCHED,
        DIRECTORY_ADDED,
        ELICITATION,
        NOTIFICATION,
    )
}


def test_runtime_points_equal_the_coverage_table(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    hooks = {e: [{"hooks": [{"type": "command", "command": "true"}]}] for e in SUPPORTED}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    catalog = load_catalog(
        project,
        home=tmp_path,
        managed_path=tmp_path / "none",
        env={},
        discover_installed_plugins=False,
    )
    plugin = claude_hooks_plugin(catalog)
    assert plugin.seams() == {e: HOOK_EVENT_HOST_SUPPORT[e].seam for e in SUPPORTED}
    ctx = Context()
    scope = ctx.plugin(plugin)
    for seam in set(plugin.seams().values()) - FRONT_END:
        assert scope.listeners(CHANNELS[seam]), seam


FRONT_END = {"cli/worktree-exit"}
"""Seams the front end fires on after the session ended, with no runtime channel: WorktreeRemove
from ``dsh --worktree``'s exit question (tests/cli/test_worktree_exit.py)."""


async def test_pre_compact_block_vetoes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        replies([text("hello")]),
        ["PreCompact", "PostCompact"],
        {"PreCompact": {"exit": 2, "stderr": "NO-COMPACT"}},
    )
    agent = rig.harness.agent()
    assert await agent.compact("keep it short") is None
    assert rig.order() == ["PreCompact"]
    (payload,) = rig.payloads("PreCompact")
    assert payload["trigger"] == "manual"
    assert payload["custom_instructions"] == "keep it short"
    notices = [e.text for e in agent.events if isinstance(e, NoticeEvent)]
    # 2.1.332 names the hook before its stderr (`exit2-precompact`).
    assert notices == [
        f"Compaction blocked by PreCompact hook: [{hook_command('PreCompact')}]: NO-COMPACT"
    ]


async def test_post_compact_follows_session_start_compact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = {
        "rules": [{"contains": CLAUDE_COMPACT_PROMPT, "responses": [[text("SUMMARY-1")]]}],
        "responses": [[text("hello")]],
    }
    rig = make_rig(tmp_path, monkeypatch, script, ["SessionStart", "PreCompact", "PostCompact"])
    agent = rig.harness.agent()
    assert await agent.compact() == "SUMMARY-1"
    assert rig.order() == ["SessionStart", "PreCompact", "SessionStart", "PostCompact"]
    assert rig.payloads("SessionStart")[1]["source"] == "compact"
    (post,) = rig.payloads("PostCompact")
    assert post["compact_summary"] == "SUMMARY-1"
    assert post["trigger"] == "manual"


async def test_each_compaction_answer_fires_subagent_stop_with_no_agent_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2.1.332's compaction agent (`compact`, `compact-bad-summary`): one SubagentStop per
    # summarization answer, `agent_type: ""`; a block changes nothing (dsh's compaction is
    # no agent of its own).
    script = {
        # Both answers lack the tags: the second is the summary.
        "rules": [{"contains": CLAUDE_COMPACT_PROMPT, "responses": [[text("no tags")]]}],
        "responses": [[text("hello")]],
    }
    rig = make_rig(
        tmp_path,
        monkeypatch,
        script,
        ["PreCompact", "SubagentStop", "PostCompact"],
        {"SubagentStop": {"stdout": {"decision": "block", "reason": "again"}}},
    )
    agent = rig.harness.agent()
    assert await agent.compact() == "no tags"
    assert rig.order() == ["PreCompact", "SubagentStop", "SubagentStop", "PostCompact"]
    first, second = rig.payloads("SubagentStop")
    assert first["last_assistant_message"] == second["last_assistant_message"] == "no tags"
    for stop in (first, second):
        assert stop["agent_type"] == ""
        assert stop["stop_hook_active"] is False
        assert stop["background_tasks"] == []
        assert Path(stop["agent_transcript_path"]).name == f"agent-{stop['agent_id']}.jsonl"
    assert first["agent_id"] != second["agent_id"]


async def test_post_tool_batch_block_stops_before_next_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        replies([bash("echo hi")], [text("never")]),
        ["PostToolBatch", "Stop"],
        {"PostToolBatch": {"stdout": {"decision": "block", "reason": "R-BATCH"}}},
    )
    _, result = await rig.run("go")
    assert len(rig.requests()) == 1
    assert result.end_reason == TurnEndReason.STOPPED
    assert result.cause == AbortCause(kind="hook", reason="R-BATCH")
    assert rig.order() == ["PostToolBatch"]


async def test_post_tool_batch_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        replies([bash("echo hi")], [text("done")]),
        ["PostToolBatch"],
        {
            "PostToolBatch": {
                "stdout": {
                    "hookSpecificOutput": {
                        "hookEventName": "PostToolBatch",
                        "additionalContext": "C-BATCH",
                    }
                }
            }
        },
    )
    await rig.run("go")
    second = rig.requests()[1]["messages"]
    assert second[-1] == {
        "role": "context",
        "source": "claude-hooks:PostToolBatch",
        "text": "PostToolBatch hook additional context: C-BATCH",
    }


async def test_subagent_events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = {
        "rules": [
            {
                "first_user_contains": "SUBTASK",
                "responses": [[bash("echo from-sub")], [text("sub done")]],
            },
            {
                "has_tool": "Agent",
                "responses": [
                    [
                        tool(
                            "Agent",
                            description="d",
                            prompt="SUBTASK: echo",
                            # One of 2.1.332's built-in types (no custom agent here: an
                            # unknown type is refused, as 2.1.332 refuses it).
                            subagent_type="Explore",
                            run_in_background=False,
                        )
                    ],
                    [text("parent done")],
                ],
            },
        ]
    }
    rig = make_rig(
        tmp_path,
        monkeypatch,
        script,
        ["UserPromptSubmit", "PreToolUse", "SubagentStart", "SubagentStop", "Stop", "SessionEnd"],
        {
            "SubagentStart": {
                "stdout": {
                    "hookSpecificOutput": {
                        "hookEventName": "SubagentStart",
                        "additionalContext": "C-SUB",
                    }
                }
            }
        },
    )
    rig.harness.ctx.plugin(subagent_plugin)
    agent, result = await rig.run("delegate")
    assert result.end_reason == TurnEndReason.COMPLETED
    assert rig.order() == [
        "UserPromptSubmit",
        "PreToolUse",
        "SubagentStart",
        "PreToolUse",
        "SubagentStop",
        "Stop",
        "SessionEnd",
    ]
    (start,) = rig.payloads("SubagentStart")
    child_pre = rig.payloads("PreToolUse")[1]
    (stop,) = rig.payloads("SubagentStop")
    for p in (start, child_pre, stop):
        assert p["session_id"] == agent.session_id
        assert p["agent_type"] == "Explore"
        assert p["agent_id"] == start["agent_id"]
    assert "agent_id" not in rig.payloads("PreToolUse")[0]
    assert stop["last_assistant_message"] == "sub done"
    assert read_jsonl(Path(stop["agent_transcript_path"]))
    child_request = next(
        r for r in rig.requests() if "SUBTASK: echo" in json.dumps(r["messages"][:2])
    )
    assert "SubagentStart hook additional context: C-SUB" in [
        m.get("text") for m in child_request["messages"]
    ]


@pytest.mark.parametrize(
    ("status", "kind", "text"),
    [
        # Claude Code 2.1.332's `error` and API error text (`api-error`, `-auth`, `-rate-limit`).
        (400, "unknown", "API Error: 400 BAD"),
        (401, "authentication_failed", "Failed to authenticate. API Error: 401 BAD"),
        (429, "rate_limit", "API Error: Request rejected (429) · BAD"),
        (529, "overloaded", "API Error: 529 BAD"),
        (500, "server_error", "API Error: 500 BAD"),
    ],
)
async def test_stop_failure_on_model_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, status: int, kind: str, text: str
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        replies([http_error(status, "BAD")]),
        ["Stop", "StopFailure"],
    )
    _, result = await rig.run("go")
    assert result.end_reason == TurnEndReason.ERROR
    assert rig.order() == ["StopFailure"]
    (payload,) = rig.payloads("StopFailure")
    assert payload["error"] == kind
    assert payload["last_assistant_message"] == text


async def test_same_handler_in_two_settings_files_runs_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(tmp_path, monkeypatch, replies([bash("echo hi")], [text("ok")]), ["PreToolUse"])
    local = rig.harness.project / ".claude" / "settings.local.json"
    local.write_text((rig.harness.project / ".claude" / "settings.json").read_text())
    catalog = load_catalog(
        rig.harness.project,
        home=tmp_path / "home",
        managed_path=tmp_path / "none",
        env={},
        discover_installed_plugins=False,
    )
    assert len(catalog.for_event("PreToolUse")) == 2
    rig.harness.ctx.plugin(claude_hooks_plugin(catalog, transcript_dir=tmp_path / "t2"))
    await rig.run("go")
    # The rig's own plugin runs it once, the second plugin (two copies, deduplicated) once.
    assert rig.order() == ["PreToolUse", "PreToolUse"]


async def test_plugin_hook_gets_plugin_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(tmp_path, monkeypatch, replies([bash("echo hi")], [text("ok")]), [])
    root = tmp_path / "plug"
    (root / "hooks").mkdir(parents=True)
    command = f"{sys.executable} {SCRIPT} PreToolUse"
    (root / "hooks" / "hooks.json").write_text(
        json.dumps(
            {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}}
        )
    )
    catalog = load_catalog(
        rig.harness.project,
        home=tmp_path / "home",
        managed_path=tmp_path / "none",
        env={},
        plugin_roots=[root],
        discover_installed_plugins=False,
    )
    rig.harness.ctx.plugin(claude_hooks_plugin(catalog, transcript_dir=tmp_path / "t2"))
    await rig.run("go")
    (entry,) = rig.entries()
    assert entry["env"]["CLAUDE_PLUGIN_ROOT"] == str(root.resolve())


def _run(exit_code: int | None, stdout: str, stderr: str = "") -> HookRun:
    cmd = HookCommand(argv=("true",), timeout=1, origin=HookOrigin(source="s", event="Stop"))
    return HookRun(
        command=cmd,
        pid=1,
        exit_code=exit_code,
        signal=None,
        stdout=stdout,
        stderr=stderr,
        duration=0.0,
    )


@given(st.integers(min_value=0, max_value=255), st.text(), st.text())
def test_decoder_answers_or_raises_a_decode_error(code: int, stdout: str, stderr: str) -> None:
    try:
        answer = decode_answer(_run(code, stdout, stderr), "Stop")
    except HookDecodeError as exc:
        kind = exc.kind
        assert code != 2
        assert kind in ("undecodable", "nonzero_exit")
        return
    assert answer is None or isinstance(answer, HookAnswer | WrongEvent)
    if code == 2:
        assert isinstance(answer, HookAnswer)
        assert answer.blocks


@given(st.sampled_from(["PreToolUse", "Stop", "SessionStart"]), st.text(min_size=1))
def test_decoder_checks_hook_event_name(event: str, other: str) -> None:
    out = json.dumps({"hookSpecificOutput": {"hookEventName": other, "additionalContext": "c"}})
    answer = decode_answer(_run(0, out), event)
    if other == event:
        assert isinstance(answer, HookAnswer)
        assert answer.additional_context == "c"
    else:
        assert answer == WrongEvent(other)


def test_decoder_exit2_uses_json_reason_then_stderr() -> None:
    with_json = decode_answer(_run(2, '{"decision": "block", "reason": "J"}', "S"), "Stop")
    assert isinstance(with_json, HookAnswer)
    assert with_json.block_reason == "J"
    plain = decode_answer(_run(2, "ignored", "S\n"), "Stop")
    assert isinstance(plain, HookAnswer)
    assert plain.block_reason == "S"
