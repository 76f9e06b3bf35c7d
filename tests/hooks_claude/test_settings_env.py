"""Settings ``env`` through ``dsh run``: hooks and Bash see it, as 2.1.332's do (the
claude-next ``settings-env`` replay is in test_http_hooks), under the environment policy:
dsh's model keys never, an untrusted project's own ``env`` not until it is trusted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli.support import run_dsh

HOOK = (
    f"{sys.executable} -c \"import os; open(os.environ['OUT'] + '/hook.txt', 'w')"
    ".write(os.environ.get('FROM_SETTINGS', '-') + ' ' + os.environ.get('ANTHROPIC_API_KEY', '-')"
    " + ' ' + os.environ.get('FROM_PROJECT', '-'))\""
)
BASH = 'echo "$FROM_SETTINGS ${ANTHROPIC_API_KEY:--} ${FROM_PROJECT:--}" > "$OUT/bash.txt"'


def test_settings_env_reaches_hooks_and_bash_but_not_model_keys_or_untrusted_env(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"env": {"FROM_PROJECT": "p"}}))
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "env": {"FROM_SETTINGS": "from-settings", "ANTHROPIC_API_KEY": "sk-leak", "N": 1},
                "hooks": {"Stop": [{"hooks": [{"type": "command", "command": HOOK}]}]},
            }
        )
    )
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "rules": [
                    {
                        "has_tool": "Bash",
                        "responses": [
                            [{"type": "tool_use", "name": "Bash", "input": {"command": BASH}}],
                            [{"type": "text", "text": "Done."}],
                        ],
                    }
                ]
            }
        )
    )
    out = tmp_path / "out"
    out.mkdir()
    done = run_dsh(
        "run",
        "--project",
        str(project),
        "--settings",
        str(settings),
        "--model",
        f"scripted:{script}",
        "--permission-mode",
        "bypassPermissions",
        "go",
        cwd=project,
        env={"OUT": str(out), "HOME": str(tmp_path / "home")},
    )
    assert done.returncode == 0, done.stderr
    assert (out / "bash.txt").read_text() == "from-settings - -\n"
    assert (out / "hook.txt").read_text() == "from-settings - -"
