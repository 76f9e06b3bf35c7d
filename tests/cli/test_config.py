"""dsh's configuration: user file < project file < ``DSH_*`` < flags, and where each came from.

``load_config`` directly (a hypothesis property over which layers set which key), then
``dsh config show`` and ``dsh run`` through the real command: config values that reach the
run (model, output format, plugins), bad files and variables as one ``dsh:`` line, exit 2.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.host import ConfigError, load_config
from dsh.host._config import CONFIG_KEYS
from tests.cli.support import run_dsh

LAYERS = ("user", "project", "env", "flag")
VALUES: dict[str, list[Any]] = {
    "model": ["m-user", "m-project", "m-env", "m-flag"],
    "base_url": ["http://u.test", "http://p.test", "http://e.test", "http://f.test"],
    "output_format": ["text", "json", "stream-json", "json"],
    "plugins": [("a:b",), ("c:d",), ("e:f",), ("g:h",)],
    "hook_helpers": ["session", "hook", "session", "hook"],
    "hook_concurrency": [2, 3, 4, 5],
    "process_containment": ["marks", "namespace", "marks", "namespace"],
}


def _toml(values: dict[str, Any]) -> str:
    return "".join(
        f"{key} = {json.dumps(list(v) if isinstance(v, tuple) else v)}\n"
        for key, v in values.items()
    )


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(VALUES)), st.sets(st.sampled_from(LAYERS))))
def test_the_highest_layer_that_sets_a_key_wins_and_is_named(
    layout: dict[str, set[str]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        (project / ".dsh").mkdir(parents=True)
        per_layer: dict[str, dict[str, Any]] = {layer: {} for layer in LAYERS}
        for key, layers in layout.items():
            for layer in layers:
                per_layer[layer][key] = VALUES[key][LAYERS.index(layer)]
        user = root / "user.toml"
        user.write_text(_toml(per_layer["user"]))
        (project / ".dsh" / "config.toml").write_text(_toml(per_layer["project"]))
        env = {
            f"DSH_{k.upper()}": ",".join(v) if isinstance(v, tuple) else str(v)
            for k, v in per_layer["env"].items()
        }
        clean = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
        with mock.patch.dict(os.environ, {**clean, **env}, clear=True):
            config = load_config(project, flags=per_layer["flag"], user_file=user)
        for key in CONFIG_KEYS:
            layers = layout.get(key, set())
            if not layers:
                assert config.sources[key] == "default"
                continue
            top = max(layers, key=LAYERS.index)
            assert config.value(key) == VALUES[key][LAYERS.index(top)]
            assert config.sources[key].startswith(
                {
                    "user": "user file",
                    "project": "project file",
                    "env": "env DSH_",
                    "flag": "flag --",
                }[top]
            )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("modle = 'x'\n", "modle: unknown key"),
        ("model = [\n", "not valid TOML"),
        ("model = 3\n", "model: Input should be a valid string"),
        ("output_format = 'yaml'\n", "output_format: Input should be"),
        ("plugins = ['nocolon']\n", "plugin 'nocolon' is not module:function"),
        ("permission_mode = 'sometimes'\n", "permission_mode: Input should be"),
        ("hook_concurrency = 0\n", "hook_concurrency: at least 1 hook process"),
        ("hook_concurrency = 'many'\n", "hook_concurrency: Input should be a valid integer"),
        ("hook_concurrency = true\n", "hook_concurrency: Input should be a valid integer"),
    ],
)
def test_a_bad_project_file_names_the_file_and_the_key(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / ".dsh").mkdir()
    (tmp_path / ".dsh" / "config.toml").write_text(text)
    with pytest.raises(ConfigError, match=r"config\.toml") as caught:
        load_config(tmp_path, user_file=tmp_path / "none.toml")
    assert message in str(caught.value)


def test_a_bad_variable_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSH_OUTPUT_FORMAT", "xml")
    with pytest.raises(ConfigError, match="environment: DSH_OUTPUT_FORMAT"):
        load_config(tmp_path, user_file=tmp_path / "none.toml")


def test_a_file_that_is_not_utf8_or_too_big_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".dsh").mkdir()
    bad = tmp_path / ".dsh" / "config.toml"
    bad.write_bytes(b"model = '\xff'\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(tmp_path, user_file=tmp_path / "none.toml")
    bad.write_text("# " + "x" * 300_000 + "\n")
    with pytest.raises(ConfigError, match="over"):
        load_config(tmp_path, user_file=tmp_path / "none.toml")
    bad.write_text("model = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ConfigError, match="nested too deep"):
        load_config(tmp_path, user_file=tmp_path / "none.toml")


# --- through the command ---------------------------------------------------------------


def dsh(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_dsh(*args, cwd=cwd, env=env)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "project"
    (project / ".dsh").mkdir(parents=True)
    (tmp_path / "config").mkdir()
    (tmp_path / "home").mkdir()
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps({"anthropic": {"rules": [{"responses": [[{"type": "text", "text": "hi"}]]}]}})
    )
    env = {
        "HOME": str(tmp_path / "home"),
        "DSH_DATA_DIR": str(tmp_path / "sessions"),
        "DSH_CONFIG_DIR": str(tmp_path / "config"),
    }
    (tmp_path / "config" / "config.toml").write_text(
        f"model = 'scripted:{script}'\noutput_format = 'text'\n"
    )
    return project, env


def test_config_show_prints_each_value_and_its_source(
    setup: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    project, env = setup
    (project / ".dsh" / "config.toml").write_text("output-format = 'json'\n")
    done = dsh(
        "config", "show", "--json", cwd=project, env={**env, "DSH_BASE_URL": "http://e.test/v1"}
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["model"]["source"] == f"user file {tmp_path / 'config' / 'config.toml'}"
    assert shown["output_format"] == {
        "value": "json",
        "source": f"project file {project / '.dsh' / 'config.toml'}",
    }
    assert shown["base_url"] == {"value": "http://e.test/v1", "source": "env DSH_BASE_URL"}
    assert shown["api_key_env"] == {"value": None, "source": "default"}
    table = dsh("config", "show", cwd=project, env=env)
    assert "output_format" in table.stdout
    assert "project file" in table.stdout


def test_run_takes_the_model_and_output_format_from_the_config_and_flags_win(
    setup: tuple[Path, dict[str, str]],
) -> None:
    project, env = setup
    done = dsh("run", "q", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hi\n"  # output_format = 'text' from the user file
    flagged = dsh("run", "q", "--output-format", "json", cwd=project, env=env)
    assert json.loads(flagged.stdout)["result"] == "hi"


def test_a_bad_config_stops_the_run_with_exit_two(setup: tuple[Path, dict[str, str]]) -> None:
    project, env = setup
    (project / ".dsh" / "config.toml").write_text("model = 3\n")
    done = dsh("run", "q", cwd=project, env=env)
    assert done.returncode == 2
    assert done.stderr.startswith("dsh: project config ")
    assert "Traceback" not in done.stderr
    (project / ".dsh" / "config.toml").write_text("api_key_env = 'NO_SUCH_KEY_VAR'\n")
    missing = dsh("run", "q", "--model", "gpt-x", cwd=project, env=env)
    assert missing.returncode == 2
    assert "NO_SUCH_KEY_VAR" in missing.stderr


PLUGIN = """
from dsh.context import Context
from dsh.tools import PRE_EXECUTE


def deny_all(ctx: Context) -> None:
    @ctx.on(PRE_EXECUTE)
    async def check(call, next):
        from dsh.tools import PreToolDecision

        return PreToolDecision.deny("denied by the test plugin")


def broken(ctx: Context) -> None:
    raise RuntimeError("cannot mount")
"""


def test_plugins_mount_from_the_flag_and_the_config(
    setup: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    project, env = setup
    (project / "myplugin.py").write_text(PLUGIN)
    script = tmp_path / "tool.json"
    call = {"type": "tool_use", "name": "Bash", "input": {"command": "touch ran"}}
    replies = [[call], [{"type": "text", "text": "done"}]]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": replies}]}}))
    args = ("run", "go", "--model", f"scripted:{script}", "--output-format", "stream-json")
    done = dsh(*args, "--plugin", "myplugin:deny_all", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert "denied by the test plugin" in done.stdout
    assert not (project / "ran").exists()
    (project / ".dsh" / "config.toml").write_text("plugins = ['myplugin:deny_all']\n")
    from_config = dsh(*args, cwd=project, env=env)
    assert "denied by the test plugin" in from_config.stdout
    broken = dsh(*args, "--plugin", "myplugin:broken", cwd=project, env=env)
    assert broken.returncode == 2
    assert (
        "myplugin:broken: the plugin failed to mount: RuntimeError: cannot mount" in broken.stderr
    )
    for bad, said in (("nosuch:x", "cannot import nosuch"), ("myplugin:absent", "has no 'absent'")):
        failed = dsh(*args, "--plugin", bad, cwd=project, env=env)
        assert failed.returncode == 2
        assert said in failed.stderr


def test_the_model_gets_dshs_prompt_with_the_environment_unless_replaced(
    setup: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    project, env = setup
    script = tmp_path / "env.json"
    rules = [
        {"contains": "MY OWN PROMPT", "responses": [[{"type": "text", "text": "custom"}]]},
        {
            "contains": "You are dsh, a coding agent",
            "responses": [[{"type": "text", "text": "dsh's"}]],
        },
    ]
    script.write_text(
        json.dumps({"anthropic": {"rules": rules, "default": {"type": "text", "text": "none"}}})
    )
    m = ("--model", f"scripted:{script}", "--output-format", "text")
    assert dsh("run", "q", *m, cwd=project, env=env).stdout == "dsh's\n"
    assert (
        dsh("run", "q", *m, "--system-prompt", "MY OWN PROMPT", cwd=project, env=env).stdout
        == "custom\n"
    )
    appended = dsh("run", "q", *m, "--append-system-prompt", "MY OWN PROMPT", cwd=project, env=env)
    assert appended.stdout == "custom\n"  # the first rule that matches: both texts are there
    env_rule = [
        {
            "contains": f"Working directory: {project.resolve()}\nIs directory a git repo: No",
            "responses": [[{"type": "text", "text": "env"}]],
        }
    ]
    script.write_text(
        json.dumps(
            {"anthropic": {"rules": env_rule, "default": {"type": "text", "text": "no env"}}}
        )
    )
    assert dsh("run", "q", *m, cwd=project, env=env).stdout == "env\n"
