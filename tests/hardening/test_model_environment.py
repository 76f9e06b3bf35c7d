"""No secret reaches the model through the Bash tool's environment, through the real ``dsh run``:
a scripted model runs ``env``; the tool result and the session log hold none of dsh's model
keys nor the default-excluded names, and do hold a harmless variable. The policy's options
(dsh's config, Codex's ``config.toml``) change the result as Codex's would; hooks keep their
environment except dsh's model keys."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import dsh

SCRIPT_HOOK = Path(__file__).parent / "scripts" / "env_hook.py"
SECRETS = {
    "DSH_API_KEY": "sk-dsh-0001",
    "OPENAI_API_KEY": "sk-openai-0002",
    "ANTHROPIC_API_KEY": "sk-ant-0003",
    "LLM_ACCESS": "sk-custom-0004",  # named by the config's api_key_env
    "MY_SECRET_TOKEN": "tok-0005",
}
MODEL_KEYS = ("DSH_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "LLM_ACCESS")
HARMLESS = "HARMLESS_SETTING=harmless-0006"


def _run(
    tmp_path: Path, policy: str = "", *, hooks: str | None = None, codex: str | None = None
) -> tuple[str, str, list[dict[str, Any]]]:
    """``dsh run`` whose model calls Bash ``env``: the tool result's text, the log's text,
    and what the hook saw (when ``hooks``)."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "config.toml").write_text(f'api_key_env = "LLM_ACCESS"\n{policy}')
    bash = {"type": "tool_use", "name": "Bash", "input": {"command": "env"}}
    if codex is not None:
        bash = {"type": "tool_use", "name": "exec_command", "input": {"cmd": "env"}}
    script = {"anthropic": {"responses": [[bash], [{"type": "text", "text": "done"}]]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    env = {
        **SECRETS,
        "HARMLESS_SETTING": "harmless-0006",
        "HOME": str(tmp_path / "home"),
        "DSH_CONFIG_DIR": str(config),
        "ENV_HOOK_LOG": str(tmp_path / "hook.jsonl"),
        "CODEX_HOME": str(tmp_path / "codex"),
    }
    if hooks is not None:
        handler = {"type": "command", "command": f"{sys.executable} {SCRIPT_HOOK} {hooks}"}
        settings = {"hooks": {hooks: [{"hooks": [handler]}]}}
        (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    choice: tuple[str, ...] = ()
    if codex is not None:
        (tmp_path / "codex").mkdir(exist_ok=True)
        (tmp_path / "codex" / "config.toml").write_text(codex)
        choice = ("--hooks", "codex")
    done = dsh(
        "run", "show the environment", "--model", f"scripted:{tmp_path / 'script.json'}",
        "--project", str(project), "--session-dir", str(tmp_path / "s"),
        "--permission-mode", "bypassPermissions", *choice,
        cwd=tmp_path, env_extra=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [log] = (tmp_path / "s").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    [result] = [e for e in events if e["type"] == "tool/result"]
    seen = []
    if hooks is not None:
        seen = [json.loads(line) for line in (tmp_path / "hook.jsonl").read_text().splitlines()]
    return json.dumps(result), log.read_text(), seen


def _names(result: str) -> set[str]:
    """The variable names ``env`` printed, from the tool result event's JSON."""
    content = json.loads(result)["content"]
    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    return {line.split("=", 1)[0] for line in text.splitlines() if "=" in line}


def _visible(text: str) -> list[str]:
    return [name for name, value in SECRETS.items() if value in text]


def test_the_bash_tool_sees_no_secret_and_the_harmless_variable(tmp_path: Path) -> None:
    result, log, _ = _run(tmp_path)
    assert _visible(result) == []  # secrets visible to the Bash tool: 0
    assert _visible(log) == []
    assert HARMLESS in result
    assert HARMLESS in log


@pytest.mark.parametrize(
    ("policy", "present", "absent"),
    [
        ("ignore_default_excludes = true", ["MY_SECRET_TOKEN", "HARMLESS_SETTING"], []),
        ('exclude = ["harmless_*"]', [], ["HARMLESS_SETTING"]),
        ('inherit = "core"', ["PATH", "HOME"], ["HARMLESS_SETTING"]),
        (
            'inherit = "none"\nset = { ONLY_THIS = "1" }',
            ["ONLY_THIS"],
            ["HOME", "HARMLESS_SETTING"],
        ),
        ('include_only = ["PATH", "HARM*"]', ["PATH", "HARMLESS_SETTING"], ["HOME"]),
        ('set = { MY_SECRET_TOKEN = "given" }', ["MY_SECRET_TOKEN"], []),
    ],
)
def test_each_option_changes_the_environment_as_codexs_would(
    tmp_path: Path, policy: str, present: list[str], absent: list[str]
) -> None:
    result, log, _ = _run(tmp_path, f"[shell_environment_policy]\n{policy}\n")
    names = _names(result)
    for name in present:
        assert name in names, (name, policy)
    for name in absent:
        assert name not in names, (name, policy)
    # Whatever the policy says, dsh's model keys never pass.
    assert not [n for n in _visible(result) if n in MODEL_KEYS]
    assert not [n for n in _visible(log) if n in MODEL_KEYS]


def test_codexs_own_policy_applies_under_the_codex_bridge(tmp_path: Path) -> None:
    codex = '[shell_environment_policy]\nignore_default_excludes = true\nexclude = ["HARM*"]\n'
    result, _, _ = _run(tmp_path, codex=codex)
    assert "MY_SECRET_TOKEN=tok-0005" in result
    assert "HARMLESS_SETTING" not in result
    assert not [n for n in _visible(result) if n in MODEL_KEYS]
    # dsh's own config is over Codex's.
    result, _, _ = _run(
        tmp_path / "again",
        "[shell_environment_policy]\nignore_default_excludes = false\n",
        codex=codex,
    )
    assert _visible(result) == []
    assert "HARMLESS_SETTING" not in result


def test_a_hook_keeps_its_environment_except_dshs_model_keys(tmp_path: Path) -> None:
    _, _, seen = _run(tmp_path, hooks="UserPromptSubmit")
    [entry] = seen
    assert entry["env"]["MY_SECRET_TOKEN"] == "tok-0005"
    assert entry["env"]["HARMLESS_SETTING"] == "harmless-0006"
    for name in MODEL_KEYS:
        assert name not in entry["env"], name
