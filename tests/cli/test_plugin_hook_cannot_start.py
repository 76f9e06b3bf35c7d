"""A plugin hook whose script cannot start (missing, not executable, bad ``#!``), through
``dsh run --plugin-dir`` with real processes: as the real Claude Code 2.1.332 treats it
(``dsh.hooks.claude.runtime._no_decision``): the call runs, the run succeeds, the model sees
nothing,
a PreToolUse one warns the user naming the plugin, and the log records
``Failed with non-blocking status code: <stderr>``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import dsh, write_script

WARNING = 'A hook of the "broken" plugin gave no usable answer, so it didn\'t check this action.'


def broken_plugin(root: Path, script: str) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "broken"}))
    (root / "hooks").mkdir()
    (root / "hooks" / "noexec.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "hooks" / "noexec.sh").chmod(0o644)
    (root / "hooks" / "badinterp.sh").write_text("#!/nonexistent/interpreter\necho hi\n")
    (root / "hooks" / "badinterp.sh").chmod(0o755)
    group = {"hooks": [{"type": "command", "command": f"${{CLAUDE_PLUGIN_ROOT}}/hooks/{script}"}]}
    hooks = {"PreToolUse": [{**group, "matcher": "Bash"}], "Stop": [group]}
    (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    return root


@pytest.mark.parametrize("script", ["missing.sh", "noexec.sh", "badinterp.sh"])
def test_the_run_goes_on_and_the_user_is_warned(tmp_path: Path, script: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    plugin = broken_plugin(tmp_path / "plugin", script)
    model = write_script(
        tmp_path / "script.json",
        [
            [{"type": "tool_use", "name": "Bash", "input": {"command": "echo RAN > ran.txt"}}],
            [{"type": "text", "text": "all done"}],
        ],
    )
    args = ["--model", f"scripted:{model}", "--project", str(project), "--plugin-dir", str(plugin)]
    args += ["--session-dir", str(tmp_path / "sessions"), "--permission-mode", "bypassPermissions"]
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    done = dsh("run", "go", *args, "--output-format", "stream-json", cwd=tmp_path, env_extra=env)
    assert done.returncode == 0, done.stderr
    assert (project / "ran.txt").read_text() == "RAN\n"  # failed open: the call ran
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    shown = [line.get("text") for line in lines if line.get("type") == "system"]
    assert shown.count(WARNING) == 1  # PreToolUse's; Stop's failure warns nobody
    assert lines[-1]["result"] == "all done"
    assert "Traceback" not in done.stderr
    # The failure is on record with 2.1.332's words and the shell's own complaint.
    events = [
        json.loads(line)
        for path in (tmp_path / "sessions").rglob("*.jsonl")
        for line in path.read_text().splitlines()
    ]
    assert not [e for e in events if e["type"] in ("context/message", "steering/message")]
    results = [e for e in events if e["type"] == "hook/result"]
    reasons = [r.get("reason") or "" for r in results if r.get("no_decision") == "nonzero_exit"]
    assert len(reasons) == 2
    assert all(r.startswith("Failed with non-blocking status code: ") for r in reasons)
    assert all(script in r for r in reasons)
