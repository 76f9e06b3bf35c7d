"""``dsh acp`` driven by acpx, a headless ACP client nobody here wrote (npm ``acpx``).

``make pytest`` installs it into ``tests/acp/node/node_modules`` with the TypeScript SDK;
without node or that install the test is skipped, saying why. acpx advertises the client's
``fs/read_text_file`` and ``fs/write_text_file``: the Write goes through it.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acp._harness import dsh_env, write_script

ACPX = Path(__file__).parent / "node" / "node_modules" / ".bin" / "acpx"


def test_acpx_runs_a_turn_whose_write_goes_through_the_client(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: acpx (an independent ACP client) is skipped")
    if not ACPX.exists():
        pytest.skip("acpx is not installed in tests/acp/node (`make acp-node-client`): skipped")
    project = tmp_path / "project"
    project.mkdir()
    made = {"file_path": "made.txt", "content": "x\n"}
    write = {"type": "tool_use", "name": "Write", "input": made}
    script = write_script(
        tmp_path / "s.json", [{"responses": [[write], [{"type": "text", "text": "WROTE-IT"}]]}]
    )
    agent = [sys.executable, "-m", "dsh", "acp", "--model", f"scripted:{script}"]
    agent += ["--session-dir", str(tmp_path / "sessions"), "--trust-project"]
    agent += ["--permission-mode", "acceptEdits"]
    client = [str(ACPX), "--agent", shlex.join(agent), "--cwd", str(project), "--approve-all"]
    done = subprocess.run(
        [*client, "--format", "json", "exec", "write the file"],
        env=dsh_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    methods = [m.get("method") for m in lines]
    assert "fs/write_text_file" in methods  # the client wrote it
    said = [
        m["params"]["update"]["content"]["text"]
        for m in lines
        if m.get("method") == "session/update"
        and m["params"]["update"].get("sessionUpdate") == "agent_message_chunk"
    ]
    assert "".join(said) == "WROTE-IT"
    assert (project / "made.txt").read_text() == "x\n"
    [asked] = [m["id"] for m in lines if m.get("method") == "session/prompt"]
    [result] = [m for m in lines if m.get("id") == asked and "result" in m]
    assert result["result"]["stopReason"] == "end_turn"
