"""Instructions files that are links out of the project, FIFOs, devices or huge: contained.

A project's ``CLAUDE.md`` (or a rule) that is a symlink out of its directory is the
``@import`` that leaves it: not loaded, named in a warning notice (through the real
``dsh run`` too). A FIFO or a device is never read (no hang, no endless read); a huge
file is read to 1 MiB and the cut is said. A link inside the project loads as before.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from dsh.instructions import find_instructions
from dsh.instructions._claude_md import MAX_INSTRUCTIONS_BYTES
from tests.hardening.test_trust import run


def loaded(project: Path, config: Path, refused: list[str] | None = None) -> dict[str, str]:
    found = find_instructions(
        project, config_dir=config, managed_dir=project.parent / "managed", refused=refused
    )
    return {str(f.file.path): f.text for f in found}


def test_links_out_of_the_project_are_refused_and_links_inside_load(tmp_path: Path) -> None:
    project, config, outside = tmp_path / "p", tmp_path / "cfg", tmp_path / "secret"
    (project / ".claude" / "rules").mkdir(parents=True)
    config.mkdir()
    outside.mkdir()
    (outside / "id_rsa.md").write_text("PRIVATE KEY\n")
    (outside / "rule.md").write_text("PRIVATE RULE\n")
    (project / "CLAUDE.md").symlink_to(outside / "id_rsa.md")
    (project / ".claude" / "rules" / "out").symlink_to(outside, target_is_directory=True)
    (project / "docs.md").write_text("Use tabs.\n")
    (project / "CLAUDE.local.md").symlink_to(project / "docs.md")
    refused: list[str] = []
    texts = loaded(project, config, refused)
    assert "PRIVATE" not in "".join(texts.values())
    assert texts == {str(project / "CLAUDE.local.md"): "Use tabs.\n"}
    assert len(refused) == 2
    assert all(str(outside) in line for line in refused)


def test_fifos_and_devices_are_never_read_and_huge_files_are_cut(tmp_path: Path) -> None:
    project, config = tmp_path / "p", tmp_path / "cfg"
    (project / ".claude").mkdir(parents=True)
    config.mkdir()
    os.mkfifo(project / "CLAUDE.md")
    (config / "CLAUDE.md").symlink_to("/dev/zero")  # the user's own file: no link rule
    (project / ".claude" / "CLAUDE.md").write_text("x" * (3 << 20))
    result: dict[str, dict[str, str]] = {}
    worker = threading.Thread(target=lambda: result.update(r=loaded(project, config)))
    worker.start()
    worker.join(60)
    if worker.is_alive():  # unblock the reader before failing
        with open(project / "CLAUDE.md", "w"):
            pass
    assert not worker.is_alive(), "a FIFO was opened for reading and blocked"
    [(path, text)] = result["r"].items()
    assert path == str(project / ".claude" / "CLAUDE.md")
    assert text.startswith("x" * MAX_INSTRUCTIONS_BYTES)
    assert text.endswith(f"[truncated: {3 << 20:,} bytes, the first 1,048,576 read]")


def test_dsh_run_names_the_refused_link_and_keeps_it_from_the_model(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "secret.md").write_text("PRIVATE KEY\n")
    (project / "CLAUDE.md").symlink_to(tmp_path / "secret.md")
    script = {"anthropic": {"responses": [[{"type": "text", "text": "ok"}]]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    done = run(tmp_path, project)
    assert "instructions files not loaded (a symlink out of the project)" in done.stdout
    [log] = (tmp_path / "s").glob("*.jsonl")
    assert "PRIVATE KEY" not in log.read_text()
