"""Crafted settings through the real ``dsh hooks check`` and ``dsh run``: a diagnostic, no crash.

Each case is a ``--settings`` file a hostile repository could ship; both commands run as
subprocesses and must print a plain-text diagnostic naming the file and the place, with no
traceback, and exit as documented (``hooks check`` 1 for a diagnosed file, ``run`` 0: the
turn runs without the file's hooks).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import write_script


def _handler(command: str = "true") -> list[dict[str, object]]:
    return [{"type": "command", "command": command}]


def _settings(event: str = "PreToolUse", matcher: str | None = None, command: str = "true") -> str:
    group: dict[str, object] = {"hooks": _handler(command)}
    if matcher is not None:
        group["matcher"] = matcher
    return json.dumps({"hooks": {event: [group]}})


# name -> (file text, where the diagnostic points, what it says)
CASES: dict[str, tuple[str, str, str]] = {
    "huge repeat": (_settings(matcher="a{99999999999}"), "PreToolUse[0]", "does not compile"),
    "3000 open parentheses": (_settings(matcher="(" * 3000 + "a"), "PreToolUse[0]", "refused"),
    "3000 balanced groups": (
        _settings(matcher="(" * 3000 + "a" + ")" * 3000),
        "PreToolUse[0]",
        "refused",
    ),
    "deep groups under the length bound": (
        _settings(matcher="(" * 300 + "a" + ")" * 300),
        "PreToolUse[0]",
        "nest deeper",
    ),
    "catastrophic (a+)+$": (_settings(matcher="(a+)+$"), "PreToolUse[0]", "exponential"),
    "catastrophic (x*)*y": (_settings(matcher="(x*)*y"), "PreToolUse[0]", "exponential"),
    "markup event name": (_settings(event="[/bogus]"), "[/bogus]", "not a Claude Code hook event"),
    "markup in a matcher": (_settings(matcher="[bold red]("), "PreToolUse[0]", "[bold red]("),
    "NUL in a command": (_settings(command="echo \0 hi"), "PreToolUse[0][0]", "a NUL"),
    "NUL in a matcher": (_settings(matcher="Bash\0"), "PreToolUse[0]", "a NUL"),
    "NUL in an event name": (_settings(event="Pre\0ToolUse"), "Pre", "a NUL"),
    "lone surrogate in a command": (
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true \\ud800"}]}]}}',
        "lone surrogate",
        "lone surrogate",
    ),
    "lone surrogate in an event name": (
        '{"hooks": {"Stop\\udfff": [{"hooks": [{"type": "command", "command": "true"}]}]}}',
        "lone surrogate",
        "lone surrogate",
    ),
    "100,000-deep JSON": (
        '{"hooks": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "invalid JSON",
        "nested deeper",
    ),
    "NaN": ('{"hooks": {}, "x": NaN}', "invalid JSON", "NaN"),
    "escape sequences in an event name": (
        _settings(event="\x1b]0;pwned\x07\x1b[2J"),
        "\\x1b]0;pwned\\x07",
        "not a Claude Code hook event",
    ),
}


def _env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "400", "HOME": str(tmp_path / "home")}
    env.pop("DSH_MODEL", None)
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "cfg")
    return env


def _dsh(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dsh", *argv],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        errors="backslashreplace",
        timeout=60,
        check=False,
    )


def _project(tmp_path: Path, text: str) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    settings = tmp_path / "hostile.json"
    settings.write_text(text, encoding="utf-8", errors="surrogatepass")
    return project, settings


def _assert_diagnosed(output: str, settings: Path, where: str, says: str) -> None:
    assert "Traceback" not in output
    assert "\x1b" not in output
    assert "\x00" not in output
    lines = [line for line in output.splitlines() if "error:" in line and str(settings) in line]
    assert lines, output
    assert any(where in line and says in line for line in lines), lines


@pytest.mark.parametrize("case", sorted(CASES))
def test_hooks_check_diagnoses_the_file_and_exits_1(tmp_path: Path, case: str) -> None:
    text, where, says = CASES[case]
    project, settings = _project(tmp_path, text)
    done = _dsh(tmp_path, "hooks", "check", "--project", str(project), "--settings", str(settings))
    _assert_diagnosed(done.stdout + done.stderr, settings, where, says)
    assert "skipped" in done.stdout
    assert done.returncode == 1, done.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_run_prints_the_diagnostic_and_completes_the_turn(tmp_path: Path, case: str) -> None:
    text, where, says = CASES[case]
    project, settings = _project(tmp_path, text)
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "ok"}]])
    done = _dsh(
        tmp_path,
        *("run", "say hello", "--model", f"scripted:{script}", "--project", str(project)),
        *("--session-dir", str(tmp_path / "sessions"), "--settings", str(settings)),
    )
    _assert_diagnosed(done.stdout + done.stderr, settings, where, says)
    assert "turn ended: completed" in done.stdout
    assert done.returncode == 0, done.stderr
