"""An unknown ``subagent_type`` under Claude Code's hooks in a project with no custom agents:
refused as 2.1.332 refuses it (``tests/fixtures/claude_worktree.json``, case
``unknown-subagent-type``); one of 2.1.332's built-in names still starts the default agent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

RECORDED = json.loads(
    (Path(__file__).parent.parent / "fixtures" / "claude_worktree.json").read_text()
)["unknown-subagent-type"]


def _agent_call(kind: str) -> list[dict[str, Any]]:
    arguments = {"description": "d", "prompt": "SUBTASK: go", "subagent_type": kind}
    return [
        {"type": "tool_use", "name": "Agent", "input": {**arguments, "run_in_background": False}}
    ]


def _results(stdout: str) -> list[dict[str, Any]]:
    """Every tool result of the parent's stream-json, in order."""
    found = []
    for line in stdout.splitlines():
        event = json.loads(line)
        if event.get("type") == "user" and event.get("parent_tool_use_id") is None:
            content = event["message"]["content"]
            found += [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    return found


@pytest.mark.parametrize("kind", ["no-such-agent", "Explore"])
def test_an_unknown_subagent_type_is_refused_as_2_1_332_refuses_it(
    tmp_path: Path, kind: str
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    hook = {"hooks": [{"type": "command", "command": "true"}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"Stop": [hook]}}))
    child = [[{"type": "text", "text": "child done"}]]
    parent = [_agent_call(kind), [{"type": "text", "text": "parent done"}]]
    rules = [{"first_user_contains": "SUBTASK", "responses": child}, {"responses": parent}]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"anthropic": {"rules": rules}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    env.update({"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")})
    argv = [sys.executable, "-m", "dsh", "run", "go", "--model", f"scripted:{script}"]
    argv += ["--session-dir", str(tmp_path / "s"), "--trust-project"]
    argv += ["--output-format", "stream-json", "--verbose"]
    done = subprocess.run(
        argv, cwd=project, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    result = _results(done.stdout)[0]
    if kind == "Explore":
        assert not result.get("is_error")
        assert "child done" in json.dumps(result["content"])
        return
    recorded = RECORDED["model_view"][0]["seen"][0]["tool_result"]
    assert result["is_error"] is recorded["is_error"] is True
    assert result["content"] in (
        recorded["content"],
        [{"type": "text", "text": recorded["content"]}],
    )
