"""Codex's ``exec_command`` frames and bounds its own output: never Claude Code's preview or cut.

Codex cuts a command's output to the call's ``max_output_tokens`` (10,000 unless set) and
frames it (``Chunk ID``, ``Original token count``, ``Output:``); the model reads that whole,
success or failure. Claude Code's ``<persisted-output>`` file and its middle cut of a
failure belong to the Claude Code bridge's tools.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bounds.support import environment, of_type
from tests.cli.support import run_dsh


def _run(tmp_path: Path, command: str) -> dict[str, object]:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    (home / ".codex").mkdir(parents=True)
    call = {
        "type": "function_call",
        "name": "exec_command",
        "arguments": {"cmd": command, "max_output_tokens": 20_000},
    }
    script = tmp_path / "script.json"
    replies = [[call], [{"type": "text", "text": "ok"}]]
    script.write_text(json.dumps({"openai": {"rules": [{"responses": replies}]}}))
    env = environment(tmp_path) | {"CODEX_HOME": str(home / ".codex")}
    args: tuple[str, ...] = ("run", "--model", f"scripted:{script}", "--hooks", "codex")
    args += ("--permission-mode", "bypassPermissions")
    done = run_dsh(*args, "--", "go", cwd=project, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    [result] = of_type(tmp_path, "tool/result")
    return result


@pytest.mark.parametrize("code", [0, 1])
def test_a_long_exec_command_output_reaches_the_model_in_codex_framing(
    tmp_path: Path, code: int
) -> None:
    result = _run(tmp_path, f"head -c 60000 /dev/zero | tr '\\0' x; exit {code}")
    content = result["content"]
    assert isinstance(content, str)
    assert "persisted-output" not in content
    assert "characters truncated" not in content
    assert f"Process exited with code {code}\n" in content
    assert content.endswith("Output:\n" + "x" * 60_000)
    assert not list((tmp_path / "sessions").rglob("tool-results/*"))
