"""Codex's matcher rules and tool aliases (reference §1.5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh.hooks.codex import load_codex_catalog
from dsh.hooks.codex.config._matcher import CodexMatcher, CodexMatcherError


@pytest.mark.parametrize(
    ("matcher", "value", "hit"),
    [
        (None, "Bash", True),
        ("", "anything", True),
        ("*", "Bash", True),
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),  # exact: only [A-Za-z0-9_|]
        ("Bash|Write", "Write", True),
        ("mcp__memory", "mcp__memory__create_entities", False),
        ("^Bash", "BashOutput", True),  # a regex, unanchored
        ("^Bash$", "BashOutput", False),
        ("mcp__.*", "mcp__memory__create", True),
        ("startup|resume", "resume", True),
    ],
)
def test_matcher_rules(matcher: str | None, value: str, hit: bool) -> None:
    assert CodexMatcher.parse(matcher).matches([value]) is hit


@pytest.mark.parametrize("bad", ["(", "(a+)+", "a{99999}", "x\x00y"])
def test_a_bad_or_dangerous_regex_is_refused(bad: str) -> None:
    with pytest.raises(CodexMatcherError, match="invalid matcher"):
        CodexMatcher.parse(bad)


def test_tool_aliases_select_but_events_ignoring_matchers_run_always(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    hooks = {
        "PreToolUse": [
            {"matcher": "apply_patch", "hooks": [{"type": "command", "command": "patch"}]},
            {"matcher": "Agent", "hooks": [{"type": "command", "command": "agent"}]},
        ],
        "Stop": [{"matcher": "never-matches", "hooks": [{"type": "command", "command": "stop"}]}],
    }
    (home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    catalog = load_codex_catalog(tmp_path, home=home, system_dir=None, bypass_trust=True)
    assert [h.command for h in catalog.matching("PreToolUse", "Write")] == ["patch"]
    assert [h.command for h in catalog.matching("PreToolUse", "MultiEdit")] == ["patch"]
    assert [h.command for h in catalog.matching("PreToolUse", "Agent")] == ["agent"]
    assert catalog.matching("PreToolUse", "Bash") == []
    assert [h.command for h in catalog.matching("Stop", None)] == ["stop"]
