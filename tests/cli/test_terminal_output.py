"""What ``dsh run`` prints at a terminal is shown, never obeyed, in every output format.

A scripted model answers with an OSC title, a clear screen, bidi overrides and a BEL;
``dsh run`` runs in a pseudo-terminal with ``--output-format text``, ``json``,
``stream-json`` and the default transcript, and none of those sequences reaches the
terminal raw. Piped, ``text`` keeps the answer exact (as Claude Code's ``-p``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import pytest

from tests.cli.support import run_dsh

HOSTILE = "A\x1b]0;pwned\x07B\x1b[2J\x1b[HC\u202eevil\u202cD\x07E\x9b31mF"
RAW = ("\x1b]", "\x1b[2J", "\x1b[H", "\u202e", "\u202c", "\x07", "\x9b")


def _script(tmp_path: Path) -> Path:
    script = tmp_path / "script.json"
    reply = [[{"type": "text", "text": HOSTILE}]]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": reply}]}}))
    return script


def _at_terminal(tmp_path: Path, *fmt: str) -> str:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    env.update(
        {"TERM": "xterm", "NO_COLOR": "1", "COLUMNS": "200", "XDG_DATA_HOME": str(tmp_path / "x")}
    )
    args = ["-m", "dsh", "run", "go", "--model", f"scripted:{_script(tmp_path)}"]
    args += ["--project", str(project), "--session-dir", str(tmp_path / "s"), *fmt]
    child = pexpect.spawn(
        sys.executable, args, cwd=str(project), env=env, encoding="utf-8", timeout=60
    )
    out = child.read()
    child.close()
    assert child.exitstatus == 0, out
    return str(out)


@pytest.mark.parametrize(
    "fmt",
    [
        ("--output-format", "text"),
        ("--output-format", "json"),
        ("--output-format", "stream-json"),
        (),
    ],
)
def test_a_hostile_answer_reaches_a_terminal_escaped(tmp_path: Path, fmt: tuple[str, ...]) -> None:
    out = _at_terminal(tmp_path, *fmt)
    for raw in RAW:
        assert raw not in out, (raw, out)
    assert "\\u202e" in out  # shown, escaped
    assert "A" in out
    assert "F" in out


def test_text_piped_keeps_the_answer_exact(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    done = run_dsh(
        "run",
        "go",
        "--model",
        f"scripted:{_script(tmp_path)}",
        "--project",
        str(project),
        "--session-dir",
        str(tmp_path / "s"),
        "--output-format",
        "text",
        cwd=project,
        env={"XDG_DATA_HOME": str(tmp_path / "x")},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == HOSTILE + "\n"
