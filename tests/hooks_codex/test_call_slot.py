"""The Codex bridge keeps a call's PreToolUse outcome in the call's own slot.

Real hook processes through the real loop: each of a step's parallel calls
gets the outcome its own PreToolUse hooks gave on ``tools/rewrite-input``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.agent.support import make_harness, replies, text, tool
from tests.hooks_codex.codex_support import hook_command, mount_codex


def _pre_tool(**labels: str) -> dict[str, Any]:
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
    specific = {"hookEventName": "PreToolUse"}
    deny = {**specific, "permissionDecision": "deny", "permissionDecisionReason": "NO-GLOB"}
    answers = {
        "PreRead": {"stdout": {"hookSpecificOutput": {**specific, "additionalContext": "CTX"}}},
        "PreGlob": {"stdout": {"hookSpecificOutput": deny}},
    }
    r = mount_codex(
        tmp_path, monkeypatch, harness, _pre_tool(PreRead="Read", PreGlob="Glob"), answers
    )
    await r.run("look")
    assert sorted(r.order()) == ["PreGlob", "PreRead"]  # once per call
    messages = r.requests()[-1]["messages"]
    results = [m for m in messages if m["role"] == "tool"]
    assert "AAA" in str(results[0]["content"])
    assert not results[0]["is_error"]
    assert results[1]["content"] == "Tool call blocked by PreToolUse hook: NO-GLOB. Tool: Glob"
    assert [m["text"] for m in messages if m["role"] == "context"] == ["CTX"]
