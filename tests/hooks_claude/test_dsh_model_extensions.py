"""The opt-in reply rewrite and context prune of Claude Code hooks (``DSH_HOOK_EXTENSIONS``).

``tests/fixtures/dsh_extensions_claude.json`` (``benchmarks/record_dsh_extensions.py``) is
what the real Claude Code 2.1.332 sent its model for the same answers: the model's own
words and the tool's output, the ``dsh`` key ignored, the hooks' contexts honoured. dsh does
the same with the setting off; with it on, the model reads the rewritten reply and the
pruned result, and the log keeps what was really said and output. Real hook processes.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import ModelSubstitutedEvent
from dsh.testing import SessionRun, call, run_session, say

FIXTURE = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "dsh_extensions_claude.json").read_text()
)

REDACT = """
import json, sys
said = json.load(sys.stdin)["delta"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "MessageDisplay",
    "displayContent": "[shown] " + said,
    "dsh": {"updatedReply": said.replace("hunter2", "*******")}}}))
"""
PRUNE = """
import json, sys
payload = json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
    "additionalContext": "context after the call",
    "dsh": {"pruneToolResults": [payload["tool_use_id"]]}}}))
"""


def hooked(event: str, script: str) -> dict[str, Any]:
    hook = {"type": "command", "command": f'python3 "$CLAUDE_PROJECT_DIR/{script}"'}
    return {"hooks": {event: [{"hooks": [hook]}]}}


def replied() -> SessionRun:
    return asyncio.run(
        run_session(
            "the password?",
            [say("it is hunter2"), call("Bash", command="echo hi")],
            say("done"),
            claude_settings=hooked("MessageDisplay", "redact.py"),
            files={"redact.py": REDACT},
        )
    )


def test_claude_code_ignores_the_reply_rewrite_and_the_prune() -> None:
    assert FIXTURE["cli_version"].startswith("2.1.332")
    shown = FIXTURE["display-updated-reply"]
    assert shown["requests"][-1] == [
        "user: the original prompt",
        "assistant: the model's own words",
        'tool_result: "hi"',
    ]
    assert shown["stdout"] == "shown instead\n"  # displayContent: the display only
    for case, event in (("posttool-prune", "PostToolUse:Bash"), ("posttoolbatch-prune", "")):
        last = FIXTURE[case]["requests"][-1]
        assert last[:2] == ["user: the original prompt", 'tool_result: "hi"']
        assert last[2].startswith(f"system: {event or 'PostToolBatch'} hook additional context")


def test_without_the_setting_dsh_keeps_the_models_words_as_claude_code_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DSH_HOOK_EXTENSIONS", raising=False)
    run = replied()
    assert run.requests[1]["messages"][1]["text"] == "it is hunter2"
    shown = [e for e in run.events if e.type == "assistant/display"]
    assert [getattr(e, "text", None) for e in shown] == ["[shown] it is hunter2", "[shown] done"]


def test_with_the_setting_the_model_reads_the_rewritten_reply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DSH_HOOK_EXTENSIONS", "1")
    run = replied()
    assert run.requests[1]["messages"][1]["text"] == "it is *******"
    said = [e for e in run.events if isinstance(e, ModelSubstitutedEvent)]
    assert [(e.what, e.detail["text"]) for e in said] == [("reply", "it is hunter2")]
    shown = [e for e in run.events if e.type == "assistant/display"]
    assert [getattr(e, "text", None) for e in shown] == ["[shown] it is hunter2", "[shown] done"]
    fired = [h for h in run.hooks if h.hook_event == "MessageDisplay"]
    assert len(fired) == 2  # once per reply with text, not again at display


@pytest.mark.parametrize("on", [False, True])
def test_a_post_tool_use_answer_prunes_the_result_from_later_requests(
    on: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if on:
        monkeypatch.setenv("DSH_HOOK_EXTENSIONS", "1")
    else:
        monkeypatch.delenv("DSH_HOOK_EXTENSIONS", raising=False)
    run = asyncio.run(
        run_session(
            "look",
            call("Bash", command="echo hi"),
            say("done"),
            claude_settings=hooked("PostToolUse", "prune.py"),
            files={"prune.py": PRUNE},
        )
    )
    last = run.requests[-1]["messages"]
    result = next(m for m in last if m["role"] == "tool")
    assert result["content"] == ("[tool result pruned by a hook]" if on else "hi")
    assert any(m.get("text", "").endswith("context after the call") for m in last)
    assert run.tool_call("Bash").content == "hi"  # the log keeps the result
    said = [e.what for e in run.events if isinstance(e, ModelSubstitutedEvent)]
    assert said == (["request"] if on else [])
