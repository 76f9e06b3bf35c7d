"""Many hooks' context on one event: a total, and a note naming what was cut."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bounds.support import of_type, run, script, text

_EACH = 9_900


def _project(tmp_path: Path, hooks: int) -> Path:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    commands = [
        {"type": "command", "command": f"head -c {_EACH} /dev/zero | tr '\\0' a # hook {n}"}
        for n in range(hooks)
    ]
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": commands}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    return project


def test_user_prompt_submit_context_has_a_total_with_a_note(tmp_path: Path) -> None:
    project = _project(tmp_path, 30)
    done = run(tmp_path, project, script(tmp_path, text("ok")), "--trust-project")
    assert done.returncode == 0, done.stdout + done.stderr
    contexts = [
        e["text"]
        for e in of_type(tmp_path, "context/message")
        if e["source"] == "claude-hooks:UserPromptSubmit"
    ]
    whole = "\n".join(contexts)
    assert len(whole) < 52_000
    note = whole.splitlines()[-1]
    assert note.startswith("[hook context truncated: UserPromptSubmit hooks gave more than")
    assert "left out: 25 hooks' context" in note
    assert "# hook 5" in note
    assert "and 20 more" in note
    assert whole.count("UserPromptSubmit hook success: aaa") == 5
