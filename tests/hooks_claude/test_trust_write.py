"""A Claude Code trust write onto a record it cannot read whole refuses, and keeps the record.

The record is shared: the Codex bridge keeps its section in it. One the Claude Code
side cannot read within the bound it sizes from its own configuration (here: a Codex
section of 6 MB) may hold trust it would otherwise rewrite away, so ``dsh hooks trust``
says which file and why, exits 2, and leaves every byte of it as it was.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.cli.support import run_dsh


def test_dsh_hooks_trust_refuses_to_replace_a_record_it_cannot_read_whole(
    tmp_path: Path,
) -> None:
    project = (tmp_path / "project").resolve()
    (project / ".claude").mkdir(parents=True)
    hooks = {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    name = hashlib.sha256(str(project).encode()).hexdigest()[:40] + ".json"
    record = tmp_path / "data" / "dsh" / "trust" / "claude" / name
    record.parent.mkdir(parents=True)
    codex = [
        {"fingerprint": f"{i:064x}", "where": f"codex hook Stop[{i}][0]", "command": "x" * 1200}
        for i in range(5000)
    ]
    data = json.dumps(
        {"format": "dsh-claude-trust/1", "project": str(project), "codex": codex}, indent=1
    ).encode()
    record.write_bytes(data)
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path / "home")}
    done = run_dsh("hooks", "trust", "--project", str(project), cwd=tmp_path, env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"dsh: trust record {record} unreadable")
    assert "over the" in line
    assert "left as it is" in line
    assert record.read_bytes() == data
