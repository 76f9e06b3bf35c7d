"""``dsh acp``'s standard input as a shell gives it: ``/dev/null``, a line that is not JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli import write_script

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}


def _acp(
    tmp_path: Path, stdin: int | None, data: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "ok"}]])
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    argv = [sys.executable, "-m", "dsh", "acp", "--model", f"scripted:{script}"]
    argv += ["--session-dir", str(tmp_path / "sessions")]
    return subprocess.run(
        argv,
        cwd=tmp_path,
        env=env,
        stdin=stdin,
        input=data,
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_dev_null_on_stdin_ends_quietly(tmp_path: Path) -> None:
    done = _acp(tmp_path, subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""
    assert b"Exception in callback" not in done.stderr
    assert b"Error" not in done.stderr


def test_a_line_that_is_not_json_is_answered_with_a_parse_error(tmp_path: Path) -> None:
    lines = b"this is not json\n" + json.dumps(INITIALIZE).encode() + b"\n"
    done = _acp(tmp_path, None, lines)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }
    assert answers[1]["id"] == 1
    assert answers[1]["result"]["protocolVersion"] == 1
    assert b"Traceback" not in done.stderr
