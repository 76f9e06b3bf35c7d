"""The Claude Code bridge through the real loop, with real hook processes."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from dsh.hook_protocol import HookInvocationEvent, HookResultEvent
from dsh.session import AbortCause, NoticeEvent, TurnEndReason
from tests.agent.support import bash, of_type, replies, text
from tests.hooks_claude.bridge_support import hook_command, make_rig, read_jsonl

TOOL_EVENTS = ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch"]


def run_then_done(command: str) -> dict[str, Any]:
    return replies([text("I'll run it."), bash(command)], [text("Done.")])


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def contexts(request: dict[str, Any]) -> list[str]:
    return [m["text"] for m in request["messages"] if m["role"] == "context"]


def raw_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def pre_answer(**fields: Any) -> dict[str, Any]:
    return {
        "PreToolUse": {"stdout": {"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}}
    }


async def test_basic_payloads_env_and_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["SessionStart", "UserPromptSubmit", *TOOL_EVENTS, "Stop", "SessionEnd"],
    )
    agent, result = await rig.run("Please run echo hi")
    assert result.end_reason == TurnEndReason.COMPLETED
    assert rig.order() == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolBatch",
        "Stop",
        "SessionEnd",
    ]
    entries = {e["event"]: e for e in rig.entries()}
    project = str(rig.harness.project.resolve())
    for event, entry in entries.items():
        payload = entry["payload"]
        assert payload["session_id"] == agent.session_id
        assert payload["hook_event_name"] == event
        assert payload["cwd"] == project
        assert entry["cwd"] == project
        env = entry["env"]
        assert env["CLAUDECODE"] == "1"
        assert env["CLAUDE_CODE_SESSION_ID"] == agent.session_id
        assert env["CLAUDE_CODE_ENTRYPOINT"] == "sdk-cli"
        assert env["CLAUDE_CODE_CHILD_SESSION"] == "1"
        assert env["CLAUDE_PROJECT_DIR"] == project
        assert env["CLAUDE_PID"] == str(os.getpid())
        assert env["CLAUDE_CODE_SESSION_ATTENDED"] == "0"
        assert ("CLAUDE_EFFORT" in env) == ("effort" in payload)
        if "effort" in payload:
            assert payload["effort"] == {"level": "medium"}
            assert env["CLAUDE_EFFORT"] == "medium"
    assert list(entries["SessionStart"]["payload"]) == [
        "session_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "source",
    ]
    assert list(entries["PreToolUse"]["payload"]) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "permission_mode",
        "effort",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_use_id",
    ]
    post = entries["PostToolUse"]["payload"]
    assert post["tool_response"]["stdout"] == "hi"
    assert post["tool_use_id"] == entries["PreToolUse"]["payload"]["tool_use_id"]
    assert isinstance(post["duration_ms"], int)
    stop = entries["Stop"]["payload"]
    assert stop["stop_hook_active"] is False
    assert stop["last_assistant_message"] == "Done."
    assert stop["background_tasks"] == []
    assert stop["session_crons"] == []
    assert entries["SessionEnd"]["payload"]["reason"] == "other"
    batch = entries["PostToolBatch"]["payload"]["tool_calls"]
    assert batch[0]["tool_response"] == "hi"
    assert batch[0]["tool_name"] == "Bash"
    # The hook log: one invocation and one linked result per run.
    invocations = of_type(agent.events, HookInvocationEvent)
    results = of_type(agent.events, HookResultEvent)
    assert len(invocations) == len(results) == 7
    assert {r.invocation_id for r in results} == {i.id for i in invocations}


async def test_stdin_and_transcript_bytes_are_claude_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Real hooks grep these bytes (`"role":"assistant"`): compact, UTF-8 raw, one newline.
    monkeypatch.setenv("CASE_HOOK_RAW", "1")
    rig = make_rig(tmp_path, monkeypatch, run_then_done("echo hi"), ["UserPromptSubmit", "Stop"])
    await rig.run("Grüße — run echo hi")
    for entry in rig.entries():
        raw = entry["stdin_text"]
        assert raw == json.dumps(entry["payload"], separators=(",", ":"), ensure_ascii=False) + "\n"
    prompt_raw = rig.entries()[0]["stdin_text"]
    assert '"prompt":"Grüße — run echo hi"' in prompt_raw
    (stop,) = rig.payloads("Stop")
    transcript = raw_text(Path(stop["transcript_path"]))
    assert '"role":"assistant"' in transcript
    assert "Grüße" in transcript
    for line in transcript.splitlines():
        assert line == json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False)


async def test_effort_and_attended_are_bridge_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["PreToolUse"],
        profile={"effort": "high", "attended": True},
    )
    await rig.run("Please run echo hi")
    (entry,) = rig.entries()
    assert entry["payload"]["effort"] == {"level": "high"}
    assert entry["env"]["CLAUDE_EFFORT"] == "high"
    assert entry["env"]["CLAUDE_CODE_SESSION_ATTENDED"] == "1"


async def test_transcript_written_before_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(tmp_path, monkeypatch, run_then_done("echo hi"), ["Stop"])
    await rig.run("Please run echo hi")
    (payload,) = rig.payloads("Stop")
    path = Path(payload["transcript_path"])
    assert path.is_relative_to(rig.transcripts)
    lines = read_jsonl(path)
    assistant = [ln for ln in lines if ln["type"] == "assistant"]
    assert assistant[-1]["message"]["content"] == [{"type": "text", "text": "Done."}]
    assert lines[0]["type"] == "user"
    assert lines[0]["message"]["content"] == "Please run echo hi"
    results = [
        ln for ln in lines if ln["type"] == "user" and isinstance(ln["message"]["content"], list)
    ]
    assert results[0]["message"]["content"][0]["content"] == "hi"


async def test_cwd_follows_bash_cd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("mkdir -p sub && cd sub && pwd"),
        ["PostToolUse", "Stop"],
    )
    await rig.run("Please cd")
    sub = str(rig.harness.project.resolve() / "sub")
    stop = next(e for e in rig.entries() if e["event"] == "Stop")
    assert stop["cwd"] == sub
    assert stop["payload"]["cwd"] == sub


async def test_pretool_deny_reason_is_the_error_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("touch made.txt"),
        TOOL_EVENTS,
        pre_answer(permissionDecision="deny", permissionDecisionReason="R-DENY"),
    )
    await rig.run("go")
    assert not (rig.harness.project / "made.txt").exists()
    (result,) = tool_messages(rig.requests()[1])
    # 2.1.332's wording (2.1.197 sent exactly the reason).
    assert result["content"] == "PreToolUse:Bash hook error: R-DENY"
    assert result["is_error"] is True
    assert rig.order() == ["PreToolUse", "PostToolBatch"]  # no post-tool event for DENIED
    (batch,) = rig.payloads("PostToolBatch")
    assert batch["tool_calls"][0]["tool_response"] == "PreToolUse:Bash hook error: R-DENY"


async def test_pretool_deny_without_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["PreToolUse"],
        pre_answer(permissionDecision="deny"),
    )
    await rig.run("go")
    (result,) = tool_messages(rig.requests()[1])
    assert result["content"] == "PreToolUse:Bash hook error: Blocked by hook"


async def test_pretool_ask_headless_is_a_denial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("touch made.txt"),
        ["PreToolUse"],
        pre_answer(permissionDecision="ask", permissionDecisionReason="R-ASK"),
    )
    await rig.run("go")
    assert not (rig.harness.project / "made.txt").exists()
    (result,) = tool_messages(rig.requests()[1])
    assert result == {**result, "content": "R-ASK", "is_error": True}


async def test_pretool_exit2_blocks_with_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("touch made.txt"),
        ["PreToolUse", "PostToolUse"],
        {"PreToolUse": {"exit": 2, "stderr": "S-BLOCKED"}},
    )
    await rig.run("go")
    assert not (rig.harness.project / "made.txt").exists()
    (result,) = tool_messages(rig.requests()[1])
    assert result["is_error"] is True
    assert "S-BLOCKED" in result["content"]
    assert "PostToolUse" not in rig.order()


async def test_pretool_exit1_does_not_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["PreToolUse"],
        {"PreToolUse": {"exit": 1, "stderr": "non-blocking"}},
    )
    agent, _ = await rig.run("go")
    (result,) = tool_messages(rig.requests()[1])
    assert result["content"] == "hi"
    assert result["is_error"] is False
    (logged,) = of_type(agent.events, HookResultEvent)
    assert logged.no_decision == "nonzero_exit"


async def test_deny_beats_allow_across_hooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        {"PreToolUse": "Bash"},
        pre_answer(permissionDecision="allow", additionalContext="C-ALLOW"),
    )
    # A native plugin after the bridge in the chain denies the same call.
    from dsh.context import Next
    from dsh.tools import PRE_EXECUTE, PreToolDecision, ToolCall

    async def deny(call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        return PreToolDecision.deny("NATIVE-DENY")

    rig.harness.ctx.on(PRE_EXECUTE, deny)
    await rig.run("go")
    (result,) = tool_messages(rig.requests()[1])
    assert result["content"] == "NATIVE-DENY"
    assert contexts(rig.requests()[1]) == ["PreToolUse:Bash hook additional context: C-ALLOW"]


async def test_posttool_block_and_context_after_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = {
        "decision": "block",
        "reason": "R-POST",
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "C-POST"},
    }
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["PostToolUse"],
        {"PostToolUse": {"stdout": answer}},
    )
    await rig.run("go")
    request = rig.requests()[1]
    (result,) = tool_messages(request)
    assert result["content"] == "hi"
    assert result["is_error"] is False
    roles = [m["role"] for m in request["messages"]]
    assert roles.index("tool") < roles.index("context")
    command = rig.catalog.for_event("PostToolUse")[0].declared_command
    # One message, the texts joined by a blank line, as 2.1.332 sends them (`posttool-block`).
    assert contexts(request) == [
        f'PostToolUse:Bash hook blocking error from command: "{command}": R-POST'
        "\n\nPostToolUse:Bash hook additional context: C-POST",
    ]


async def test_exit2_stderr_is_shown_after_its_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2.1.332 puts `[<command>]: ` before a hook's stderr wherever it shows it.
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["PostToolUse", "SessionEnd"],
        {
            "PostToolUse": {"exit": 2, "stderr": "S-POST\n"},
            "SessionEnd": {"exit": 2, "stderr": "S-END"},
        },
    )
    agent, _ = await rig.run("go")
    post, end = hook_command("PostToolUse"), hook_command("SessionEnd")
    assert contexts(rig.requests()[1]) == [
        f'PostToolUse:Bash hook blocking error from command: "{post}": [{post}]: S-POST'
    ]
    warnings = [e.text for e in of_type(agent.events, NoticeEvent) if e.level == "warning"]
    assert warnings == [f"SessionEnd hook [{end}] failed: S-END"]


async def test_post_tool_batch_exit2_stops_with_its_command_and_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["PostToolBatch"],
        {"PostToolBatch": {"exit": 2, "stderr": "S-BATCH"}},
    )
    _, result = await rig.run("go")
    assert len(rig.requests()) == 1
    assert result.cause == AbortCause(
        kind="hook", reason=f"[{hook_command('PostToolBatch')}]: S-BATCH"
    )


async def test_failed_bash_fires_post_tool_use_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("ls /definitely/not/here"),
        ["PostToolUse", "PostToolUseFailure"],
        {
            "PostToolUseFailure": {
                "stdout": {
                    "hookSpecificOutput": {
                        "hookEventName": "PostToolUseFailure",
                        "additionalContext": "C-FAIL",
                    }
                }
            }
        },
    )
    await rig.run("go")
    assert rig.order() == ["PostToolUseFailure"]
    (payload,) = rig.payloads("PostToolUseFailure")
    assert payload["error"].startswith("Exit code 2\n")
    assert payload["is_interrupt"] is False
    assert "tool_response" not in payload
    request = rig.requests()[1]
    assert tool_messages(request)[0]["is_error"] is True
    assert contexts(request) == ["PostToolUseFailure:Bash hook additional context: C-FAIL"]


async def test_legacy_suite_gets_post_tool_use_for_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    script = replies(
        [bash("ls /definitely/not/here")], [bash("ls /also/not/here")], [text("Done.")]
    )
    rig = make_rig(tmp_path, monkeypatch, script, ["PostToolUse"])
    with caplog.at_level(logging.WARNING, logger="dsh.hooks.claude"):
        await rig.run("go")
    assert rig.order() == ["PostToolUse", "PostToolUse"]
    assert "/definitely/not/here" in json.dumps(rig.payloads("PostToolUse")[0]["tool_response"])
    warnings = [r for r in caplog.records if "PostToolUseFailure" in r.getMessage()]
    assert len(warnings) == 1


async def test_prompt_block_makes_no_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["UserPromptSubmit", "Stop"],
        {"UserPromptSubmit": {"stdout": {"decision": "block", "reason": "R-UPS"}}},
    )
    _, result = await rig.run("the prompt")
    assert result.end_reason == TurnEndReason.REJECTED
    assert rig.requests() == []
    assert rig.order() == ["UserPromptSubmit"]
    assert any(
        n.text
        == "UserPromptSubmit operation blocked by hook:\nR-UPS\n\nOriginal prompt: the prompt"
        for n in result.notices
    )


async def test_prompt_exit2_blocks_with_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["UserPromptSubmit"],
        {"UserPromptSubmit": {"exit": 2, "stderr": "S-UPS"}},
    )
    _, result = await rig.run("p")
    assert result.end_reason == TurnEndReason.REJECTED
    assert rig.requests() == []
    blocked = (
        f"UserPromptSubmit operation blocked by hook:\n[{hook_command('UserPromptSubmit')}]: S-UPS"
        "\n\nOriginal prompt: p"
    )
    assert any(n.text == blocked for n in result.notices), result.notices


async def test_session_start_and_prompt_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def ctx(event: str, c: str) -> dict[str, Any]:
        return {"stdout": {"hookSpecificOutput": {"hookEventName": event, "additionalContext": c}}}

    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["SessionStart", "UserPromptSubmit"],
        {
            "SessionStart": ctx("SessionStart", "C-SS"),
            "UserPromptSubmit": ctx("UserPromptSubmit", "C-UPS"),
        },
    )
    await rig.run("go")
    for request in rig.requests():
        # One message after the prompt, as 2.1.332 sends them (`prompt-context`).
        assert contexts(request) == [
            "SessionStart hook additional context: C-SS"
            "\n\nUserPromptSubmit hook additional context: C-UPS",
        ]
        roles = [m["role"] for m in request["messages"]]
        assert roles.index("user") < roles.index("context")


async def test_plain_stdout_is_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["SessionStart", "UserPromptSubmit"],
        {"SessionStart": {"stdout": "P-SS"}, "UserPromptSubmit": {"stdout": "P-UPS"}},
    )
    await rig.run("go")
    assert contexts(rig.requests()[0]) == [
        "SessionStart:startup hook success: P-SS\n\nUserPromptSubmit hook success: P-UPS",
    ]


async def test_stop_block_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["Stop"],
        {"Stop": {"times": 1, "stdout": {"decision": "block", "reason": "R-STOP"}}},
    )
    _, result = await rig.run("go")
    assert result.end_reason == TurnEndReason.COMPLETED
    first, second = rig.payloads("Stop")
    assert first["stop_hook_active"] is False
    assert second["stop_hook_active"] is True
    requests = rig.requests()
    assert len(requests) == 3
    feedback, named = requests[2]["messages"][-2:]
    # 2.1.332: the feedback in its <system-reminder> framing, then the command as system text.
    assert feedback["role"] == "steering"
    assert feedback["text"].startswith("<system-reminder>\nThe text below is the output of a hook")
    assert feedback["text"].endswith("\nStop hook feedback:\nR-STOP\n</system-reminder>")
    assert named == {
        "role": "context",
        "source": "claude-hooks:Stop",
        "text": f'Stop hook blocking error from command: "{hook_command("Stop")}": R-STOP',
    }


async def test_a_capped_stop_block_leaves_nothing_for_the_next_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = replies([text("one")], [text("two")], [text("three")])
    block = {"Stop": {"stdout": {"decision": "block", "reason": "R-AGAIN"}}}
    rig = make_rig(tmp_path, monkeypatch, script, ["Stop"], block)
    agent = rig.harness.agent(continuation_cap=1)
    agent.send("first")
    await agent.run_turn()  # blocked once, then the cap ends the turn
    agent.send("second")
    await agent.run_turn()
    await agent.close("other")
    named = [c for c in contexts(rig.requests()[2]) if c.startswith("Stop hook blocking error")]
    assert len(named) == 1  # the first block's; the capped one was never queued


@pytest.mark.parametrize(
    ("answer", "line"),
    [
        ({"exit": 2, "stderr": "S-STOP\n"}, "[{command}]: S-STOP"),
        (
            {"stdout": {"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "C"}}},
            "C",
        ),
    ],
    ids=["exit2", "context"],
)
async def test_stop_exit2_and_context_continue_without_a_system_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: dict[str, Any], line: str
) -> None:
    rig = make_rig(
        tmp_path, monkeypatch, run_then_done("echo hi"), ["Stop"], {"Stop": {"times": 1, **answer}}
    )
    await rig.run("go")
    last = rig.requests()[2]["messages"][-1]
    assert last["role"] == "steering"
    expected = line.format(command=hook_command("Stop"))
    assert last["text"].endswith(f"\nStop hook feedback:\n{expected}\n</system-reminder>")
    assert not contexts(rig.requests()[2])


async def test_continue_false_halts_after_the_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("touch made.txt"),
        ["PreToolUse", "PostToolUse", "PostToolBatch", "Stop", "SessionEnd"],
        {"PreToolUse": {"stdout": {"continue": False, "stopReason": "R-HALT"}}},
    )
    _, result = await rig.run("go")
    assert (rig.harness.project / "made.txt").exists()  # the call still ran
    assert rig.order() == ["PreToolUse", "PostToolUse", "SessionEnd"]
    assert len(rig.requests()) == 1
    assert result.end_reason == TurnEndReason.ABORTED
    assert result.cause == AbortCause(kind="hook", reason="R-HALT")


async def test_wrong_hook_event_name_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["PreToolUse"],
        {
            "PreToolUse": {
                "stdout": {
                    "hookSpecificOutput": {
                        "hookEventName": "PostToolUse",
                        "permissionDecision": "deny",
                    }
                }
            }
        },
    )
    agent, _ = await rig.run("go")
    assert tool_messages(rig.requests()[1])[0]["content"] == "hi"
    (logged,) = of_type(agent.events, HookResultEvent)
    assert logged.no_decision == "wrong_event"


async def test_timed_out_hook_contributes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["PreToolUse"],
        {"PreToolUse": {"sleep": 30, "stdout": {"decision": "block", "reason": "late"}}},
        timeout=1,
    )
    agent, _ = await rig.run("go")
    assert tool_messages(rig.requests()[1])[0]["content"] == "hi"
    (logged,) = of_type(agent.events, HookResultEvent)
    assert logged.timed_out
    assert logged.no_decision == "timed_out"


async def test_system_message_is_a_notice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["PostToolUse"],
        {"PostToolUse": {"stdout": {"systemMessage": "NOTE-1"}}},
    )
    _, result = await rig.run("go")
    assert [n.text for n in result.notices if n.text == "NOTE-1"] == ["NOTE-1"]
    assert all("NOTE-1" not in json.dumps(r) for r in rig.requests())


async def test_matcher_selects_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        {"PreToolUse": "Edit|Write"},
    )
    await rig.run("go")
    assert rig.order() == []


async def test_prompt_block_can_suppress_the_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = {
        "decision": "block",
        "reason": "R-UPS",
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "suppressOriginalPrompt": True},
    }
    rig = make_rig(
        tmp_path,
        monkeypatch,
        run_then_done("echo hi"),
        ["UserPromptSubmit"],
        {"UserPromptSubmit": {"stdout": answer}},
    )
    _, result = await rig.run("secret prompt")
    texts = [n.text for n in result.notices]
    assert "UserPromptSubmit operation blocked by hook:\nR-UPS" in texts
    assert all("secret prompt" not in t for t in texts)


async def test_session_start_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_rig(tmp_path, monkeypatch, replies([text("ok")]), ["SessionStart"])
    first, _ = await rig.run("one")
    first.session.close()
    store = rig.harness.store
    await rig.run("two", session=store.open(first.session_id))
    await rig.run("three", session=store.fork(first.session_id))
    assert [p["source"] for p in rig.payloads("SessionStart")] == ["startup", "resume", "fork"]


async def test_tool_events_carry_a_prompt_id_without_a_user_prompt_submit_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The prompt id is minted per prompt whatever is declared: a suite with only a
    # PreToolUse hook still gets it, as Claude Code sends it.
    script = replies([bash("echo one")], [text("Done.")], [bash("echo two")], [text("Done again.")])
    rig = make_rig(tmp_path, monkeypatch, script, ["PreToolUse", "Stop"])
    agent = rig.harness.agent()
    agent.send("first")
    await agent.run_turn()
    agent.send("second")
    await agent.run_turn()
    await agent.close("other")
    pre = rig.payloads("PreToolUse")
    stops = rig.payloads("Stop")
    assert all(isinstance(p["prompt_id"], str) and p["prompt_id"] for p in pre)
    assert len(pre) == len(stops) == 2
    assert [p["prompt_id"] for p in pre] == [p["prompt_id"] for p in stops]
    assert stops[0]["prompt_id"] != stops[1]["prompt_id"]
