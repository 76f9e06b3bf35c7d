"""Codex's ``exec_command`` on a dsh session, and Codex's approval of its escalations.

Through the real loop: the scripted model calls the tool, a real shell runs
it in a temp project, the recording hook (a real process) sees what Codex
hooks see. Escalations: refused under approval ``never``, asked under
``on-request`` (PermissionRequest answers; a person; nobody, headless).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.approval import APPROVAL, ApprovalBroker, ApprovalOutcome, ScriptedChannel
from dsh.hooks.codex import CodexProfile
from dsh.hooks.codex.shell._policy import (
    HEADLESS_DECLINE,
    NEVER_REJECTION,
    codex_rejection,
    rust_debug,
)
from tests.agent.support import make_harness, text
from tests.hooks_codex.codex_support import (
    CodexRig,
    make_codex_rig,
    mount_codex,
    recording_hooks,
)

_FRAME = re.compile(
    r"^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code (\d+)\n"
    r"Original token count: (\d+)\nOutput:\n"
)


def exec_call(cmd: str, **more: Any) -> dict[str, Any]:
    return {"type": "function_call", "name": "exec_command", "arguments": {"cmd": cmd, **more}}


def escalated(cmd: str) -> dict[str, Any]:
    return exec_call(cmd, sandbox_permissions="require_escalated", justification="CASE-WHY")


def script(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"rules": [], "responses": [[c] for c in calls] + [[text("done")]]}


def tool_outputs(request: dict[str, Any]) -> list[str]:
    out = []
    for m in request["messages"]:
        if m["role"] == "tool":
            content = m["content"]
            blocks = content if isinstance(content, list) else [{"text": content}]
            out.append("".join(b.get("text", "") for b in blocks))
    return out


PERM_ANSWER = {
    "PermissionRequest": {
        "stdout": {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": 'CASE "no" \\ here'},
            }
        }
    }
}
EVENTS = ["PreToolUse", "PermissionRequest", "PostToolUse"]


def escalation_rig(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers: Any = None, **options: Any
) -> CodexRig:
    """The recording hook on the tool events; the model asks to ``touch made.txt`` escalated."""
    chosen = script(escalated("touch made.txt"))
    return make_codex_rig(tmp_path, monkeypatch, chosen, EVENTS, answers, **options)


async def test_exec_command_runs_and_reads_as_codex_frames_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_codex_rig(
        tmp_path, monkeypatch, script(exec_call("pwd; echo out; echo err >&2; exit 3")), EVENTS
    )
    await rig.run("go")
    first = rig.requests()[0]
    assert {"exec_command", "Bash"} <= {t["name"] for t in first["tools"]}
    (output,) = tool_outputs(rig.requests()[1])
    frame = _FRAME.match(output)
    assert frame is not None, output
    project = str(rig.harness.project.resolve())
    assert output[frame.end() :] == f"{project}\nout\nerr\n"
    assert frame.group(1) == "3"
    assert int(frame.group(2)) == -(-len(output[frame.end() :].encode()) // 4)
    # A hook sees Codex's shell: Bash with {command}, the output as a plain string.
    assert rig.order() == ["PreToolUse", "PostToolUse"]
    pre, post = rig.payloads("PreToolUse")[0], rig.payloads("PostToolUse")[0]
    assert pre["tool_name"] == post["tool_name"] == "Bash"
    assert pre["tool_input"] == {"command": "pwd; echo out; echo err >&2; exit 3"}
    assert post["tool_response"] == f"{project}\nout\nerr\n"


async def test_a_workdir_and_a_plain_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = make_codex_rig(
        tmp_path, monkeypatch, script(exec_call("pwd", workdir="sub", login=False)), []
    )
    (rig.harness.project / "sub").mkdir()
    await rig.run("go")
    (output,) = tool_outputs(rig.requests()[1])
    assert output.endswith(f"{(rig.harness.project / 'sub').resolve()}\n")
    (tmp_path / "m").mkdir()
    missing = make_codex_rig(
        tmp_path / "m", monkeypatch, script(exec_call("true", workdir="nowhere")), []
    )
    await missing.run("go")
    assert "does not exist" in tool_outputs(missing.requests()[1])[0]


@pytest.mark.parametrize(
    "call",
    [exec_call("echo a\0b"), exec_call("true", shell="/no/such/shell")],
    ids=["nul", "no-shell"],
)
async def test_a_command_that_cannot_start_is_an_error_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: dict[str, Any]
) -> None:
    rig = make_codex_rig(tmp_path, monkeypatch, script(call), [])
    await rig.run("go")
    (output,) = tool_outputs(rig.requests()[1])
    assert output.startswith("exec_command failed: cannot start")


async def test_an_escalation_under_approval_never_is_refused_as_codex_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = escalation_rig(tmp_path, monkeypatch)
    await rig.run("go")
    assert tool_outputs(rig.requests()[1]) == [NEVER_REJECTION]
    # PreToolUse fires first (Codex's order, seen with the binary); nothing else does.
    assert rig.order() == ["PreToolUse"]
    assert not (rig.harness.project / "made.txt").exists()


async def test_an_escalation_headless_with_no_answer_is_declined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = escalation_rig(tmp_path, monkeypatch, permission_mode="default")
    await rig.run("go")
    assert tool_outputs(rig.requests()[1]) == [codex_rejection(HEADLESS_DECLINE)]
    assert rig.order() == ["PreToolUse", "PermissionRequest"]
    (payload,) = rig.payloads("PermissionRequest")
    assert payload["tool_input"] == {"command": "touch made.txt", "description": "CASE-WHY"}
    assert not (rig.harness.project / "made.txt").exists()


async def test_a_permission_request_denial_reads_as_codex_words_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = escalation_rig(tmp_path, monkeypatch, PERM_ANSWER, permission_mode="default")
    await rig.run("go")
    # Rust's Debug twice over: the message inside Rejected(..), that inside the struct.
    want = (
        'exec_command failed: CreateProcess { message: "Rejected(\\"CASE \\\\\\"no\\\\\\"'
        ' \\\\\\\\ here\\")" }'
    )
    assert tool_outputs(rig.requests()[1]) == [want]
    assert not (rig.harness.project / "made.txt").exists()


@pytest.mark.parametrize(("answer", "made"), [("allowed-once", True), ("rejected", False)])
async def test_a_person_answers_when_no_hook_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: ApprovalOutcome, made: bool
) -> None:
    harness = make_harness(tmp_path, script(escalated("touch made.txt")), approval=False)
    channel = ScriptedChannel([answer])
    harness.ctx.provide(APPROVAL, ApprovalBroker(channel))
    rig = mount_codex(
        tmp_path, monkeypatch, harness, recording_hooks(EVENTS), permission_mode="default"
    )
    await rig.run("go")
    (request,) = channel.requests
    assert request.tool_name == "exec_command"
    assert "touch made.txt" in request.reason
    assert "CASE-WHY" in request.reason
    assert (harness.project / "made.txt").exists() is made
    (output,) = tool_outputs(rig.requests()[1])
    if made:
        assert _FRAME.match(output) is not None
        assert rig.order() == ["PreToolUse", "PermissionRequest", "PostToolUse"]
    else:
        assert output == codex_rejection("rejected by user")


async def test_pre_tool_use_rewrites_and_blocks_exec_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rewrite = {
        "PreToolUse": {
            "stdout": {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "updatedInput": {"command": "echo rewritten"},
                }
            }
        }
    }
    rig = make_codex_rig(tmp_path, monkeypatch, script(exec_call("echo first")), EVENTS, rewrite)
    await rig.run("go")
    assert tool_outputs(rig.requests()[1])[0].endswith("Output:\nrewritten\n")
    assert rig.payloads("PostToolUse")[0]["tool_input"] == {"command": "echo rewritten"}
    block = {"PreToolUse": {"exit": 2, "stderr": "CASE-NO"}}
    (tmp_path / "b").mkdir()
    other = make_codex_rig(tmp_path / "b", monkeypatch, script(exec_call("echo x")), EVENTS, block)
    await other.run("go")
    want = "Command blocked by PreToolUse hook: CASE-NO. Command: echo x"
    assert tool_outputs(other.requests()[1]) == [want]


async def test_the_shell_tool_can_be_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = make_harness(tmp_path, script(exec_call("echo hi")))
    harness.assembly.mount_profile(CodexProfile(home=tmp_path / "h", shell_tool=False))
    agent = harness.agent()
    agent.send("go")
    await agent.run_turn()
    await agent.close("other")
    assert "exec_command" not in {t["name"] for t in harness.requests()[0]["tools"]}


@given(st.text())
def test_rust_debug_round_trips_through_an_escape_reader(value: str) -> None:
    shown = rust_debug(value)
    assert shown.startswith('"')
    assert shown.endswith('"')
    body = shown[1:-1]
    # Every quote and backslash in the body is escaped; no raw newline is left.
    assert "\n" not in body
    assert "\r" not in body
    decoded = re.sub(
        r"\\(u\{([0-9a-f]+)\}|.)",
        lambda m: (
            chr(int(m.group(2), 16))
            if m.group(2)
            else {"n": "\n", "r": "\r", "t": "\t", "0": "\0"}.get(m.group(1), m.group(1))
        ),
        body,
    )
    assert decoded == value
    assert json.dumps(value)  # a JSON-able value: it reaches the model as text


@pytest.mark.parametrize(
    ("config", "mode"),
    [
        ('approval_policy = "on-request"\napprovals_reviewer = "auto_review"\n', "default"),
        ('approval_policy = "on-request"\n', "bypassPermissions"),  # exec forces never
        ("", "bypassPermissions"),
    ],
)
async def test_the_approval_policy_comes_from_codex_config_as_exec_settles_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, mode: str
) -> None:
    rig = escalation_rig(tmp_path, monkeypatch, permission_mode=None, config_toml=config)
    await rig.run("go")
    assert rig.payloads("PreToolUse")[0]["permission_mode"] == mode
    (output,) = tool_outputs(rig.requests()[1])
    if mode == "default":
        assert rig.order() == ["PreToolUse", "PermissionRequest"]
        assert output == codex_rejection(HEADLESS_DECLINE)
    else:
        assert rig.order() == ["PreToolUse"]
        assert output == NEVER_REJECTION
