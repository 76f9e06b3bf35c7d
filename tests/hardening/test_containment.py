"""No process outlives its owner: real hook and Bash processes that try to, through ``dsh run``.

Each case runs the real ``dsh run`` as a subprocess with a hook (``scripts/escape_hook.py``)
or a Bash command that leaves processes behind out of its process group (``setsid``, a
double fork), and checks every pid it left is gone once dsh is: on a hook's timeout, at
the session's end after a normal exit, when the Bash tool's command times out, for a
background shell, and when dsh itself is killed with SIGKILL mid-hook (the watchdog).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hardening.test_trust import dsh

SCRIPT = Path(__file__).parent / "scripts" / "escape_hook.py"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def gone(pids: list[int], within: float = 15.0) -> bool:
    """Whether every pid is dead within ``within`` seconds (a bound, not a speed test)."""
    deadline = time.monotonic() + within
    while any(alive(p) for p in pids):
        if time.monotonic() > deadline:
            for p in pids:  # leave nothing behind on a failure either
                if alive(p):
                    os.kill(p, signal.SIGKILL)
            return False
        time.sleep(0.05)
    return True


def pids_in(pidfile: Path) -> list[int]:
    return [int(line) for line in pidfile.read_text().split() if line.isdigit()]


def project_with_hook(tmp_path: Path, mode: str, timeout: int | None = None) -> Path:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (tmp_path / "home").mkdir(exist_ok=True)
    handler: dict[str, object] = {
        "type": "command",
        "command": f"{sys.executable} {SCRIPT} {mode} {tmp_path / 'pids.txt'}",
    }
    if timeout is not None:
        handler["timeout"] = timeout
    hooks = {"hooks": {"UserPromptSubmit": [{"hooks": [handler]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(hooks))
    return project


def model(tmp_path: Path, *replies: list[dict[str, object]]) -> str:
    script = {"anthropic": {"rules": [{"responses": [*replies, [{"type": "text", "text": "ok"}]]}]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    return f"scripted:{tmp_path / 'script.json'}"


def run_args(tmp_path: Path, project: Path, spec: str) -> list[str]:
    return ["run", "hi", "--model", spec, "--project", str(project), "--trust-project"]


def test_a_hook_that_setsids_is_ended_with_it_on_timeout(tmp_path: Path) -> None:
    project = project_with_hook(tmp_path, "setsid", timeout=3)
    done = dsh(tmp_path, *run_args(tmp_path, project, model(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    pids = pids_in(tmp_path / "pids.txt")
    assert len(pids) == 2  # the hook and its setsid() child
    assert gone(pids)


def test_a_double_forked_daemon_is_ended_at_the_sessions_end(tmp_path: Path) -> None:
    project = project_with_hook(tmp_path, "double-fork")
    done = dsh(tmp_path, *run_args(tmp_path, project, model(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    [daemon] = pids_in(tmp_path / "pids.txt")
    assert gone([daemon])


def test_kill_9_of_dsh_mid_hook_takes_the_hook_and_its_escapees_down(tmp_path: Path) -> None:
    project = project_with_hook(tmp_path, "setsid")
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "d")}
    env.pop("DSH_MODEL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "dsh", *run_args(tmp_path, project, model(tmp_path))],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pidfile = tmp_path / "pids.txt"
    deadline = time.monotonic() + 30
    while "ready" not in (pidfile.read_text() if pidfile.exists() else ""):
        assert time.monotonic() < deadline, "the hook never started"
        assert proc.poll() is None
        time.sleep(0.05)
    pids = pids_in(pidfile)
    assert all(alive(p) for p in pids)
    proc.kill()
    proc.wait()
    assert gone(pids)


def test_the_bash_tools_escapees_end_on_timeout_and_at_the_sessions_end(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    fg, bg = tmp_path / "fg.txt", tmp_path / "bg.txt"
    foreground = f"setsid sleep 300 & echo $! > {fg}; sleep 300"
    background = f"setsid sleep 301 & echo $! > {bg}; sleep 301"
    spec = model(
        tmp_path,
        [{"type": "tool_use", "name": "Bash", "input": {"command": foreground, "timeout": 2000}}],
        [
            {
                "type": "tool_use",
                "name": "Bash",
                "input": {"command": background, "run_in_background": True},
            }
        ],
        [{"type": "tool_use", "name": "Bash", "input": {"command": "sleep 1"}}],
    )
    args = ["run", "go", "--model", spec, "--project", str(project)]
    args += ["--permission-mode", "bypassPermissions"]  # the command writes a file
    done = dsh(tmp_path, *args, "--session-dir", str(tmp_path / "s"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "timed out" in done.stdout
    pids = pids_in(fg) + pids_in(bg)
    assert len(pids) == 2
    assert gone(pids)
