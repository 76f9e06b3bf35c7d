"""An ``async: true`` SessionEnd hook (as a popular public plugin suite ships one) does not keep
``dsh run`` from exiting: through the real CLI, dsh exits within the SessionEnd budget and the
hook's process is gone."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.cli.test_cli import dsh
from tests.nspids import SHELL_PID, outer_pid

BUDGET = 1.5  # Claude Code's SessionEnd budget, when no settings file declares a longer timeout
MARGIN = 8.0  # start-up and a loaded machine; the bug was an exit that never came


@pytest.mark.parametrize("run_async", [True, False])
def test_a_sleeping_session_end_hook_does_not_hold_the_exit(
    tmp_path: Path, run_async: bool
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    pid_file = tmp_path / "hook.pid"
    handler = {
        "type": "command",
        "command": f"echo {SHELL_PID} > {pid_file}; exec sleep 1000",
        "async": run_async,
    }
    settings = {"hooks": {"SessionEnd": [{"hooks": [handler]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    script = {"anthropic": {"responses": [[{"type": "text", "text": "ok"}]]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    env = {
        "HOME": str(tmp_path / "home"),
        "DSH_CONFIG_DIR": str(tmp_path / "config"),
    }
    started = time.monotonic()
    done = dsh(
        "run", "hi", "--model", f"scripted:{tmp_path / 'script.json'}",
        "--project", str(project), "--session-dir", str(tmp_path / "s"),
        cwd=tmp_path, env_extra=env,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    assert elapsed < BUDGET + MARGIN, elapsed
    pid = pid_file.read_text().strip()  # the hook did start (PID@INODE: tests/nspids.py)
    assert not _running(pid), f"the SessionEnd hook's process {pid} outlived dsh"


def _running(said: str) -> bool:
    return outer_pid(said) is not None


def test_under_the_codex_bridge_too(tmp_path: Path) -> None:
    """Codex runs an async SessionEnd hook synchronously, its timeout capped at 3 s."""
    home = tmp_path / "codex"
    home.mkdir()
    pid_file = tmp_path / "hook.pid"
    handler = {
        "type": "command",
        "command": f"echo {SHELL_PID} > {pid_file}; exec sleep 1000",
        "async": True,
        "timeout": 600,
    }
    (home / "hooks.json").write_text(json.dumps({"hooks": {"SessionEnd": [{"hooks": [handler]}]}}))
    (tmp_path / "project").mkdir()
    script = {"anthropic": {"responses": [[{"type": "text", "text": "ok"}]]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    env = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(home)}
    started = time.monotonic()
    done = dsh(
        "run", "hi", "--model", f"scripted:{tmp_path / 'script.json'}",
        "--project", str(tmp_path / "project"), "--session-dir", str(tmp_path / "s"),
        "--hooks", "codex", "--dangerously-bypass-hook-trust",
        cwd=tmp_path, env_extra=env,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    assert elapsed < 3.0 + MARGIN, elapsed
    assert not _running(pid_file.read_text().strip())
