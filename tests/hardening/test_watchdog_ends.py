"""dsh's watchdog ends with dsh, even where a copy of its pipe outlives dsh.

The watchdog learns of dsh's end when its stdin (a pipe only dsh writes) closes, and the
namespace's init when its own pipe does. A process that embeds dsh (a test worker, an
editor) and forks a child that never execs gives that child a copy of both ends: killed,
it would leave the watchdog, the namespace and every process dsh started running for as
long as the fork lives. Each case runs ``scripts/embedding_host.py`` (dsh in process, a
hook still running and a hook's daemon left behind, and a fork: none, ``os.fork``, a
C-level ``fork()`` that Python's at-fork hooks never see, or a spawn stuck in its
``preexec_fn``), kills it with SIGKILL, and checks
the watchdog, the namespace's init and all dsh started are gone while the fork still runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.hardening.test_containment import alive, gone, namespace_refused

HOST = Path(__file__).parent / "scripts" / "embedding_host.py"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")


def start_host(
    tmp_path: Path, containment: str, holder: str
) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    """``scripts/embedding_host.py`` started, and the pids it said once ready."""
    out = tmp_path / "ready.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[2]), env.get("PYTHONPATH", "")])
    host = subprocess.Popen(
        [sys.executable, str(HOST), containment, holder, str(out)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not out.exists():
        if host.poll() is not None or time.monotonic() > deadline:
            host.kill()
            _, err = host.communicate()
            pytest.fail(f"the host never got ready: {err.decode(errors='replace')}")
        time.sleep(0.02)
    return host, json.loads(out.read_text())


@pytest.mark.parametrize(
    ("containment", "holder"),
    [
        ("namespace", "none"),
        ("namespace", "fork"),
        ("namespace", "c-fork"),
        ("namespace", "preexec"),
        ("marks", "c-fork"),
    ],
)
def test_the_watchdog_and_all_dsh_started_end_when_its_host_is_killed(
    tmp_path: Path, containment: str, holder: str
) -> None:
    if containment == "namespace" and namespace_refused():
        pytest.skip("the kernel gives dsh no namespace here")
    host, ready = start_host(tmp_path, containment, holder)
    fork = ready["holder"]
    try:
        assert ready["in_use"] == containment, ready["why"]
        assert ready["cloexec"]  # dsh's ends of both pipes: no program it starts gets them
        assert (ready["init"] is not None) == (containment == "namespace")
        spawned = [token for token in ready["spawned"] if alive(token)]
        assert len(spawned) == 2, ready  # the hook still running and the daemon it left
        dsh = [ready["watchdog"], *([ready["init"]] if ready["init"] else [])]
        host.kill()  # SIGKILL: no atexit, no sweep, no goodbye on the pipe
        host.wait()
        assert gone([*dsh, *spawned])
        if fork is not None:
            assert alive(fork)  # still running: what it holds did not keep them alive
    finally:
        host.kill()
        host.wait()
        if fork is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(fork, signal.SIGKILL)
