"""No process outlives its owner: real hook and Bash processes that try to, through ``dsh run``.

Each case runs the real ``dsh run`` as a subprocess with a hook (``scripts/escape_hook.py``)
or a Bash command that leaves processes behind out of its process group (``setsid``, a
double fork, ``nohup``), and checks every pid it left is gone when it should be: at the
hook's end after a normal exit (seen by a later hook of the same session), at the
session's end with ``hook_helpers = "session"``, on a hook's timeout, when the Bash tool's
command times out, for a background shell, and when dsh itself is killed with SIGKILL
mid-hook or right after a hook double-forked (the watchdog, through the containment mark).
Every case runs under both containments (``process_containment``: dsh's namespace, and
marks alone). Then the escape marks cannot hold, namespace only: a Bash command or a hook
whose child clears its mark (``env -u DSH_CONTAINMENT``) and double-forks out of its
session, after which dsh is killed with SIGKILL.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.hardening.test_trust import dsh
from tests.nspids import outer_pid

SCRIPT = Path(__file__).parent / "scripts" / "escape_hook.py"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

CONTAINMENT = ["marks"]  # this test's ``process_containment`` (set by ``containment``)


@pytest.fixture(autouse=True, params=["namespace", "marks"])
def containment(request: pytest.FixtureRequest) -> str:
    """Each case under both containments (a project's ``.dsh/config.toml`` says which)."""
    if request.param == "namespace" and namespace_refused():
        pytest.skip("the kernel gives dsh no namespace here")
    CONTAINMENT[0] = request.param
    return str(request.param)


@functools.cache
def namespace_refused() -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "dsh", "config", "show", "--json"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("DSH_")},
        check=True,
    )
    return bool(json.loads(done.stdout)["process_containment"]["in_use"] != "namespace")


def configure(project: Path, helpers: str | None = None) -> None:
    """``project``'s ``.dsh/config.toml``: this case's containment (and ``helpers``)."""
    (project / ".dsh").mkdir(exist_ok=True)
    text = f"process_containment = {CONTAINMENT[0]!r}\n"
    if helpers is not None:
        text += f"hook_helpers = {helpers!r}\n"
    (project / ".dsh" / "config.toml").write_text(text)


def alive(pid: int | str) -> bool:
    """Whether ``pid`` (a number here, or ``PID@INODE`` from inside a namespace) runs."""
    return outer_pid(pid) is not None


def gone(pids: list[int] | list[str], within: float = 15.0) -> bool:
    """Whether every pid is dead within ``within`` seconds (a bound, not a speed test)."""
    deadline = time.monotonic() + within
    while any(alive(p) for p in pids):
        if time.monotonic() > deadline:
            for p in pids:  # leave nothing behind on a failure either
                if (found := outer_pid(p)) is not None:
                    os.kill(found, signal.SIGKILL)
            return False
        time.sleep(0.05)
    return True


def pids_in(pidfile: Path) -> list[str]:
    """The pids ``PID@INODE`` the processes inside wrote (``tests/nspids.py``)."""
    return [line for line in pidfile.read_text().split() if "@" in line]


def running_pids(pidfile: Path) -> list[int]:
    """The pids of ``pidfile`` as ``/proc`` here numbers them, each running now."""
    found = [outer_pid(token) for token in pids_in(pidfile)]
    assert found, pidfile.read_text()
    assert None not in found, pidfile.read_text()
    return [pid for pid in found if pid is not None]


def project_with_hook(
    tmp_path: Path,
    mode: str,
    timeout: int | None = None,
    *,
    later: dict[str, str] | None = None,
    helpers: str | None = None,
) -> Path:
    """A project whose UserPromptSubmit hook runs ``mode`` (and each event of ``later`` its
    mode), all with ``tmp_path/pids.txt``; ``helpers`` goes in its ``.dsh/config.toml``."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (tmp_path / "home").mkdir(exist_ok=True)
    hooks: dict[str, list[dict[str, object]]] = {}
    for event, what in {"UserPromptSubmit": mode, **(later or {})}.items():
        handler: dict[str, object] = {
            "type": "command",
            "command": f"{sys.executable} {SCRIPT} {what} {tmp_path / 'pids.txt'}",
        }
        if timeout is not None and event == "UserPromptSubmit":
            handler["timeout"] = timeout
        hooks[event] = [{"hooks": [handler]}]
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    configure(project, helpers)
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
    project = project_with_hook(tmp_path, "double-fork", helpers="session")
    done = dsh(tmp_path, *run_args(tmp_path, project, model(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    [daemon] = pids_in(tmp_path / "pids.txt")
    assert gone([daemon])


def checked(tmp_path: Path) -> dict[str, str]:
    """What the ``check`` hook saw: each pid the first hook left, alive or dead."""
    lines = (tmp_path / "pids.txt.check").read_text().split("\n")
    return {pid: state for state, _, pid in (line.partition(" ") for line in lines if line)}


def test_what_a_hook_leaves_running_ends_when_it_exits_and_a_notice_says_so(
    tmp_path: Path,
) -> None:
    project = project_with_hook(tmp_path, "leave", later={"Stop": "check"})
    done = dsh(tmp_path, *run_args(tmp_path, project, model(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    pids = pids_in(tmp_path / "pids.txt")
    assert len(pids) == 3  # a setsid() child, a nohup child, a double-forked daemon
    # The Stop hook ran after the first hook ended, before the session did: all dead then.
    assert checked(tmp_path) == dict.fromkeys(pids, "dead")
    assert gone(pids)
    [notice] = [e for e in log_events(tmp_path) if e["type"] == "notice"]
    assert notice["text"].startswith("ended 3 processes the UserPromptSubmit hook `")
    assert f"{SCRIPT} leave" in notice["text"]
    assert 'hook_helpers = "session"' in notice["text"]
    assert "ended 3 processes" in done.stdout  # shown, as an info notice, in the transcript


def test_with_hook_helpers_session_they_live_until_the_session_ends(tmp_path: Path) -> None:
    project = project_with_hook(tmp_path, "leave", later={"Stop": "check"}, helpers="session")
    done = dsh(tmp_path, *run_args(tmp_path, project, model(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    pids = pids_in(tmp_path / "pids.txt")
    assert len(pids) == 3
    assert checked(tmp_path) == dict.fromkeys(pids, "alive")
    assert gone(pids)
    assert not [e for e in log_events(tmp_path) if e["type"] == "notice"]


def log_events(tmp_path: Path) -> list[dict[str, Any]]:
    [log] = (tmp_path / "data" / "dsh" / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


def start_dsh(
    tmp_path: Path, project: Path, *extra: str, spec: str | None = None
) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    env |= {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "d")}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dsh",
            *run_args(tmp_path, project, spec or model(tmp_path)),
            *extra,
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_for(proc: subprocess.Popen[bytes], path: Path, text: str) -> None:
    deadline = time.monotonic() + 30
    while text not in (path.read_text() if path.exists() else ""):
        assert time.monotonic() < deadline, f"no {text!r} in {path}"
        assert proc.poll() is None
        time.sleep(0.02)


def test_kill_9_of_dsh_mid_hook_takes_the_hook_and_its_escapees_down(tmp_path: Path) -> None:
    project = project_with_hook(tmp_path, "setsid")
    proc = start_dsh(tmp_path, project)
    pidfile = tmp_path / "pids.txt"
    wait_for(proc, pidfile, "ready")
    pids = running_pids(pidfile)
    proc.kill()
    proc.wait()
    assert gone(pids)


@pytest.mark.parametrize(
    ("mode", "later", "helpers", "signal_file"),
    [
        # The hook double-forked and still runs: the daemon is no longer under it.
        ("double-fork-stay", None, None, "pids.txt"),
        # The hook exited; its daemon, kept for the session, is dsh's (then init's) child.
        ("double-fork", {"Stop": "hang"}, "session", "pids.txt.hang"),
    ],
    ids=["mid-hook", "kept-helper"],
)
def test_kill_9_of_dsh_right_after_a_double_fork_leaves_nothing(
    tmp_path: Path, mode: str, later: dict[str, str] | None, helpers: str | None, signal_file: str
) -> None:
    project = project_with_hook(tmp_path, mode, later=later, helpers=helpers)
    proc = start_dsh(tmp_path, project)
    wait_for(proc, tmp_path / signal_file, "ready" if signal_file == "pids.txt" else "hanging")
    [daemon] = running_pids(tmp_path / "pids.txt")
    proc.kill()  # at once: re-parented to init when dsh dies, before anything walks a tree
    proc.wait()
    assert gone([daemon])


def test_the_bash_tools_escapees_end_on_timeout_and_at_the_sessions_end(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    configure(project)
    (tmp_path / "home").mkdir()
    fg, bg = tmp_path / "fg.txt", tmp_path / "bg.txt"
    inode = "$(stat -Lc %i /proc/self/ns/pid)"  # the pid as PID@INODE: tests/nspids.py
    foreground = f"setsid sleep 300 & echo $!@{inode} > {fg}; sleep 300"
    background = f"setsid sleep 301 & echo $!@{inode} > {bg}; sleep 301"
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


# A child that clears its containment mark, leaves the session in a double fork, says its pid
# (``PID@INODE``: the `sh` that then becomes `sleep`) and the command waits; then the test
# kills dsh with SIGKILL (from inside, dsh's pid is not there to signal: ESRCH).
ESCAPE = (
    "env -u DSH_CONTAINMENT sh -c '(setsid sh -c \"echo \\$\\$@\\$(stat -Lc %i"
    " /proc/self/ns/pid) > {pidfile}; exec sleep 300\" </dev/null >/dev/null 2>&1 &)';"
    " while [ ! -s {pidfile} ]; do sleep 0.02; done; sleep 300"
)
NAMESPACE_ONLY = pytest.mark.parametrize("containment", ["namespace"], indirect=True)


def escaped_pid(proc: subprocess.Popen[bytes], pidfile: Path) -> int:
    """The escapee's pid (once it said it), after the test killed dsh (``proc``) with SIGKILL."""
    deadline = time.monotonic() + 60
    while (
        not pidfile.exists()
        or "@" not in pidfile.read_text()
        or outer_pid(pids_in(pidfile)[0]) is None
    ):
        assert time.monotonic() < deadline, "the escapee never said its pid"
        assert proc.poll() is None
        time.sleep(0.02)
    [pid] = running_pids(pidfile)
    proc.kill()
    assert proc.wait(timeout=60) == -signal.SIGKILL
    return pid


@NAMESPACE_ONLY  # marks cannot hold it (docs/reliability.md, "Limits")
def test_a_bash_command_whose_child_clears_its_mark_and_kills_dsh_leaves_nothing(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    configure(project)
    (tmp_path / "home").mkdir()
    command = ESCAPE.format(pidfile=tmp_path / "escapee.txt")
    spec = model(tmp_path, [{"type": "tool_use", "name": "Bash", "input": {"command": command}}])
    proc = start_dsh(tmp_path, project, "--permission-mode", "bypassPermissions", spec=spec)
    assert gone([escaped_pid(proc, tmp_path / "escapee.txt")])


@NAMESPACE_ONLY  # marks cannot hold it (docs/reliability.md, "Limits")
def test_a_hook_whose_child_clears_its_mark_and_kills_dsh_leaves_nothing(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    command = ESCAPE.format(pidfile=tmp_path / "escapee.txt")
    hooks = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    configure(project)
    proc = start_dsh(tmp_path, project)
    assert gone([escaped_pid(proc, tmp_path / "escapee.txt")])


def test_a_pid_a_command_said_is_the_one_a_later_command_kills(tmp_path: Path) -> None:
    """One numbering for every process the model drives: ``$$`` written by one Bash call is
    what ``kill`` takes in a later one, and ``pkill``/``pgrep`` (reading ``/proc``) agree."""
    project = tmp_path / "project"
    project.mkdir()
    configure(project)
    (tmp_path / "home").mkdir()
    tag = os.getpid() % 100000  # this test's sleepers alone (tests run side by side)
    naps = [f"300.{tag}{n}" for n in range(3)]
    start = "; ".join(
        [
            f"sh -c 'echo $$ > {tmp_path}/s.pid; exec sleep {naps[0]}' >/dev/null 2>&1 &",
            *(f"sleep {nap} >/dev/null 2>&1 &" for nap in naps[1:]),
            f"while [ ! -s {tmp_path}/s.pid ]; do sleep 0.02; done",
        ]
    )
    # The pattern `sleep 30[0].TAG1` matches the sleeper, not this command's own text.
    pattern = [f"sleep 30[0].{nap[4:]}" for nap in naps]
    stop = f"kill $(cat {tmp_path}/s.pid); pkill -f '{pattern[1]}'; kill $(pgrep -f '{pattern[2]}')"
    left = "|".join(pattern)
    check = (
        f"i=0; while pgrep -f '{left}' >/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1));"
        f" done; pgrep -fa '{left}' > {tmp_path}/left.txt; echo checked >> {tmp_path}/left.txt"
    )
    calls: list[list[dict[str, object]]] = [
        [{"type": "tool_use", "name": "Bash", "input": {"command": command}}]
        for command in (start, stop, check)
    ]
    spec = model(tmp_path, *calls)
    args = ["run", "go", "--model", spec, "--project", str(project)]
    args += ["--permission-mode", "bypassPermissions"]  # the commands write files
    done = dsh(tmp_path, *args, "--session-dir", str(tmp_path / "s"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "left.txt").read_text() == "checked\n", done.stdout
