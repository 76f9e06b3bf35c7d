"""Failures to store the session that leave things whole, through the real ``dsh run``.

A file-size limit (``RLIMIT_FSIZE``: writes fail with ``EFBIG``, as on a full disk
they fail with ``ENOSPC``) at the start or mid-turn, and a session directory deleted
under the running session: one ``dsh:`` line naming the file, exit 74, no traceback,
no temporary file left, and the log readable afterwards.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.support import run_dsh

STORAGE_EXIT = 74


def _script(tmp_path: Path, command: str) -> Path:
    path = tmp_path / "script.json"
    first = [{"type": "tool_use", "name": "Bash", "input": {"command": command}}]
    rules = [{"responses": [first, [{"type": "text", "text": "done"}]]}]
    path.write_text(json.dumps({"anthropic": {"rules": rules}}))
    return path


def _limited(limit: int) -> Callable[[], None]:
    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return limit_files


def run_limited(tmp_path: Path, limit: int, command: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "project").mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "dsh",
            "run",
            "hi",
            "--model",
            f"scripted:{_script(tmp_path, command)}",
            "--project",
            str(tmp_path / "project"),
            "--session-dir",
            str(tmp_path / "sessions"),
            "--permission-mode",
            "bypassPermissions",
        ],
        cwd=tmp_path,
        env=env,
        preexec_fn=_limited(limit),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_size_limit_at_the_start_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    done = run_limited(tmp_path, 0, "true")
    assert done.returncode == STORAGE_EXIT, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("dsh: cannot write the session log ")
    assert line.endswith(".jsonl: File too large")
    assert os.listdir(tmp_path / "sessions") == []  # no .tmp, no lock of a session never made


def test_a_size_limit_mid_turn_is_one_line_and_the_log_stays_readable(tmp_path: Path) -> None:
    # The header and the first events fit; the tool's 20 kB result does not.
    done = run_limited(tmp_path, 4000, "head -c 20000 /dev/zero | tr '\\0' a")
    assert done.returncode == STORAGE_EXIT, done.stderr
    assert "Traceback" not in done.stderr
    [line] = [x for x in done.stderr.splitlines() if x.startswith("dsh:")]
    assert line.startswith("dsh: cannot write the session log ")
    assert line.endswith(": File too large")
    assert "turn ended" not in done.stdout
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    assert not list((tmp_path / "sessions").glob(".*.tmp"))
    assert log.read_bytes().endswith(b"\n")  # the line written part way was cut back
    shown = run_dsh("log", log.stem, "--session-dir", str(tmp_path / "sessions"), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "tool/call" in shown.stdout


def test_a_session_directory_deleted_mid_session_stops_the_run(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    done = run_limited(tmp_path, resource.RLIM_INFINITY, f"rm -rf {sessions}")
    assert done.returncode == STORAGE_EXIT, done.stdout + done.stderr
    assert "turn ended: completed" not in done.stdout
    assert f"({sessions}" not in done.stdout  # no log path that does not exist
    [line] = done.stderr.splitlines()
    assert line.startswith(f"dsh: cannot write the session log {sessions}/")
    assert "deleted or replaced while the session ran" in line


def _tmpfs_available() -> bool:
    try:
        probe = subprocess.run(
            ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs /mnt"],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


@pytest.mark.skipif(not _tmpfs_available(), reason="no unprivileged tmpfs (user namespaces)")
def test_a_full_disk_mid_turn_is_one_line_and_the_log_stays_readable(tmp_path: Path) -> None:
    # A 20 KiB tmpfs of our own (a user and mount namespace): the tool's result fills it.
    mount = tmp_path / "small"
    mount.mkdir()
    (tmp_path / "project").mkdir()
    script = _script(tmp_path, "head -c 20000 /dev/zero | tr '\\0' a")
    sessions = mount / "sessions"
    dsh = f"{sys.executable} -m dsh"
    run = (
        f"{dsh} run hi --model scripted:{script} --project {tmp_path / 'project'}"
        f" --session-dir {sessions} --permission-mode bypassPermissions; echo EXIT=$?;"
        f" for f in {sessions}/*.jsonl; do {dsh} log $(basename $f .jsonl)"
        f" --session-dir {sessions} >/dev/null && echo READABLE; done"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o size=20k tmpfs {mount} && {run}"],
        cwd=tmp_path,
        env={**env, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert f"EXIT={STORAGE_EXIT}" in done.stdout, done.stdout + done.stderr
    assert "READABLE" in done.stdout
    assert "Traceback" not in done.stderr
    [line] = [x for x in done.stderr.splitlines() if x.startswith("dsh:")]
    assert line.endswith(": No space left on device")
