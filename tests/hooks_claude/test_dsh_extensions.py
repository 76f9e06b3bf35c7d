"""dsh's opt-in extensions under ``hookSpecificOutput.dsh``, and the real Claude Code ignoring them.

``tests/fixtures/dsh_extensions_claude.json`` is what Claude Code 2.1.332 sent its model for
the same hook answers (``benchmarks/record_dsh_extensions.py``): the prompt as typed, the
hook's context and denial honoured, the ``dsh`` key ignored. dsh gives the model the
rewritten prompt (``updatedPrompt``) and otherwise the same.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from dsh.models import ScriptedModel
from dsh.testing import call, run_session, say

FIXTURE = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "dsh_extensions_claude.json").read_text()
)


def answering(event: str, answer: dict[str, Any]) -> dict[str, Any]:
    command = f"cat > /dev/null; echo {shlex.quote(json.dumps(answer))}"
    return {"hooks": {event: [{"hooks": [{"type": "command", "command": command}]}]}}


def test_claude_code_ignores_updated_prompt_and_honours_the_rest() -> None:
    case = FIXTURE["prompt-updated-prompt"]
    assert FIXTURE["cli_version"].startswith("2.1.332")
    (request,) = case["requests"]
    assert "user: the original prompt" in request
    assert "system: UserPromptSubmit hook additional context: context from the hook" in request
    assert not any("rewritten" in line for line in request)


def test_dsh_sends_the_updated_prompt_with_the_same_context() -> None:
    case = FIXTURE["prompt-updated-prompt"]
    settings = answering("UserPromptSubmit", case["answer"])
    run = asyncio.run(run_session("the original prompt", say("done"), claude_settings=settings))
    messages = run.requests[0]["messages"]
    assert messages[0] == {"role": "user", "content": "the rewritten prompt"}
    assert messages[1]["text"] == "UserPromptSubmit hook additional context: context from the hook"
    user = [e for e in run.events if e.type == "user/message"]
    assert [getattr(e, "content", None) for e in user] == ["the rewritten prompt"]


def test_a_dsh_key_beside_a_denial_changes_nothing_in_either() -> None:
    case = FIXTURE["pretool-deny-with-dsh"]
    real = case["requests"][-1][-1]
    settings = answering("PreToolUse", case["answer"])
    run = asyncio.run(
        run_session("go", call("Bash", command="echo hi"), say("done"), claude_settings=settings)
    )
    denied = run.tool_call("Bash")
    assert real == f"tool_result: {json.dumps(denied.content)}"


def test_an_updated_prompt_that_is_not_a_string_is_ignored() -> None:
    answer = {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "dsh": {"updatedPrompt": 3}}
    }
    settings = answering("UserPromptSubmit", answer)
    run = asyncio.run(run_session("as typed", say("done"), claude_settings=settings))
    assert run.requests[0]["messages"][0] == {"role": "user", "content": "as typed"}


STOP_TWICE = """
import json, sys
payload = json.load(sys.stdin)
with open("stop-payloads.jsonl", "a") as f:
    f.write(json.dumps(payload) + "\\n")
blocks = payload.get("dsh", {}).get("stop_blocks", {})
if sum(blocks.values()) < 2 and not payload["stop_hook_active"] or 0 < sum(blocks.values()) < 2:
    print(json.dumps({"decision": "block", "reason": "not yet"}))
"""


def stop_run(tmp_path: Path) -> tuple[str, list[dict[str, Any]]]:
    settings = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "python3 stop.py"}]}]}}
    run = asyncio.run(
        run_session(
            "finish",
            say("one"),
            say("two"),
            say("three"),
            claude_settings=settings,
            files={"stop.py": STOP_TWICE},
            project=tmp_path,
        )
    )
    lines = (tmp_path / "stop-payloads.jsonl").read_text().splitlines()
    return run.final_text, [json.loads(line) for line in lines]


def test_with_extensions_on_payloads_carry_usage_and_a_stop_block_counter(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("DSH_HOOK_EXTENSIONS", "1")
    final, payloads = stop_run(tmp_path)
    assert final == "three"  # blocked twice, then let go: the hook counted
    counters = [p["dsh"]["stop_blocks"] for p in payloads]
    place = f"{tmp_path}/.claude/settings.json: Stop[0][0]"
    assert counters == [{}, {place: 1}, {place: 2}]
    assert [p["stop_hook_active"] for p in payloads] == [False, True, True]
    usage = payloads[-1]["dsh"]["usage"]
    assert set(usage) == {"input_tokens", "output_tokens", "cost_usd"}
    assert usage["cost_usd"] is None  # a scripted model's name: the table has no price


def test_without_extensions_the_payload_is_claude_codes(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.delenv("DSH_HOOK_EXTENSIONS", raising=False)
    _, payloads = stop_run(tmp_path)
    assert all("dsh" not in p for p in payloads)


USAGE = {"type": "usage", "input_tokens": 1000, "output_tokens": 100}
RECORD_USAGE = """
import json, sys
with open("usage.jsonl", "a") as f:
    f.write(json.dumps(json.load(sys.stdin)["dsh"]["usage"]) + "\\n")
"""


def test_the_usage_is_priced_from_the_table_for_a_model_it_has(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """``claude-sonnet-4-5`` at $3 and $15 per Mtok: $0.0045 a reply of 1,000 in, 100 out."""
    monkeypatch.setenv("DSH_HOOK_EXTENSIONS", "1")
    replies = [[call("Bash", command="echo hi"), USAGE], [say("done"), USAGE]]
    model = ScriptedModel({"model": "claude-sonnet-4-5", "responses": replies})
    hook = {"hooks": [{"type": "command", "command": "python3 usage.py"}]}
    settings = {"hooks": {"PreToolUse": [hook], "Stop": [hook]}}
    asyncio.run(
        run_session(
            "go",
            model=model,
            claude_settings=settings,
            files={"usage.py": RECORD_USAGE},
            project=tmp_path,
        )
    )
    lines = (tmp_path / "usage.jsonl").read_text().splitlines()
    at_pre_tool, at_stop = (json.loads(line) for line in lines)
    assert (at_pre_tool["input_tokens"], at_pre_tool["output_tokens"]) == (1000, 100)
    assert at_pre_tool["cost_usd"] == pytest.approx(0.0045)
    assert (at_stop["input_tokens"], at_stop["output_tokens"]) == (2000, 200)
    assert at_stop["cost_usd"] == pytest.approx(0.009)
