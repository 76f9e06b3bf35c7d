"""Control characters from a hook and a tool never reach the terminal from ``dsh run``.

A hook's ``systemMessage`` and a Bash command's output carry a title change (OSC 0), a
screen clear (CSI 2J) and a bell; the printed transcript shows them escaped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from dsh.cli import _render
from tests.cli.test_cli import write_script

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[H[/bogus]\x9b31m"


def test_a_hooks_message_and_a_tools_output_are_printed_escaped(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    answer = json.dumps({"systemMessage": HOSTILE})
    hook = {"type": "command", "command": f"printf '%s' {_quoted(answer)}"}
    (tmp_path / "hooks.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}})
    )
    script = write_script(
        tmp_path / "script.json",
        [
            [
                {
                    "type": "tool_use",
                    "name": "Bash",
                    "input": {"command": "printf '\\033]0;t\\007\\033[2J'"},
                }
            ],
            [{"type": "text", "text": "done " + HOSTILE}],
        ],
    )
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "400", "HOME": str(tmp_path / "home")}
    env.pop("DSH_MODEL", None)
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "cfg")
    done = subprocess.run(
        [
            *(sys.executable, "-m", "dsh", "run", "go", "--model", f"scripted:{script}"),
            *("--project", str(project), "--session-dir", str(tmp_path / "s")),
            *("--settings", str(tmp_path / "hooks.json")),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in done.stdout
    assert done.stdout.count("\\x1b]0;pwned\\x07\\x1b[2J") >= 2, done.stdout  # hook and model
    assert "\\x1b]0;t\\x07\\x1b[2J" in done.stdout  # the tool's output
    assert "[/bogus]" in done.stdout


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def test_terminal_safe_keeps_newlines_tabs_and_text() -> None:
    assert _render.terminal_safe("a\tb\nc é ⏺") == "a\tb\nc é ⏺"
    assert _render.terminal_safe("\x1b[2J\x00\x7f\u202e") == "\\x1b[2J\\x00\\x7f\\u202e"


def test_json_lines_carry_no_raw_terminal_controls() -> None:
    """stream-json lines (and control responses) keep hostile text as JSON escapes: JSON
    leaves DEL, C1 controls (U+009B is CSI) and bidi overrides raw unless told."""
    from dsh.cli._render import json_line

    hostile = {"m": "a\x1b]0;t\x07b\x7f\x9b2J\u202eevil\u2028é"}
    line = json_line(hostile, separators=(",", ":"))
    assert json.loads(line) == hostile
    assert not any(0x7F <= ord(c) <= 0x9F or c in "\u202e\u2028" for c in line)
    assert "é" in line  # other text stays as it is
