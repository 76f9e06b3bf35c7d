"""Hooks do not inherit dsh's model API keys, through the real loop with real hook processes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.hook_protocol import SECRET_ENV_VARS
from dsh.hook_protocol._environment import PASS_ENV_SETTING, spawn_environment
from dsh.session import TurnEndReason
from tests.agent.support import bash, make_harness, replies, text
from tests.hooks_claude.bridge_support import mount_hooks

SCRIPT = Path(__file__).parent / "scripts" / "env_hook.py"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")


async def hook_environments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[dict[str, Any]]:
    harness = make_harness(tmp_path, replies([text("Running."), bash("echo hi")], [text("Done.")]))
    hooks = {
        event: [{"hooks": [{"type": "command", "command": f"{sys.executable} {SCRIPT} {event}"}]}]
        for event in EVENTS
    }
    rig = mount_hooks(tmp_path, monkeypatch, harness, hooks, None)
    log = tmp_path / "env.jsonl"
    monkeypatch.setenv("ENV_HOOK_LOG", str(log))
    _, result = await rig.run("Please run echo hi")
    assert result.end_reason == TurnEndReason.COMPLETED
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["event"] for e in entries] == list(EVENTS)
    return entries


async def test_no_hook_sees_the_model_api_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DSH_API_KEY", "sk-dsh-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    monkeypatch.setenv("HARDENING_PLAIN", "kept")
    for entry in await hook_environments(tmp_path, monkeypatch):
        env = entry["env"]
        assert not {"DSH_API_KEY", "OPENAI_API_KEY"} & set(env), entry["event"]
        assert env["HARDENING_PLAIN"] == "kept"
        assert env["CLAUDE_PROJECT_DIR"]  # the bridge's own variables still arrive
        assert not any("sk-" in value for value in env.values())


async def test_the_pass_setting_passes_named_keys_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DSH_API_KEY", "sk-dsh-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    monkeypatch.setenv(PASS_ENV_SETTING, "OPENAI_API_KEY")
    for entry in await hook_environments(tmp_path, monkeypatch):
        assert entry["env"]["OPENAI_API_KEY"] == "sk-openai-secret"
        assert "DSH_API_KEY" not in entry["env"]


def test_spawn_environment_withholds_only_the_secrets() -> None:
    assert SECRET_ENV_VARS == (
        "DSH_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
    )
    inherited = {"PATH": "/bin", "DSH_API_KEY": "k", "OPENAI_API_KEY": "o"}
    assert spawn_environment({"X": "1"}, inherited) == {"PATH": "/bin", "X": "1"}
    # A declaration's own entry is the declaration's choice.
    assert spawn_environment({"DSH_API_KEY": "mine"}, inherited) == {
        "PATH": "/bin",
        "DSH_API_KEY": "mine",
    }
    passed = {**inherited, PASS_ENV_SETTING: "DSH_API_KEY, OPENAI_API_KEY"}
    assert spawn_environment(None, passed) == passed


@pytest.mark.parametrize("where", ["environment", "config file"])
def test_the_key_variable_the_config_names_is_withheld_too(tmp_path: Path, where: str) -> None:
    """``api_key_env`` names the variable the model key is read from: through the real
    ``dsh run``, no hook inherits it (``DSH_API_KEY_ENV``, or a config file's setting)."""
    from tests.cli.test_cli import dsh

    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    handler = {"type": "command", "command": f"{sys.executable} {SCRIPT} UserPromptSubmit"}
    hooks = {"hooks": {"UserPromptSubmit": [{"hooks": [handler]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(hooks))
    script = {"anthropic": {"responses": [[{"type": "text", "text": "ok"}]]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    log = tmp_path / "env.jsonl"
    env = {
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "DSH_CONFIG_DIR": str(tmp_path / "config"),
        "ENV_HOOK_LOG": str(log),
        "MY_PROVIDER_KEY": "sk-provider-secret",
    }
    if where == "environment":
        env["DSH_API_KEY_ENV"] = "MY_PROVIDER_KEY"
    else:
        (tmp_path / "config").mkdir()
        (tmp_path / "config" / "config.toml").write_text('api_key_env = "MY_PROVIDER_KEY"\n')
    model = f"scripted:{tmp_path / 'script.json'}"
    done = dsh(
        "run", "hi", "--model", model, "--project", str(project),
        "--session-dir", str(tmp_path / "s"), cwd=tmp_path, env_extra=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [entry] = [json.loads(line) for line in log.read_text().splitlines()]
    assert "MY_PROVIDER_KEY" not in entry["env"]
    assert not any("sk-provider" in value for value in entry["env"].values())


RECORDED_OTEL = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "hook_otel_env_claude.json").read_text()
)


async def test_no_hook_sees_the_otel_variables_as_claude_code_strips_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The variables ``benchmarks/record_hook_otel_env.py`` set for the real 2.1.332, set
    here: the hooks see what its hook saw of them, with export off and on."""
    assert RECORDED_OTEL["cli_version"].startswith("2.1.332")
    recorded = RECORDED_OTEL["export-off"]
    assert RECORDED_OTEL["export-on"]["hook_saw"] == recorded["hook_saw"]
    values = {"TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
    for name in recorded["set"]:
        monkeypatch.setenv(name, values.get(name, "1"))
    for entry in await hook_environments(tmp_path, monkeypatch):
        seen = sorted(name for name in entry["env"] if name in recorded["set"])
        assert seen == recorded["hook_saw"], entry["event"]
