"""A corrupt line in the middle of a session log: named by file and line, never a guess.

Through ``dsh log`` and ``dsh run --resume`` on a real log: a line that is not JSON in
the middle reads as the start of a corrupt tail (the events before it are shown; a
resume moves it and what follows to the ``.corrupt`` side file, losing nothing, and
names the line); a well-formed line of a known type that does not decode is one
clear error naming the file and the line, with no traceback.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.hardening.test_trust import dsh


@pytest.fixture
def log(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    script = {"anthropic": {"responses": [[{"type": "text", "text": "ok"}]]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    done = dsh(tmp_path, *run_args(tmp_path), "hi")
    assert done.returncode == 0, done.stderr
    [path] = (tmp_path / "s").glob("*.jsonl")
    return path


def run_args(tmp_path: Path) -> list[str]:
    model = f"scripted:{tmp_path / 'script.json'}"
    project, sessions = str(tmp_path / "project"), str(tmp_path / "s")
    return ["run", "--model", model, "--project", project, "--session-dir", sessions]


def corrupted(
    tmp_path: Path, log: Path, at: int, line: bytes
) -> tuple[list[bytes], subprocess.CompletedProcess[str]]:
    """``line`` put into ``log`` before its line ``at`` (0-based); what ``dsh log`` then says."""
    lines = log.read_bytes().splitlines(keepends=True)
    lines.insert(at, line)
    log.write_bytes(b"".join(lines))
    return lines, dsh(tmp_path, "log", log.stem, "--session-dir", str(tmp_path / "s"))


def test_a_mid_file_line_that_is_not_json_starts_a_tail_that_a_resume_keeps(
    tmp_path: Path, log: Path
) -> None:
    lines, shown = corrupted(tmp_path, log, 3, b"\x00garbage{\n")
    assert shown.returncode == 0, shown.stderr
    resumed = dsh(tmp_path, *run_args(tmp_path), "--resume", log.stem, "again")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    sidecar = log.with_name(log.name + ".corrupt")
    assert sidecar.read_bytes() == b"".join(lines[3:])  # nothing recorded is lost
    assert "line 4 is not a JSON event" in resumed.stderr + log.read_text()


def test_a_known_line_that_does_not_decode_is_an_error_naming_file_and_line(
    tmp_path: Path, log: Path
) -> None:
    _lines, shown = corrupted(tmp_path, log, 2, b'{"type":"turn/end","reason":"sideways"}\n')
    assert shown.returncode != 0
    assert f"session file {log} is corrupt at line 3, byte" in shown.stderr
    assert "Traceback" not in shown.stderr
