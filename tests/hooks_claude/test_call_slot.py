"""The bridge keeps a call's PreToolUse outcome and start time in the call's own slot.

Real hook processes through the real loop: what PreToolUse decided on
``tools/rewrite-input`` is applied to that call at ``tools/pre-execute``
(parallel calls each get their own), and PostToolUse's ``duration_ms`` is
measured from the time kept at pre-execute.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dsh.tools import ToolRequest
from tests.agent.support import bash, make_harness, replies, text, tool
from tests.hooks_claude.bridge_support import hook_command, mount_hooks
from tests.hooks_claude.test_updated_input import MODEL_INPUT, answer, rewrite_to, rig


def _hooks(**labels: str) -> dict[str, Any]:
    """PreToolUse hooks, one group per ``label=matcher``."""
    return {
        "PreToolUse": [
            {"matcher": matcher, "hooks": [{"type": "command", "command": hook_command(label)}]}
            for label, matcher in labels.items()
        ]
    }


async def test_parallel_calls_each_get_their_own_pre_tool_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = replies([tool("Read", file_path="a.txt"), tool("Glob", pattern="*.txt")], [text("ok")])
    harness = make_harness(tmp_path, script)
    (harness.project / "a.txt").write_text("AAA\n")
    context = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "CTX"}}
    answers = {"PreRead": {"stdout": context}, "PreGlob": answer(decision="deny")}
    r = mount_hooks(tmp_path, monkeypatch, harness, _hooks(PreRead="Read", PreGlob="Glob"), answers)
    await r.run("look")
    assert sorted(r.order()) == ["PreGlob", "PreRead"]  # once per call
    messages = r.requests()[-1]["messages"]
    results = [m for m in messages if m["role"] == "tool"]
    assert "AAA" in str(results[0]["content"])
    assert not results[0]["is_error"]
    assert results[1]["content"] == "PreToolUse:Glob hook error: CASE-DENY-REASON"
    assert results[1]["is_error"]
    contexts = [m for m in messages if m["role"] == "context"]
    assert [m["text"] for m in contexts] == ["PreToolUse:Read hook additional context: CTX"]


async def test_post_tool_use_duration_is_measured_from_pre_execute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = make_harness(tmp_path, replies([bash("sleep 0.3")], [text("done")]))
    hooks = {"PostToolUse": [{"hooks": [{"type": "command", "command": hook_command("Post")}]}]}
    r = mount_hooks(tmp_path, monkeypatch, harness, hooks, {})
    await r.run("wait")
    (post,) = r.payloads("Post")
    assert post["duration_ms"] >= 300


async def test_a_call_without_a_tool_use_id_gets_its_updated_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The slot finds the call again without an id: rewriting applies as for the model's calls.
    r = rig(
        tmp_path,
        monkeypatch,
        {"PreA": answer(decision="allow", updated=rewrite_to("NEW"))},
        post=False,
    )
    agent = r.harness.agent()
    res = await r.harness.registry.execute(ToolRequest("Bash", MODEL_INPUT), agent=agent)
    assert r.order() == ["PreA"]
    assert res.call.original_arguments == MODEL_INPUT
    assert res.call.arguments == rewrite_to("NEW")
    assert res.result.is_error is False
    await agent.close("other")
