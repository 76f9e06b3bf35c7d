"""``dsh run`` with Codex 0.171's model set-up against the loopback Responses mock.

The real command under the Codex profile (``--hooks codex``), Codex's ``config.toml``
in ``$CODEX_HOME`` (``model``, ``model_provider``, ``[model_providers.NAME]`` with
``base_url``, ``env_key``, ``wire_api``, ``query_params``, ``http_headers``, profiles),
the real mock (``benchmarks/_responses_mock.py``, the one the Codex cases were
recorded on): function calls and their outputs, streaming, usage, an API error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _responses_mock import ResponsesMock

from tests.cli.support import run_dsh

CALL_THEN_TEXT = {
    "rules": [
        {
            "responses": [
                [{"type": "function_call", "name": "Bash", "arguments": {"command": "echo hi"}}],
                [{"type": "text", "text": "all done"}],
            ]
        }
    ]
}


@pytest.fixture
def mock() -> Iterator[ResponsesMock]:
    with ResponsesMock() as server:
        server.load_script(CALL_THEN_TEXT)
        yield server


def codex_home(tmp_path: Path, mock: ResponsesMock, extra: str = "") -> dict[str, str]:
    home = tmp_path / "codex-home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        f"""
model = "mock-model"
model_provider = "loopback"
{extra}

[model_providers.loopback]
name = "Loopback"
base_url = "{mock.url}"
env_key = "LOOPBACK_KEY"
wire_api = "responses"
query_params = {{ "api-version" = "2026-01-01" }}
http_headers = {{ "X-Team" = "blue" }}

[profiles.other]
model = "other-model"
"""
    )
    return {
        "HOME": str(tmp_path / "home"),
        "DSH_DATA_DIR": str(tmp_path / "data"),
        "CODEX_HOME": str(home),
        "LOOPBACK_KEY": "sk-loopback",
        "ANTHROPIC_API_KEY": "",
        "ANTHROPIC_AUTH_TOKEN": "",
        "ANTHROPIC_MODEL": "",
    }


def run(tmp_path: Path, env: dict[str, str], *flags: str) -> Any:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return run_dsh(
        "run",
        "say hi",
        *flags,
        "--hooks",
        "codex",
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
        cwd=project,
        env=env,
    )


def test_codexs_config_runs_dsh_run_on_the_responses_api(
    tmp_path: Path, mock: ResponsesMock
) -> None:
    done = run(tmp_path, codex_home(tmp_path, mock))
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["result"] == "all done"
    assert result["usage"]["input_tokens"] == 200  # two responses, 100 input tokens each
    assert mock.errors == []
    first, second = mock.requests
    assert first["model"] == "mock-model"
    assert (first["stream"], first["store"]) == (True, False)
    assert any(t["name"] == "Bash" for t in first["tools"])
    assert mock.paths[0] == "POST /v1/responses?api-version=2026-01-01"
    assert mock.headers[0]["authorization"] == "Bearer sk-loopback"
    assert mock.headers[0]["x-team"] == "blue"
    call, output = second["input"][-2:]
    assert (call["type"], call["name"]) == ("function_call", "Bash")
    assert json.loads(call["arguments"]) == {"command": "echo hi"}
    assert output["type"] == "function_call_output"
    assert output["call_id"] == call["call_id"]
    assert "hi" in output["output"]


def test_a_profile_picks_its_model(tmp_path: Path, mock: ResponsesMock) -> None:
    env = codex_home(tmp_path, mock)
    # Codex 0.171's --profile NAME: $CODEX_HOME/NAME.config.toml over config.toml (the
    # [profiles.other] table there is legacy, and ignored when nothing selects it).
    (tmp_path / "codex-home" / "work.config.toml").write_text('model = "work-model"\n')
    done = run(tmp_path, env, "--profile", "work")
    assert done.returncode == 0, done.stdout + done.stderr
    assert mock.requests[0]["model"] == "work-model"
    assert mock.paths[0] == "POST /v1/responses?api-version=2026-01-01"


def test_the_legacy_profile_key_is_refused_as_codex_refuses_it(
    tmp_path: Path, mock: ResponsesMock
) -> None:
    done = run(tmp_path, codex_home(tmp_path, mock, 'profile = "other"'))
    assert done.returncode != 0
    config = tmp_path / "codex-home" / "config.toml"
    assert f'dsh: {config}: legacy `profile = "other"` config is no longer supported' in (
        done.stderr
    )
    assert "use `--profile other` with `other.config.toml` instead" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert mock.requests == []


def test_a_bad_profile_name_is_refused(tmp_path: Path, mock: ResponsesMock) -> None:
    done = run(tmp_path, codex_home(tmp_path, mock), "--profile", "../work")
    assert done.returncode != 0
    assert "dsh: invalid --profile value `../work`; pass a plain name such as `work`" in (
        done.stderr
    )
    assert mock.requests == []


def test_a_trusted_projects_model_is_used_but_not_its_provider(
    tmp_path: Path, mock: ResponsesMock
) -> None:
    project = tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    local = project / ".codex" / "config.toml"
    local.write_text(
        'model = "project-model"\nmodel_provider = "elsewhere"\n\n'
        '[model_providers.elsewhere]\nbase_url = "http://127.0.0.1:9/v1"\n'
        'env_key = "LOOPBACK_KEY"\n'
    )
    trust = f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n'
    env = codex_home(tmp_path, mock)
    with (tmp_path / "codex-home" / "config.toml").open("a") as config:
        config.write(trust)
    done = run(tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert mock.requests[0]["model"] == "project-model"
    assert mock.headers[0]["authorization"] == "Bearer sk-loopback"  # the user's provider
    assert (
        f"dsh: warning: Ignored unsupported project-local config keys in {local.resolve()}:"
        " model_provider, model_providers. If you want these settings to apply, manually set"
        " them in your user-level config.toml."
    ) in done.stderr


def test_an_api_error_is_reported_without_a_traceback(tmp_path: Path, mock: ResponsesMock) -> None:
    error = {"type": "http_error", "status": 400, "body": {"error": {"message": "MOCK-400"}}}
    mock.load_script({"rules": [{"responses": [[error]]}]})
    done = run(tmp_path, codex_home(tmp_path, mock))
    assert done.returncode != 0
    assert "unexpected status 400: MOCK-400" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert len(mock.requests) == 1


def test_a_profile_outside_codexs_set_up_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    done = run_dsh(
        "run",
        "hi",
        "--hooks",
        "claude",
        "--profile",
        "work",
        "--model",
        "scripted:x.json",
        cwd=project,
        env={"HOME": str(tmp_path / "home"), "DSH_DATA_DIR": str(tmp_path / "data")},
    )
    assert done.returncode != 0
    assert "dsh: --profile work: Codex's profiles apply to Codex's model set-up" in done.stderr
