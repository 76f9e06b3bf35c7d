"""Many Codex hooks' context on one tool event: a total, and a note naming what was cut.

Codex caps each hook's ``additionalContext`` (its ``additionalContextLimit``, 2,500 tokens
unless set) but not their sum; dsh's Codex bridge keeps a tool event's contexts within the
same total as every other event (``dsh.hook_protocol._context_total``).
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.bounds.support import environment, of_type
from tests.cli.support import run_dsh

_EACH = 9_900


def _hook(event: str, n: int) -> dict[str, Any]:
    answer = (
        "import json; print(json.dumps({'hookSpecificOutput': {'hookEventName': "
        f"'{event}', 'additionalContext': 'a' * {_EACH} + ' from hook {n}'}}}}))"
    )
    return {"type": "command", "command": f'{sys.executable} -c "{answer}"'}


def _run(tmp_path: Path, event: str, hooks: int) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    group = {"matcher": "Bash", "hooks": [_hook(event, n) for n in range(hooks)]}
    (project / ".codex" / "hooks.json").write_text(json.dumps({"hooks": {event: [group]}}))
    (home / ".codex").mkdir(parents=True)
    # Codex reads a project's .codex/ layer only once the project is trusted.
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n'
    )
    script = tmp_path / "script.json"
    replies = [[{"type": "auto_shell", "command": "echo hi"}], [{"type": "text", "text": "ok"}]]
    script.write_text(json.dumps({"openai": {"rules": [{"responses": replies}]}}))
    env = environment(tmp_path) | {"CODEX_HOME": str(home / ".codex")}
    args: tuple[str, ...] = ("run", "--model", f"scripted:{script}", "--hooks", "codex")
    args += ("--dangerously-bypass-hook-trust", "--permission-mode", "bypassPermissions")
    done = run_dsh(*args, "--", "go", cwd=project, env=env)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_a_tool_events_context_has_a_total_with_a_note(tmp_path: Path, event: str) -> None:
    _run(tmp_path, event, 30)
    contexts = [
        e["text"] for e in of_type(tmp_path, "context/message") if "aaaa" in e.get("text", "")
    ]
    notes = [
        e["text"]
        for e in of_type(tmp_path, "context/message")
        if e.get("text", "").startswith("[hook context truncated")
    ]
    whole = "\n".join(contexts + notes)
    assert len(whole) < 52_000
    [note] = notes
    assert note.startswith(f"[hook context truncated: {event} hooks gave more than 50,000")
    assert "left out: 25 hooks' context" in note
    assert "and 20 more" in note
    assert [c.endswith(f" from hook {n}") for n, c in enumerate(contexts)] == [True] * 5


def test_hooks_trust_records_under_a_project_header_that_ends_the_file(tmp_path: Path) -> None:
    """Found by ``make fuzz``: a user config.toml whose last line is the project's header
    (no newline after it) made ``dsh hooks trust`` write invalid TOML and fail."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    (project / ".codex" / "hooks.json").write_text(json.dumps(hooks))
    (home / ".codex").mkdir(parents=True)
    config = home / ".codex" / "config.toml"
    config.write_text(f'[projects."{project.resolve()}"]')
    env = environment(tmp_path) | {"CODEX_HOME": str(home / ".codex")}
    done = run_dsh("hooks", "trust", "--project", str(project), cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    recorded = tomllib.loads(config.read_text())
    assert recorded["projects"][str(project.resolve())]["trust_level"] == "trusted"
    assert any(s.get("trusted_hash") for s in recorded["hooks"]["state"].values())
