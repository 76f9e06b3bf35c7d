"""SIGKILL of ``dsh run`` mid-turn, at many points: the session stays readable and resumable.

A real ``dsh run`` (real hook processes at four events, four Bash calls) is killed with
SIGKILL at points spread over its run. After each kill: the session log loads (and
``dsh log`` prints it), ``dsh run --resume`` continues it to a completed turn, every
event readable before the resume is still there after it (nothing recorded is lost;
only a torn last line, the event in flight, may be cut), and no process of the run
is left alive. ``DSH_KILL_POINTS`` sets the number of points (6 in the normal run;
``DSH_KILL_POINTS=200`` is the long run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dsh.session import JsonlSessionStore
from tests.hardening.test_containment import alive
from tests.hardening.test_trust import dsh

POINTS = int(os.environ.get("DSH_KILL_POINTS", "6"))
HOOK = "import sys; sys.stdin.read()"
EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")


def bash(n: int) -> list[dict[str, object]]:
    call = {"command": f"echo step {n}", "description": "a step"}
    return [
        {"type": "text", "text": f"Step {n}."},
        {"type": "tool_use", "name": "Bash", "input": call},
    ]


@pytest.fixture
def rig(tmp_path: Path) -> list[str]:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    handler = {"type": "command", "command": f'{sys.executable} -c "{HOOK}" {tmp_path}'}
    hooks = {"hooks": {e: [{"hooks": [handler]}] for e in EVENTS}}
    (project / ".claude" / "settings.json").write_text(json.dumps(hooks))
    replies = [bash(n) for n in range(4)] + [[{"type": "text", "text": "All done."}]]
    (tmp_path / "script.json").write_text(json.dumps({"anthropic": {"responses": replies}}))
    assert dsh(tmp_path, "hooks", "trust", "--project", str(project)).returncode == 0
    model = f"scripted:{tmp_path / 'script.json'}"
    return ["--model", model, "--project", str(project)]


def leftovers(tmp_path: Path) -> list[int]:
    """Live processes whose command line names this test's directory (its hooks, its dsh)."""
    mine = str(tmp_path).encode()
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                if mine in Path(f"/proc/{name}/cmdline").read_bytes() and alive(int(name)):
                    found.append(int(name))
            except OSError:
                continue
    return found


def settle(tmp_path: Path) -> list[int]:
    deadline = time.monotonic() + 15
    while (left := leftovers(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_a_session_killed_at_any_point_stays_readable_and_resumable(
    tmp_path: Path, rig: list[str]
) -> None:
    args = rig
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("DSH_MODEL", None)
    started = time.monotonic()
    whole = dsh(tmp_path, "run", "go", *args, "--session-dir", str(tmp_path / "calibrate"))
    assert whole.returncode == 0, whole.stdout + whole.stderr
    span = time.monotonic() - started
    survived = 0
    for point in range(POINTS):
        sessions = tmp_path / f"s{point}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "dsh", "run", "go", *args, "--session-dir", str(sessions)],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(span * (point + 0.5) / POINTS)
        proc.kill()
        proc.wait()
        assert settle(tmp_path) == [], f"point {point}: processes left"
        logs = list(sessions.glob("*.jsonl")) if sessions.exists() else []
        if not logs:
            survived += 1  # killed before the session began: nothing was recorded
            continue
        [log] = logs
        store = JsonlSessionStore(sessions)
        before = store.load(log.stem)
        shown = dsh(tmp_path, "log", log.stem, "--session-dir", str(sessions))
        assert shown.returncode == 0, f"point {point}: {shown.stderr}"
        resumed = dsh(
            tmp_path, "run", "again", *args, "--session-dir", str(sessions), "--resume", log.stem
        )
        assert resumed.returncode == 0, f"point {point}: {resumed.stdout}{resumed.stderr}"
        after = store.load(log.stem)
        assert after[: len(before)] == before, f"point {point}: recorded events were lost"
        assert len(after) > len(before)
        survived += 1
    assert survived == POINTS
