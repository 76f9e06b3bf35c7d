"""Codex trust: the key, the hash recipe, records in Codex's format, and what runs without them."""

from __future__ import annotations

import json
import stat
import tomllib
from pathlib import Path

import pytest

from dsh.hooks.codex import CodexProfile, TrustError, hook_hash, load_codex_catalog, record_trust
from dsh.hooks.codex.config._trust import hook_key

HOOK = {
    "type": "command",
    "command": "python3 /abs/hook.py",
    "timeout": 30,
    "statusMessage": "checking bash",
}


def write_json(folder: Path, hooks: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "hooks.json"
    path.write_text(json.dumps({"hooks": hooks}))
    return path


def test_the_hash_of_a_known_config() -> None:
    # The reference's own example handler (§1.3). Its canonical text, by hand: keys sorted at
    # every level, compact separators, the effective timeout, `async` always present.
    digest = hook_hash(
        "PreToolUse",
        "^Bash$",
        command="python3 /abs/hook.py",
        timeout=30,
        run_async=False,
        status_message="checking bash",
    )
    assert digest == "sha256:98a4d5b997c739a6a31a45e4cc6aa6c044774b7e58ba9fff75fe186fbd2cd448"
    # Stop ignores matchers, so the matcher is left out; non-ASCII goes in as UTF-8.
    stop = hook_hash("Stop", "anything", command="echo é", timeout=600, run_async=False)
    assert stop == "sha256:32c94b946eb34eea9d6c8c396ba68c7c2282e392adc5fd04853b8f89ecd30702"

    # additionalContextLimit is hashed only when it is not the default 2500, and only on an
    # event whose output may carry additionalContext (Codex ignores it on Stop, and says so).
    def limited(event: str, limit: int | None) -> str:
        return hook_hash(
            event, None, command="c", timeout=600, run_async=False, additional_context_limit=limit
        )

    assert limited("UserPromptSubmit", 2500) == limited("UserPromptSubmit", None)
    assert limited("UserPromptSubmit", 10) != limited("UserPromptSubmit", None)
    assert limited("Stop", 10) == limited("Stop", None)


def test_the_key_and_the_default_timeout_go_into_the_catalog(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    source = write_json(
        home,
        {
            "PreToolUse": [{"matcher": "^Bash$", "hooks": [HOOK]}],
            "Stop": [{"hooks": [{"type": "command", "command": "echo é"}]}],
        },
    )
    catalog = load_codex_catalog(tmp_path / "p", home=home, system_dir=None)
    pre, stop = catalog.hooks
    assert pre.key == f"{source}:pre_tool_use:0:0" == hook_key(source, "PreToolUse", 0, 0)
    assert (
        pre.trusted_hash
        == "sha256:98a4d5b997c739a6a31a45e4cc6aa6c044774b7e58ba9fff75fe186fbd2cd448"
    )
    assert stop.timeout == 600
    assert (
        stop.trusted_hash
        == "sha256:32c94b946eb34eea9d6c8c396ba68c7c2282e392adc5fd04853b8f89ecd30702"
    )
    assert [h.trust for h in catalog.hooks] == ["untrusted", "untrusted"]
    assert not catalog.running()


def test_json_and_toml_declarations_hash_the_same(tmp_path: Path) -> None:
    json_home = tmp_path / "a"
    write_json(json_home, {"PreToolUse": [{"matcher": "^Bash$", "hooks": [HOOK]}]})
    toml_home = tmp_path / "b"
    toml_home.mkdir()
    (toml_home / "config.toml").write_text(
        '[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n'
        'command = "python3 /abs/hook.py"\ntimeout = 30\nstatusMessage = "checking bash"\n'
    )
    (a,) = load_codex_catalog(tmp_path, home=json_home, system_dir=None).hooks
    (b,) = load_codex_catalog(tmp_path, home=toml_home, system_dir=None).hooks
    assert a.trusted_hash == b.trusted_hash
    assert b.key.endswith("config.toml:pre_tool_use:0:0")


def test_dsh_hooks_trust_records_codex_trust_in_codex_format(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    source = write_json(home, {"Stop": [{"hooks": [{"type": "command", "command": "echo é"}]}]})
    (home / "config.toml").write_text(
        'model = "gpt-x"\n\n[hooks.state."other:key"]\nenabled = false\n'
    )
    profile = CodexProfile(home=home, system_dir=None)
    assert len(profile.untrusted(tmp_path)) == 1
    assert "not trusted yet" in profile.untrusted(tmp_path)[0]
    lines = profile.trust(tmp_path)
    assert list(lines) == [f"trusted {source}:stop:0:0 in {home / 'config.toml'}"]
    config = tomllib.loads((home / "config.toml").read_text())
    assert config["model"] == "gpt-x"
    assert config["hooks"]["state"]["other:key"] == {"enabled": False}
    state = config["hooks"]["state"][f"{source}:stop:0:0"]
    assert state == {
        "trusted_hash": "sha256:32c94b946eb34eea9d6c8c396ba68c7c2282e392adc5fd04853b8f89ecd30702"
    }
    assert profile.untrusted(tmp_path) == ()
    assert [h.trust for h in load_codex_catalog(tmp_path, home=home, system_dir=None).hooks] == [
        "trusted"
    ]
    assert profile.trust(tmp_path) == ()  # nothing left to trust


def test_a_changed_hook_is_untrusted_again_and_retrusting_rewrites_its_record(
    tmp_path: Path,
) -> None:
    home = tmp_path / "codex"
    write_json(home, {"Stop": [{"hooks": [{"type": "command", "command": "echo one"}]}]})
    profile = CodexProfile(home=home, system_dir=None)
    profile.trust(tmp_path)
    write_json(home, {"Stop": [{"hooks": [{"type": "command", "command": "echo two"}]}]})
    (hook,) = load_codex_catalog(tmp_path, home=home, system_dir=None).hooks
    assert hook.trust == "changed"
    assert "changed since it was trusted" in profile.untrusted(tmp_path)[0]
    profile.trust(tmp_path)
    text = (home / "config.toml").read_text()
    assert text.count("[hooks.state.") == 1
    assert text.count("trusted_hash") == 1
    assert load_codex_catalog(tmp_path, home=home, system_dir=None).hooks[0].trust == "trusted"


def test_bypass_runs_untrusted_hooks_but_not_disabled_ones(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    source = write_json(
        home,
        {
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "a"},
                        {"type": "command", "command": "b"},
                    ]
                }
            ]
        },
    )
    (home / "config.toml").write_text(f'[hooks.state."{source}:stop:0:1"]\nenabled = false\n')
    catalog = load_codex_catalog(tmp_path, home=home, system_dir=None, bypass_trust=True)
    assert [h.trust for h in catalog.hooks] == ["bypassed", "disabled"]
    assert [h.command for h in catalog.running()] == ["a"]


def test_managed_hooks_are_always_trusted(tmp_path: Path) -> None:
    system = tmp_path / "etc"
    system.mkdir()
    (system / "requirements.toml").write_text(
        '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "managed"\n'
    )
    catalog = load_codex_catalog(tmp_path, home=tmp_path / "none", system_dir=system)
    assert [(h.layer, h.trust) for h in catalog.hooks] == [("managed", "managed")]


def test_record_trust_refuses_a_file_it_cannot_keep_valid(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("not = [valid")
    with pytest.raises(TrustError, match="cannot be read as TOML"):
        record_trust(config, [("k", "sha256:x")])
    config.write_text('hooks = { state = { "k" = { enabled = true } } }\n')
    with pytest.raises(TrustError, match="edit it by hand"):
        record_trust(config, [("k", "sha256:x")])
    assert config.read_text() == 'hooks = { state = { "k" = { enabled = true } } }\n'


def test_a_key_with_quotes_and_backslashes_round_trips(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    key = 'C:\\odd "dir"\\hooks.json:stop:0:0'
    record_trust(config, [(key, "sha256:abc")])
    assert stat.S_IMODE(config.stat().st_mode) == 0o600  # a new file: private
    record_trust(config, [(key, "sha256:def")])
    assert tomllib.loads(config.read_text())["hooks"]["state"][key] == {
        "trusted_hash": "sha256:def"
    }


def test_trust_also_trusts_a_project_whose_codex_folder_codex_would_not_load(
    tmp_path: Path,
) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    project = (tmp_path / "project").absolute()
    source = write_json(
        project / ".codex", {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}
    )
    profile = CodexProfile(home=home, system_dir=None, trust_dir=tmp_path / "trust")
    (line,) = profile.untrusted(project)  # not loaded: the project is not trusted
    assert line.startswith(f"Stop[0][0] in {source} ('x'): the project is not trusted")
    lines = profile.trust(project)
    assert lines[0] == f"trusted the project {project} in {home / 'config.toml'}"
    assert lines[1] == f"trusted {source}:stop:0:0 in {home / 'config.toml'}"
    config = tomllib.loads((home / "config.toml").read_text())
    assert config["projects"][str(project)] == {"trust_level": "trusted"}
    (hook,) = load_codex_catalog(project, home=home, system_dir=None).hooks
    assert hook.trust == "trusted"
    assert profile.untrusted(project) == ()


def test_recording_keeps_the_files_mode(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("")
    config.chmod(0o640)
    record_trust(config, [("k", "sha256:x")])
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
