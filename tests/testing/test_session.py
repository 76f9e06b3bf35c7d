"""``run_session``: a prompt through the real loop in a temporary project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh.context import Context, Next
from dsh.session import ToolResultEvent, TurnEndReason, UserMessageEvent
from dsh.testing import assert_allowed, assert_denied, call, run_session, say, scripted_model
from dsh.testing.pytest_plugin import dsh_project  # noqa: F401  (the fixture, used below)
from dsh.tools import PRE_EXECUTE, PreToolDecision, ToolCall
from tests.testing.hooks import CLAUDE_FILES, CLAUDE_SETTINGS, CODEX_FILES, CODEX_HOOKS


def no_force_push(ctx: Context) -> None:
    @ctx.on(PRE_EXECUTE)
    async def check(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        if call.name == "Bash" and "push --force" in str(call.arguments.get("command")):
            return PreToolDecision.deny("force-push is not allowed here")
        return await next()


async def test_a_plugin_denies_and_the_model_is_sent_the_reason() -> None:
    run = await run_session(
        "publish my branch",
        call("Bash", command="git push --force"),
        call("Bash", command="echo pushed"),
        say("done"),
        plugins=[no_force_push],
    )
    assert run.result.end_reason is TurnEndReason.COMPLETED
    denied, allowed = run.tool_calls
    assert_denied(denied, reason_contains="force-push")
    assert (denied.dispatched, denied.code) == (False, "DENIED")
    assert denied.arguments == {"command": "git push --force"}
    assert_allowed(allowed)
    assert allowed.content == "pushed"
    assert run.tool_call("Bash") is denied
    # What the model was sent: three requests, the second carrying the denial.
    assert len(run.requests) == 3
    tool_messages = [m for m in run.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_messages[-1]["content"] == "force-push is not allowed here"
    assert any(isinstance(e, UserMessageEvent) for e in run.events)
    assert run.final_text == "done"


async def test_a_claude_code_hook_denies_a_bash_call_through_the_loop() -> None:
    run = await run_session(
        "clean up",
        call("Bash", command="rm -rf build"),
        say("I will leave it."),
        claude_settings=CLAUDE_SETTINGS,
        files=CLAUDE_FILES,
    )
    assert_denied(run.tool_call("Bash"), reason_contains="no rm here")
    assert run.tool_call("Bash").content == "PreToolUse:Bash hook error: no rm here"
    (hook,) = run.hooks
    assert hook.hook_event == "PreToolUse"
    assert hook.exit_code == 0
    assert run.diagnostics == ()


async def test_a_codex_hook_denies_a_bash_call_through_the_loop() -> None:
    run = await run_session(
        "clean up",
        call("Bash", command="rm -rf build"),
        say("ok"),
        codex_hooks=CODEX_HOOKS,
        files=CODEX_FILES,
    )
    assert_denied(run.tool_call("Bash"), reason_contains="no rm here")
    assert run.tool_call("Bash").content == (
        "Command blocked by PreToolUse hook: no rm here. Command: rm -rf build"
    )


async def test_a_project_of_ones_own_is_kept(dsh_project: Path) -> None:  # noqa: F811
    await run_session(
        "write it",
        call("Write", file_path=str(dsh_project / "out.txt"), content="hello\n"),
        say("written"),
        files={"notes.md": "# notes\n"},
        project=dsh_project,
    )
    assert (dsh_project / "out.txt").read_text() == "hello\n"
    assert (dsh_project / "notes.md").is_file()


async def test_files_starting_with_a_shebang_are_executable(dsh_project: Path) -> None:  # noqa: F811
    script = "#!/bin/sh\necho from-script\n"
    run = await run_session(
        "run it",
        call("Bash", command="./tool.sh"),
        say("ran"),
        files={"tool.sh": script},
        project=dsh_project,
    )
    assert run.tool_call("Bash").content == "from-script"


async def test_tool_call_names_the_calls_made_when_there_is_none() -> None:
    run = await run_session("hi", say("hello"))
    with pytest.raises(AssertionError, match=r"no Bash call in this session \(calls made: none\)"):
        run.tool_call("Bash")
    assert not any(isinstance(e, ToolResultEvent) for e in run.events)


async def test_replies_and_a_model_exclude_each_other() -> None:
    with pytest.raises(ValueError, match="not both"):
        await run_session("hi", say("a"), model=scripted_model(say("b")))


def test_requests_are_json() -> None:
    import asyncio

    run = asyncio.run(run_session("hi", say("hello")))
    (request,) = run.requests
    json.dumps(request)  # plain JSON, as request_to_json writes it
    assert request["messages"][0] == {"role": "user", "content": "hi"}


async def test_with_claude_settings_the_permission_rules_apply_as_in_dsh_run() -> None:
    write = call("Write", file_path="a.txt", content="x\n")
    run = await run_session("w", write, say("ok"), claude_settings={})
    assert_denied(run.tool_call("Write"), reason_contains="haven't granted it yet")
    settings = {"permissions": {"defaultMode": "acceptEdits"}}
    run = await run_session("w", write, say("ok"), claude_settings=settings)
    assert_allowed(run.tool_call("Write"))
