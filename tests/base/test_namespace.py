"""dsh's namespace and its fallbacks: marks when configured, when the kernel refuses, when
the namespace's init was killed; what ``dsh config show`` says of each.

The escapes it holds are in ``tests/hardening/test_containment.py`` (through ``dsh run``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dsh.base._namespace import open_namespace
from tests.hardening.test_containment import namespace_refused

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux")


def config_show(**env: str) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    done = subprocess.run(
        [sys.executable, "-m", "dsh", "config", "show", "--json"],
        capture_output=True,
        text=True,
        env={**clean, **env},
        check=True,
    )
    shown = json.loads(done.stdout)["process_containment"]
    assert isinstance(shown, dict)
    return shown


def test_config_show_names_the_containment_in_use_and_marks_when_configured() -> None:
    forced = config_show(DSH_PROCESS_CONTAINMENT="marks")
    assert forced == {
        "value": "marks",
        "source": "env DSH_PROCESS_CONTAINMENT",
        "in_use": "marks",
        "how": 'process_containment = "marks"',
    }
    default = config_show()
    assert default["value"] is None
    assert default["in_use"] in ("namespace", "marks")
    if default["in_use"] == "marks":  # the kernel refused: it says why
        assert str(default["how"]).startswith("no namespace: ")


def test_a_refusal_from_the_watchdog_is_a_reason_not_a_namespace() -> None:
    life = os.pipe()
    try:
        refused = open_namespace("marks Operation not permitted (unshare)\n", life[1], "nsenter")
        assert refused == "Operation not permitted (unshare)"
        assert open_namespace("", life[1], "nsenter") == "the watchdog did not start"
        assert open_namespace("ns x user\n", life[1], "nsenter") == "the watchdog did not start"
    finally:
        os.close(life[0])
        os.close(life[1])


def test_when_the_namespaces_init_is_killed_later_spawns_fall_back_to_marks() -> None:
    script = textwrap.dedent(
        """
        import asyncio, os, signal, sys, time
        from dsh.base._containment import _WARDEN, containment_in_use, contained_spawn
        from dsh.hook_protocol import HookCommand, HookOrigin
        from dsh.hook_protocol._executor import run_hook

        in_use, how = containment_in_use()
        if in_use != "namespace":
            print("refused"); sys.exit(0)
        init = _WARDEN.namespace.init
        os.kill(init, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while _WARDEN.namespace.alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert contained_spawn(["true"]) == (["true"], None)
        print(*containment_in_use(), sep="|")
        origin = HookOrigin(source="test", event="PreToolUse")
        cmd = HookCommand(argv=("sh", "-c", "echo hi; (sleep 0 &)"), timeout=10, origin=origin)
        run = asyncio.run(run_hook(cmd, b""))
        print(run.exit_code, run.stdout.strip())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    if done.stdout == "refused\n":
        pytest.skip("the kernel gives dsh no namespace here")
    assert done.stdout.splitlines() == [
        "marks|no namespace: its namespace ended (its init was killed)",
        "0 hi",
    ]


def test_without_nsenter_no_namespace_and_config_says_why() -> None:
    script = textwrap.dedent(
        """
        import dsh.base._containment as containment
        import dsh.base._warden as warden  # where the watchdog's keeper looks nsenter up
        warden.find_nsenter = lambda: None
        print(*containment.containment_in_use(), sep="|")
        print(containment.contained_spawn(["true"]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["marks|no namespace: nsenter not found", "(['true'], None)"]


def test_an_nsenter_that_cannot_join_is_a_reason_not_a_namespace(tmp_path: Path) -> None:
    """The watchdog runs ``true`` through ``nsenter`` before it names the namespace: one that
    fails (an old ``nsenter``, a security module) leaves marks, and ``config show``'s reason
    is its status and first line."""
    refusing = tmp_path / "nsenter"
    refusing.write_text("#!/bin/sh\necho 'nsenter: reassociate failed: denied' >&2\nexit 1\n")
    refusing.chmod(0o755)
    script = textwrap.dedent(
        f"""
        import dsh.base._containment as containment
        import dsh.base._warden as warden
        warden.find_nsenter = lambda: {str(refusing)!r}
        print(*containment.containment_in_use(), sep="|")
        print(containment.contained_spawn(["true"]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    in_use, spawn = done.stdout.splitlines()
    if not in_use.startswith("marks|no namespace: nsenter could not join it"):
        assert namespace_refused(), in_use  # the kernel refused before nsenter was tried
        pytest.skip("the kernel gives dsh no namespace here")
    assert in_use == (
        "marks|no namespace: nsenter could not join it"
        " (exit status 1: nsenter: reassociate failed: denied)"
    )
    assert spawn == "(['true'], None)"


def test_the_sweep_finds_the_same_children_with_and_without_the_kernels_children_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``sweep_processes`` reads the children of dsh (and of its namespace's init) from
    ``/proc/PID/task/TID/children``; a kernel without them gets the walk of ``/proc``."""
    from dsh.base import _containment

    started = [subprocess.Popen(["sleep", "30"]) for _ in range(2)]
    try:
        me = {os.getpid()}
        found = _containment._children(me)
        monkeypatch.setattr(_containment, "_children_files", lambda: False)
        assert _containment._children(me) == found
        assert {p.pid for p in started} <= found
    finally:
        for process in started:
            process.kill()
            process.wait()


def test_become_subreaper_makes_the_process_a_child_subreaper() -> None:
    """``dsh run`` is a child subreaper (through ctypes' C module, not ctypes: see the
    function); the kernel says so (``PR_GET_CHILD_SUBREAPER``), in a process of its own."""
    script = textwrap.dedent(
        """
        import ctypes
        from dsh.base._containment import become_subreaper
        said = ctypes.c_int(-1)
        ctypes.CDLL(None).prctl(37, ctypes.byref(said), 0, 0, 0)
        print(said.value, become_subreaper(), end=" ")
        ctypes.CDLL(None).prctl(37, ctypes.byref(said), 0, 0, 0)
        print(said.value)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "0 True 1\n"


def test_the_watchdogs_libc_calls_and_says_why_a_call_failed() -> None:
    """The watchdog calls the C library through ctypes' C module, and makes a failed call
    again through ctypes for its errno (``_namespace_make._Libc``)."""
    import errno

    from dsh.base._namespace_make import _Libc

    libc = _Libc()
    assert libc("getpid") == os.getpid()
    assert libc("unshare", 0x1) == -1  # no such flag: refused before anything is looked at
    failure = libc.failure("unshare", 0x1)
    assert (failure.errno, failure.filename) == (errno.EINVAL, "unshare")


def test_a_hello_awaited_in_the_background_holds_spawns_but_not_the_warden() -> None:
    """``prepare_containment``'s thread waits for the watchdog's hello: meanwhile the warden
    can be set up (``set_process_containment`` takes its lock), and a spawn waits for the
    namespace (``Warden.settle``) until the hello names it, or why there is none."""
    import threading

    from dsh.base._warden import Warden

    warden = Warden()
    said, say = os.pipe()
    life = os.pipe()
    os.close(life[0])
    warden.pending = (os.fdopen(said, "rb"), life[1], "nsenter")
    waiting = threading.Thread(target=warden.settle)
    waiting.start()
    try:
        while not warden.hello.locked() and waiting.is_alive():
            pass  # the thread has the hello to read
        assert warden.lock.acquire(timeout=30)  # a bound, not a speed: free at once
        warden.lock.release()
        assert not warden.hello.acquire(blocking=False)  # what a spawn waits on
    finally:
        os.write(say, b"marks refused here (unshare)\n")
        os.close(say)
        waiting.join(timeout=30)
    assert warden.namespace is None
    assert warden.why == "refused here (unshare)"
