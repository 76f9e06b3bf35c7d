"""``dsh acp`` driven by an independent client: the TypeScript SDK (``node/client.mjs``).

``make pytest`` installs the SDK into ``tests/acp/node/node_modules`` (``npm ci``,
project-local); without node or that install the test is skipped, saying why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acp._harness import SCHEMA, dsh_env, write_script
from tests.acp._hooks import install_hooks, pre_tool

NODE_DIR = Path(__file__).parent / "node"
SDK = NODE_DIR / "node_modules" / "@agentclientprotocol" / "sdk"


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the independent ACP client (TypeScript SDK) is skipped")
    if not (SDK / "package.json").exists():
        pytest.skip(
            "the TypeScript ACP SDK is not installed in tests/acp/node "
            "(`make acp-node-client` installs it): the independent client is skipped"
        )
    return node


def test_the_typescript_sdk_client_drives_dsh_acp(tmp_path: Path) -> None:
    node = _node()
    project = tmp_path / "project"
    project.mkdir()
    install_hooks(project, {"PreToolUse": pre_tool("ask", "a person decides")})

    def bash(command: str) -> dict[str, object]:
        return {"type": "tool_use", "name": "Bash", "input": {"command": command}}

    def text(words: str) -> dict[str, object]:
        return {"type": "text", "text": words}

    done_text = [text("done")]
    launch = {
        "type": "tool_use",
        "name": "Agent",
        "input": {"description": "Say hello", "prompt": "SUBTASK: say hello"},
    }
    script = write_script(
        tmp_path / "s.json",
        [
            {
                "first_user_contains": "allow",
                "responses": [[bash("echo y > allowed.txt")], done_text],
            },
            {
                "first_user_contains": "reject",
                "responses": [[bash("echo n > rejected.txt")], done_text],
            },
            {"first_user_contains": "sleep", "responses": [[bash("sleep 60")], done_text]},
            {"first_user_contains": "SUBTASK", "responses": [[text("child result")]]},
            {
                "first_user_contains": "delegate",
                "responses": [[launch], [text("launched")], [text("notified")]],
            },
        ],
    )
    agent = [sys.executable, "-m", "dsh", "acp", "--model", f"scripted:{script}"]
    agent += ["--session-dir", str(tmp_path / "sessions")]
    done = subprocess.run(
        [node, str(NODE_DIR / "client.mjs"), str(project), *agent],
        cwd=NODE_DIR,
        env=dsh_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "node client: all checks passed" in done.stdout


def test_the_vendored_schema_is_the_one_the_sdk_ships() -> None:
    _node()
    shipped = SDK / "schema" / "v1" / "schema.json"
    assert json.loads(shipped.read_text()) == json.loads(SCHEMA.read_text())
