"""Fewer words: a well-formed suite that dsh runs prints no warning lines on ``dsh run``;
what dsh only notes (an event or a hook type it lacks) is for ``dsh hooks check``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.test_run_host import run


def test_a_well_formed_suite_runs_without_warning_lines(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    record = tmp_path / "fired.txt"
    hook = f"{sys.executable} -c \"open('{record}', 'a').write('ran\\n')\""
    hooks = {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}],
        # Well formed for Claude Code, noted by dsh: an event and a hook type it lacks.
        "WorktreeCreate": [{"hooks": [{"type": "command", "command": "true"}]}],
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the task done?"}]}],
    }
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    done = run(project, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "claude hooks:" not in done.stdout
    assert "warning" not in done.stdout
    assert record.read_text() == "ran\n"
    check = subprocess.run(
        [sys.executable, "-m", "dsh", "hooks", "check", "--project", str(project)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )
    assert "WorktreeCreate" in check.stdout
    assert "prompt" in check.stdout
