"""File tools' paths as tool hooks get them: absolute and normalized (Claude Code 2.1.332).

PreToolUse and PostToolUse see ``tool_input.file_path`` joined to the session's current
directory, ``~`` expanded and ``..`` resolved (the corpus's ``file-path-write``), so a guard on
a path prefix sees the file that is written; PostToolBatch, the tool's result and the model's
history keep the path as the model wrote it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agent.support import make_harness, replies, text, tool
from tests.hooks_claude.bridge_support import make_rig, mount_hooks

EVENTS = ["PreToolUse", "PostToolUse", "PostToolBatch"]


def written(path: str) -> str:
    return Path(path).read_text()


def write(path: str) -> dict[str, Any]:
    return tool("Write", file_path=path, content="x\n")


async def test_hooks_get_the_absolute_normalized_path_and_the_tool_keeps_the_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    script = replies(
        [write("rel.txt")], [write("~/tilde.txt")], [write("sub/../dotdot.txt")], [text("Done.")]
    )
    rig = make_rig(tmp_path, monkeypatch, script, EVENTS)
    await rig.run("write them")
    project = rig.harness.project.resolve()
    home = (tmp_path / "home").resolve()
    wanted = [str(project / "rel.txt"), str(home / "tilde.txt"), str(project / "dotdot.txt")]
    for event in ("PreToolUse", "PostToolUse"):
        assert [p["tool_input"]["file_path"] for p in rig.payloads(event)] == wanted
    batch = [p["tool_calls"][0] for p in rig.payloads("PostToolBatch")]
    assert [c["tool_input"]["file_path"] for c in batch] == [
        "rel.txt",
        "~/tilde.txt",
        "sub/../dotdot.txt",
    ]
    assert batch[1]["tool_response"].startswith("File created successfully at: ~/tilde.txt")
    assert [p["tool_response"]["filePath"] for p in rig.payloads("PostToolUse")][2] == (
        "sub/../dotdot.txt"
    )
    assert [written(path) for path in wanted] == ["x\n"] * 3


async def test_a_prefix_guard_is_not_bypassed_by_dotdot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The guard refuses writes outside the project; `sub/../../out.txt` leaves it.
    guard = tmp_path / "guard.py"
    guard.write_text(
        "import json, os, sys\n"
        "p = json.load(sys.stdin)['tool_input']['file_path']\n"
        "if not p.startswith(os.environ['CLAUDE_PROJECT_DIR'] + os.sep):\n"
        "    print('outside: ' + p, file=sys.stderr); sys.exit(2)\n"
    )
    script = replies([write("sub/../../out.txt")], [write("sub/in.txt")], [text("Done.")])
    harness = make_harness(tmp_path, script)
    command = f"{sys.executable} {guard}"
    hooks = {
        "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": command}]}]
    }
    rig = mount_hooks(tmp_path, monkeypatch, harness, hooks, None)
    await rig.run("write them")
    project = rig.harness.project.resolve()
    assert not (project.parent / "out.txt").exists()
    assert (project / "sub" / "in.txt").read_text() == "x\n"
    denied = [m for m in rig.requests()[1]["messages"] if m["role"] == "tool"]
    assert denied[0]["is_error"] is True
    assert f"outside: {project.parent / 'out.txt'}" in denied[0]["content"]
