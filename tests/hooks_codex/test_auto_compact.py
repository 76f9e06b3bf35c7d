"""Codex's automatic compaction: ``model_auto_compact_token_limit`` against the usage a reply
reported (``auto-compact``, and what ``codex exec`` 0.171 did against the loopback mock:
one compaction request after the reply whose usage reached the limit, its first answer
taken, the next request from the summary), and the Responses body's order of a step's
context (``posttool-context``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dsh.hooks.codex import load_codex_catalog
from dsh.messages import AssistantMessage as Reply
from dsh.messages import ContextMessage, ToolResultMessage, ToolUse, UserMessage
from dsh.models import ModelRequest
from dsh.models._anthropic_body import ThinkingStore
from dsh.models._responses import CODEX_SUMMARY_PREFIX, responses_body
from tests.cli.support import run_dsh


def catalog(tmp_path: Path, config: str) -> Any:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(config)
    (tmp_path / "project").mkdir(exist_ok=True)
    return load_codex_catalog(tmp_path / "project", home=home, system_dir=None)


def test_the_limit_is_read_from_config_toml(tmp_path: Path) -> None:
    assert catalog(tmp_path, "model_auto_compact_token_limit = 1234\n").auto_compact_tokens == 1234
    assert catalog(tmp_path, "").auto_compact_tokens is None


def test_a_limit_that_is_not_a_positive_integer_is_a_diagnostic(tmp_path: Path) -> None:
    found = catalog(tmp_path, 'model_auto_compact_token_limit = "lots"\n')
    assert found.auto_compact_tokens is None
    (problem,) = [d for d in found.diagnostics if "model_auto_compact_token_limit" in d.reason]
    assert problem.severity == "error"
    assert "'lots'" in problem.reason


USAGE = {"type": "usage", "input_tokens": 100, "output_tokens": 10}
SCRIPT = {
    "openai": {
        "rules": [
            {"no_tools": True, "responses": [[{"type": "text", "text": "SUMMARY-1"}]]},
            {"contains": "SUMMARY-1", "responses": [[{"type": "text", "text": "after"}, USAGE]]},
            {
                "responses": [
                    [{"type": "auto_shell", "command": "echo hi"}, {**USAGE, "input_tokens": 900}],
                    [{"type": "text", "text": "not compacted"}, USAGE],
                ]
            },
        ]
    }
}


def run(tmp_path: Path, *flags: str, config: str | None = None) -> list[dict[str, Any]]:
    """``dsh run`` on ``SCRIPT`` (``--hooks codex`` when ``config`` is given); the requests."""
    (tmp_path / "project").mkdir(exist_ok=True)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    env = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(tmp_path / "home" / ".codex")}
    hooks = ["--hooks", "claude", "--no-claude-hooks"]
    if config is not None:
        (tmp_path / "home" / ".codex").mkdir(parents=True)
        (tmp_path / "home" / ".codex" / "config.toml").write_text(config)
        hooks = ["--hooks", "codex"]
    args = ["run", "--model", f"scripted:{script}", "--session-dir", str(tmp_path / "s")]
    done = run_dsh(*args, *hooks, *flags, "go", cwd=tmp_path / "project", env=env)
    assert done.returncode == 0, done.stderr
    sessions = list((tmp_path / "s").glob("*.jsonl"))
    events = [json.loads(line) for line in sessions[0].read_text().splitlines()]
    return [e for e in events if e.get("type") in ("compaction/end", "assistant/message")]


def texts(events: list[dict[str, Any]]) -> list[str]:
    return [e.get("summary") or e.get("text") or "(call)" for e in events]


def test_config_toml_limit_compacts_after_the_reply_that_reached_it(tmp_path: Path) -> None:
    found = run(tmp_path, config="model_auto_compact_token_limit = 1000\n")
    # 900 + 10 tokens reported stay under 1,000: no compaction.
    assert texts(found) == ["(call)", "not compacted"]


def test_auto_compact_tokens_wins_over_config_toml(tmp_path: Path) -> None:
    found = run(
        tmp_path, "--auto-compact-tokens", "910", config="model_auto_compact_token_limit = 1000\n"
    )
    # The summary is Codex's first answer (no `<summary>` asked for again), then the request
    # from it.
    assert texts(found) == ["(call)", "SUMMARY-1", "after"]


def test_auto_compact_tokens_without_codex(tmp_path: Path) -> None:
    found = run(tmp_path, "--auto-compact-tokens", "500")
    assert texts(found)[0] == "(call)"
    assert "after" in texts(found)


def test_the_responses_body_puts_a_steps_context_before_its_outputs() -> None:
    calls = (ToolUse("c1", "exec_command", {"cmd": "a"}), ToolUse("c2", "exec_command", {}))
    request = ModelRequest(
        messages=(
            UserMessage("go"),
            Reply("", calls),
            ToolResultMessage("c1", "out-1"),
            ToolResultMessage("c2", "out-2"),
            ContextMessage("tools/post-execute", "CTX"),
            ContextMessage("hook:codex:UserPromptSubmit", "LATER"),
        ),
        tools=(),
    )
    items = responses_body("m", request, ThinkingStore())["input"]
    kinds = [i.get("output") or i.get("call_id") or i["content"][0]["text"] for i in items]
    assert kinds == ["go", "c1", "c2", "CTX", "out-1", "out-2", "LATER"]


def test_the_summary_is_framed_as_codex_frames_it() -> None:
    from dsh.messages import SummaryMessage

    request = ModelRequest(messages=(SummaryMessage("S"),), tools=())
    (item,) = responses_body("m", request, ThinkingStore())["input"]
    assert item["content"][0]["text"] == CODEX_SUMMARY_PREFIX + "S"
    assert CODEX_SUMMARY_PREFIX.startswith("Another language model started to solve")
