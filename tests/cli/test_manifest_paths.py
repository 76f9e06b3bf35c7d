"""A plugin manifest's unusable ``hooks`` path is a diagnostic, never an internal error.

Through the real ``dsh run --plugin-dir`` and ``dsh hooks check``, for Claude Code's
``.claude-plugin/plugin.json`` and an enabled Codex plugin's ``.codex-plugin/plugin.json``:
a NUL byte, a name over 255 bytes and a path out of the plugin are named, and the run goes on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.support import run_dsh

UNUSABLE = [
    ("./hooks/a\x00b.json", "has a NUL byte"),
    ("./" + "a" * 300 + ".json", "has a name over 255 bytes"),
    ("../outside.json", "leaves the plugin"),
]


def _env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "XDG_DATA_HOME": str(tmp_path / "xdg")}


@pytest.mark.parametrize(("path", "said"), UNUSABLE)
def test_a_claude_plugin_manifest_path_is_diagnosed(tmp_path: Path, path: str, said: str) -> None:
    project, plugin = tmp_path / "project", tmp_path / "plugin"
    project.mkdir()
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "p", "hooks": path}))
    env = _env(tmp_path)
    check = run_dsh("hooks", "check", "--project", str(project), "--plugin-dir", str(plugin),
                    cwd=tmp_path, env=env)  # fmt: skip
    assert check.returncode == 1, check.stdout + check.stderr
    assert f"the plugin manifest's hooks path {path!r} {said}: it is ignored" in check.stdout
    assert "internal error" not in check.stderr
    script = tmp_path / "script.json"
    reply = {"anthropic": {"rules": [{"responses": [[{"type": "text", "text": "RAN"}]]}]}}
    script.write_text(json.dumps(reply))
    done = run_dsh("run", "hi", "--model", f"scripted:{script}", "--project", str(project),
                   "--plugin-dir", str(plugin), "--session-dir", str(tmp_path / "s"),
                   cwd=tmp_path, env=env)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "RAN" in done.stdout
    assert said in done.stdout + done.stderr


def test_dotdot_inside_a_claude_plugin_is_diagnosed(tmp_path: Path) -> None:
    project, plugin = tmp_path / "project", tmp_path / "plugin"
    project.mkdir()
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / "hooks").mkdir()
    (plugin / "hooks" / "more.json").write_text('{"hooks": {}}')
    manifest = {"name": "p", "hooks": "./hooks/../hooks/more.json"}
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    check = run_dsh("hooks", "check", "--project", str(project), "--plugin-dir", str(plugin),
                    cwd=tmp_path, env=_env(tmp_path))  # fmt: skip
    assert "'./hooks/../hooks/more.json' has `..`" in check.stdout
    assert "internal error" not in check.stderr


@pytest.mark.parametrize(("path", "said"), UNUSABLE)
def test_a_codex_plugin_manifest_path_is_diagnosed(tmp_path: Path, path: str, said: str) -> None:
    project, codex = tmp_path / "project", tmp_path / "codex"
    project.mkdir()
    root = codex / "plugins" / "cache" / "m" / "p" / "1.0.0"
    (root / ".codex-plugin").mkdir(parents=True)
    (root / ".codex-plugin" / "plugin.json").write_text(json.dumps({"name": "p", "hooks": path}))
    (codex / "config.toml").write_text('[plugins."p@m"]\nenabled = true\n')
    env = {**_env(tmp_path), "CODEX_HOME": str(codex)}
    check = run_dsh("hooks", "check", "--project", str(project), cwd=tmp_path, env=env)
    assert check.returncode == 0, check.stdout + check.stderr
    assert f"hooks path {path!r} {said}: ignored" in check.stdout
    assert "internal error" not in check.stderr
