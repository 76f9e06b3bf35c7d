"""Interactive ``dsh`` in a pseudo-terminal with Claude Code's and Codex's model set-ups alone.

Bare ``dsh`` (no subcommand, no model flag) is started as each user starts their own tool:
with only ``ANTHROPIC_API_KEY``/``ANTHROPIC_BASE_URL`` (Claude Code's), or with a project of
Codex's (``.codex/``) and ``$CODEX_HOME/config.toml`` naming a Responses provider (Codex's).
A prompt typed at the terminal reaches the loopback mock in that wire format, its streamed
reply is shown, Ctrl-D ends the session (exit 0), and the mock saw the request shape.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import pytest
from _anthropic_mock import AnthropicMock
from _responses_mock import ResponsesMock
from _side_cases import Reply, SideCase

PROMPT = "\x1b[?2004h"
"""What prompt_toolkit writes as each prompt opens (bracketed paste on)."""


def _spawn(tmp_path: Path, project: Path, env: dict[str, str]) -> pexpect.spawn[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DSH_", "ANTHROPIC_"))}
    base.pop("CODEX_HOME", None)
    base |= {"TERM": "xterm", "NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1", "COLUMNS": "200"}
    base |= {"HOME": str(tmp_path / "home"), "DSH_DATA_DIR": str(tmp_path / "data")}
    base |= {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", **env}
    return pexpect.spawn(
        sys.executable, ["-m", "dsh"], cwd=str(project), env=base, encoding="utf-8",
        timeout=60, dimensions=(50, 200),
    )  # fmt: skip


def _converse(child: pexpect.spawn[str], reply: str) -> None:
    try:
        child.expect_exact(PROMPT)
        child.sendline("say hi")
        child.expect_exact(reply)
        child.expect_exact(PROMPT)
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, child.before


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_claude_codes_environment_alone_talks_to_anthropic(tmp_path: Path, project: Path) -> None:
    with AnthropicMock() as mock:
        mock.load(SideCase("hi", "say hi", (Reply(text="HELLO-FROM-ANTHROPIC"),), {}))
        env = {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": mock.url}
        _converse(_spawn(tmp_path, project, env), "HELLO-FROM-ANTHROPIC")
        [body] = [json.loads(b) for b in mock.bodies]
        assert mock.headers[0]["x-api-key"] == "sk-ant-test"
    assert body["stream"] is True
    assert body["messages"][-1]["role"] == "user"
    assert "say hi" in json.dumps(body["messages"][-1]["content"])


def test_codexs_config_alone_talks_to_its_responses_provider(tmp_path: Path, project: Path) -> None:
    (project / ".codex").mkdir()  # a Codex project: the Codex profile, its model set-up
    home = tmp_path / "codex-home"
    home.mkdir()
    with ResponsesMock() as mock:
        mock.load_script(
            {"rules": [{"responses": [[{"type": "text", "text": "HELLO-FROM-RESPONSES"}]]}]}
        )
        (home / "config.toml").write_text(
            'model = "mock-model"\nmodel_provider = "loopback"\n'
            "[model_providers.loopback]\n"
            f'name = "Loopback"\nbase_url = "{mock.url}"\nenv_key = "LOOPBACK_KEY"\n'
            'wire_api = "responses"\n'
        )
        env = {"CODEX_HOME": str(home), "LOOPBACK_KEY": "sk-loopback"}
        _converse(_spawn(tmp_path, project, env), "HELLO-FROM-RESPONSES")
        [body] = mock.main_requests()
    assert body["model"] == "mock-model"
    assert body["stream"] is True
    assert "say hi" in json.dumps(body["input"])
