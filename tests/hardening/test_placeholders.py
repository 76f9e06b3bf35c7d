"""Placeholders are values, never command text: a hostile directory name cannot inject.

Through the real ``dsh run`` with real hook processes, in a project (and a
plugin) whose directory name holds a command substitution and quotes: the
shell form expands ``${CLAUDE_PROJECT_DIR}``/``${CLAUDE_PLUGIN_ROOT}`` from the
hook's environment, the exec form gets each placeholder substituted in its own
argv element; the hook sees the true path and nothing else runs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.hardening.test_trust import run

ECHO = "import sys; open(sys.argv[1], 'a').write(repr(sys.argv[2:]) + '\\n')"
HOSTILE_NAMES = ['p"$(touch pwned)"q', "p'$(touch pwned)'q", "p`touch pwned`q", "p;touch pwned"]


def shell_hook(out: Path, placeholder: str) -> dict[str, str]:
    command = f'{sys.executable} -c "{ECHO}" {out} "${{{placeholder}}}/x" "${{{placeholder}}}"'
    return {"type": "command", "command": command}


def exec_hook(out: Path, placeholder: str) -> dict[str, object]:
    args = ["-c", ECHO, str(out), f"${{{placeholder}}}/x"]
    return {"type": "command", "command": sys.executable, "args": args}


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_hostile_project_or_plugin_directory_is_passed_as_a_value(
    tmp_path: Path, name: str
) -> None:
    project = tmp_path / name / "project"
    plugin = tmp_path / name / "plugin"
    (project / ".claude").mkdir(parents=True)
    (plugin / "hooks").mkdir(parents=True)
    (plugin / ".claude-plugin").mkdir()
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "quoted"}))
    (tmp_path / "home").mkdir()
    out = tmp_path / "seen.txt"
    group = [shell_hook(out, "CLAUDE_PROJECT_DIR"), exec_hook(out, "CLAUDE_PROJECT_DIR")]
    hooks = {"hooks": {"UserPromptSubmit": [{"hooks": group}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(hooks))
    group = [shell_hook(out, "CLAUDE_PLUGIN_ROOT"), exec_hook(out, "CLAUDE_PLUGIN_ROOT")]
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": group}]}})
    )
    script = {"anthropic": {"rules": [{"responses": [[{"type": "text", "text": "ok"}]]}]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    run(tmp_path, project, "--plugin-dir", str(plugin), "--trust-project")
    assert not list(tmp_path.rglob("pwned"))
    seen = sorted(out.read_text().splitlines())
    p, r = str(project), str(plugin)
    assert seen == sorted(
        [repr([f"{p}/x", p]), repr([f"{p}/x"]), repr([f"{r}/x", r]), repr([f"{r}/x"])]
    )
