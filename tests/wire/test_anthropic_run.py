"""``dsh run`` with Claude Code's set-up against the loopback Anthropic Messages mock.

The real command in a real process, the real mock (``benchmarks/_anthropic_mock.py``, the
one the conformance cases' Claude Code side was recorded on): tools, streaming, usage,
an API error worded as 2.1.332 words it, and retries as ``CLAUDE_CODE_MAX_RETRIES`` says.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _anthropic_mock import AnthropicMock
from _side_cases import Reply, SideCase

from dsh.models._anthropic import TOOL_SEARCH_BETA
from tests.cli.support import run_dsh

PROMPT = "list the files"


@pytest.fixture
def mock() -> Iterator[AnthropicMock]:
    with AnthropicMock() as server:
        server.load(
            SideCase(
                "tools",
                PROMPT,
                (Reply(bash=("echo from-the-tool",)), Reply(text="all done")),
                {},
            )
        )
        yield server


def claude_env(tmp_path: Path, mock: AnthropicMock, **extra: str) -> dict[str, str]:
    """Claude Code's environment: an Anthropic key and base URL, nothing of dsh's."""
    return {
        "HOME": str(tmp_path / "home"),
        "DSH_DATA_DIR": str(tmp_path / "data"),
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": mock.url,
        "OPENAI_API_KEY": "",
        "OPENAI_BASE_URL": "",
        **extra,
    }


def run(tmp_path: Path, env: dict[str, str], *args: str) -> Any:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return run_dsh(
        "run",
        PROMPT,
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
        *args,
        cwd=project,
        env=env,
    )


def test_only_an_anthropic_key_runs_as_claude_code_would(
    tmp_path: Path, mock: AnthropicMock
) -> None:
    env = claude_env(tmp_path, mock, ANTHROPIC_CUSTOM_HEADERS="X-Team: blue\nX-Other: 1")
    done = run(tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["result"] == "all done"
    # Two streamed replies, each reporting 10 input and 5 output tokens (the mock's usage).
    assert result["usage"]["input_tokens"] == 20
    assert result["usage"]["output_tokens"] == 10
    assert mock.main_requests == 2
    headers = mock.headers[0]
    assert headers["x-api-key"] == "sk-ant-test"
    assert headers["anthropic-version"] == "2023-06-01"
    assert (headers["x-team"], headers["x-other"]) == ("blue", "1")
    first, second = (json.loads(b) for b in mock.bodies)
    assert first["model"] == second["model"] == "claude-opus-5-5"
    assert first["stream"] is True
    assert first["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert {t["name"] for t in first["tools"]} >= {"Bash", "Read", "Edit"}
    # The tool call went back as a tool_use block, its output as a tool_result answering it.
    assistant, answer = second["messages"][-2:]
    assert assistant["role"] == "assistant"
    [use] = [b for b in assistant["content"] if b["type"] == "tool_use"]
    assert (use["id"], use["name"]) == ("toolu_00_00", "Bash")
    assert use["input"]["command"] == "echo from-the-tool"
    assert answer["role"] == "user"
    result_block = answer["content"][0]
    assert result_block["type"] == "tool_result"
    assert result_block["tool_use_id"] == "toolu_00_00"
    assert "from-the-tool" in json.dumps(result_block["content"])
    assert result_block["is_error"] is False
    # One breakpoint in the messages: the last block of the last message.
    marked = [
        (i, j)
        for i, m in enumerate(second["messages"])
        for j, b in enumerate(m["content"])
        if "cache_control" in b
    ]
    assert marked == [(len(second["messages"]) - 1, len(answer["content"]) - 1)]


def test_the_sonnet_alias_is_the_id_the_recordings_show(
    tmp_path: Path, mock: AnthropicMock
) -> None:
    env = claude_env(tmp_path, mock, ANTHROPIC_API_KEY="", ANTHROPIC_AUTH_TOKEN="tok")
    done = run(tmp_path, env, "--model", "sonnet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(mock.bodies[0])["model"] == "claude-sonnet-5-5"
    assert mock.headers[0]["authorization"] == "Bearer tok"
    assert "x-api-key" not in mock.headers[0]


def test_a_400_is_claude_codes_api_error_sent_six_times(
    tmp_path: Path, mock: AnthropicMock
) -> None:
    """As the recording ``api-error`` (and ``tests/fixtures/claude_api_retries.json``) shows:
    2.1.332 sends a 400 six times (its degraded requests), whatever its retry setting."""
    error = {"type": "invalid_request_error", "message": "CASE-MOCK-400"}
    mock.fail_with = (400, {"type": "error", "error": error})
    done = run(tmp_path, claude_env(tmp_path, mock))
    assert done.returncode != 0
    assert "API Error: 400 CASE-MOCK-400" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert mock.main_requests == 6
    # Degraded as 2.1.332's resends: the last three without tool search's beta.
    sent = [h.get("anthropic-beta") for h in mock.headers]
    assert sent == [TOOL_SEARCH_BETA] * 3 + [None] * 3


def test_a_429_is_retried_as_claude_code_max_retries_says(
    tmp_path: Path, mock: AnthropicMock
) -> None:
    error = {"type": "rate_limit_error", "message": "CASE-MOCK-429"}
    mock.fail_with = (429, {"type": "error", "error": error})
    done = run(tmp_path, claude_env(tmp_path, mock, CLAUDE_CODE_MAX_RETRIES="1"))
    assert done.returncode != 0
    assert "API Error: Request rejected (429) · CASE-MOCK-429" in done.stdout + done.stderr
    assert mock.main_requests == 2


def test_config_show_names_the_provider_and_why(tmp_path: Path, mock: AnthropicMock) -> None:
    done = run_dsh("config", "show", cwd=tmp_path, env=claude_env(tmp_path, mock))
    assert done.returncode == 0, done.stderr
    assert (
        "model provider: anthropic for 'claude-opus-5-5' ($ANTHROPIC_API_KEY is set" in done.stdout
    )
