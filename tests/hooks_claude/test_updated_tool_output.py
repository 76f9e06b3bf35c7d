"""PostToolUse ``updatedToolOutput``: real hook processes, the real loop, real tools.

A PostToolUse hook may replace a successful call's output. It must match the
tool's output model, else it is not applied (a warning notice names the hook);
the model then sees the replacement rendered as the tool renders its own, the
log records it, and a block reason or context still follows it. Among several
hooks the last valid one in declaration order wins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dsh.base import thaw_json
from dsh.session import NoticeEvent, ToolResultEvent
from tests.agent.support import bash, make_harness, of_type, replies, text
from tests.hooks_claude.bridge_support import Rig, hook_command, mount_hooks

SECRET = "CASE-SECRET-42"


def bash_output(stdout: str) -> dict[str, Any]:
    return {
        "stdout": stdout,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }


def answer(updated: Any, **more: Any) -> dict[str, Any]:
    specific = {"hookEventName": "PostToolUse", "updatedToolOutput": updated}
    return {"stdout": {"hookSpecificOutput": specific, **more}}


def rig(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answers: dict[str, Any],
    *,
    labels: tuple[str, ...] = ("PostA",),
    command: str = f"echo {SECRET}",
) -> Rig:
    harness = make_harness(tmp_path, replies([bash(command)], [text("done")]))
    hooks = {
        "PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": hook_command(label)}]}
            for label in labels
        ]
    }
    return mount_hooks(tmp_path, monkeypatch, harness, hooks, answers)


def model_saw(r: Rig) -> list[tuple[str, bool]]:
    out = []
    for m in r.requests()[-1]["messages"]:
        if m["role"] == "tool":
            content = m["content"]
            if isinstance(content, list):
                content = "\n".join(b["text"] for b in content)
            out.append((content, m["is_error"]))
    return out


def logged_result(agent: Any) -> ToolResultEvent:
    (event,) = of_type(agent.events, ToolResultEvent)
    return event  # type: ignore[no-any-return]


def warnings(agent: Any) -> list[str]:
    return [n.text for n in of_type(agent.events, NoticeEvent) if n.level == "warning"]


async def test_a_replacement_is_what_the_model_sees_and_what_the_log_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PostA": answer(bash_output("[redacted]"))})
    agent, _ = await r.run("run it")

    (post,) = r.payloads("PostA")
    assert post["tool_response"]["stdout"] == SECRET  # the hook saw the real output
    assert model_saw(r) == [("[redacted]", False)]
    assert thaw_json(logged_result(agent).output) == bash_output("[redacted]")
    assert logged_result(agent).content == "[redacted]"
    assert warnings(agent) == []


async def test_an_empty_stdout_is_rendered_as_the_tool_renders_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = rig(tmp_path, monkeypatch, {"PostA": answer(bash_output(""))})
    await r.run("run it")
    assert model_saw(r) == [("(Bash completed with no output)", False)]


@pytest.mark.parametrize(
    ("updated", "named"),
    [
        ({"stdout": "[redacted]"}, "stderr"),  # fields missing
        ({**bash_output("x"), "interrupted": "no"}, "interrupted"),  # wrong type
        ("[redacted]", "BashOutput"),  # not an object
    ],
)
async def test_a_replacement_that_does_not_match_is_not_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, updated: Any, named: str
) -> None:
    r = rig(tmp_path, monkeypatch, {"PostA": answer(updated)})
    agent, _ = await r.run("run it")

    assert model_saw(r) == [(SECRET, False)]
    assert thaw_json(logged_result(agent).output) == bash_output(SECRET)
    (warning,) = warnings(agent)
    assert warning.startswith("PostToolUse hook error (")
    assert "PostA" in warning
    assert "updatedToolOutput for Bash was not applied" in warning
    assert named in warning


async def test_the_last_valid_replacement_in_declaration_order_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = {
        "PostA": answer(bash_output("first")),
        "PostB": answer(bash_output("second")),
        "PostC": answer({"stdout": 3}),
    }
    r = rig(tmp_path, monkeypatch, answers, labels=("PostA", "PostB", "PostC"))
    agent, _ = await r.run("run it")
    assert model_saw(r)[0][0] == "second"
    assert len(warnings(agent)) == 1


async def test_a_block_reason_and_context_follow_the_replacement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = answer(bash_output("[redacted]"), decision="block", reason="CASE-BLOCK-REASON")
    out["stdout"]["hookSpecificOutput"]["additionalContext"] = "CASE-CONTEXT"
    r = rig(tmp_path, monkeypatch, {"PostA": out})
    await r.run("run it")

    messages = r.requests()[-1]["messages"]
    after_call = [m for m in messages if m["role"] in ("tool", "context")]
    assert [m.get("content", m.get("text")) for m in after_call] == [
        "[redacted]",
        'PostToolUse:Bash hook blocking error from command: "'
        f'{hook_command("PostA")}": CASE-BLOCK-REASON'
        "\n\nPostToolUse:Bash hook additional context: CASE-CONTEXT",  # one message
    ]


async def test_a_failed_call_fires_no_post_tool_use_and_keeps_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = make_harness(tmp_path, replies([bash("echo CASE-OUT; exit 3")], [text("done")]))
    hooks = {
        "PostToolUse": [{"hooks": [{"type": "command", "command": hook_command("PostA")}]}],
        "PostToolUseFailure": [
            {"hooks": [{"type": "command", "command": hook_command("Failure")}]}
        ],
    }
    answers = {"PostA": answer(bash_output("x")), "Failure": answer(bash_output("x"))}
    r = mount_hooks(tmp_path, monkeypatch, harness, hooks, answers)
    agent, _ = await r.run("run it")
    assert r.order() == ["Failure"]
    assert model_saw(r) == [("Exit code 3\nCASE-OUT", True)]
    assert logged_result(agent).code == "TOOL_ERROR"


async def test_a_legacy_suite_cannot_replace_a_failed_calls_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No PostToolUseFailure declared: the suite gets PostToolUse for the failed call.
    harness = make_harness(tmp_path, replies([bash("echo CASE-OUT; exit 3")], [text("done")]))
    hooks = {"PostToolUse": [{"hooks": [{"type": "command", "command": hook_command("PostA")}]}]}
    r = mount_hooks(tmp_path, monkeypatch, harness, hooks, {"PostA": answer(bash_output("x"))})
    agent, _ = await r.run("run it")
    assert r.order() == ["PostA"]
    assert model_saw(r) == [("Exit code 3\nCASE-OUT", True)]
    (warning,) = warnings(agent)
    assert "was not applied: the call failed (TOOL_ERROR)" in warning
