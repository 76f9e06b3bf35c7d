"""A process that embeds dsh, as a test worker does, and forks a child that never execs.

``embedding_host.py CONTAINMENT HOLDER OUT``: with ``process_containment`` CONTAINMENT,
it makes dsh's watchdog (and namespace), then HOLDER: ``none``, ``fork`` (``os.fork``: a
child that sleeps, as a test's or a library's fork does), ``c-fork`` (``fork()`` called
through ctypes: Python's at-fork hooks never run) or ``preexec`` (a spawn whose
``preexec_fn`` never returns: stuck between fork and exec), a child holding a copy of every
descriptor this process had. Then, in process, the hook executor runs a hook that leaves a
``setsid`` daemon behind (``hook_helpers = "session"``: it lives on) and starts one that
runs until killed. OUT gets the pids (JSON) and the test kills this process with SIGKILL.
"""

from __future__ import annotations

import asyncio
import ctypes
import fcntl
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from dsh.base._containment import (
    _WARDEN,
    containment_in_use,
    set_hook_helpers,
    set_process_containment,
)
from dsh.hook_protocol import HookCommand, HookOrigin
from dsh.hook_protocol._executor import run_hook

SHELL_PID = "$$@$(stat -Lc %i /proc/self/ns/pid)"  # tests/nspids.py
ORIGIN = HookOrigin(source="test", event="PreToolUse")


def hold(how: str, out: Path) -> int | None:
    """A child that never execs (it sleeps until the test ends it), or ``None``."""
    if how == "none":
        return None
    if how == "preexec":  # stuck between fork and exec, as a spawn's preexec_fn can be
        said = out.with_suffix(".preexec")

        def stuck() -> None:
            said.write_text(str(os.getpid()))
            time.sleep(300)

        kwargs = {"preexec_fn": stuck}
        threading.Thread(
            target=subprocess.run, args=(["true"],), kwargs=kwargs, daemon=True
        ).start()
        while not said.exists() or not said.read_text():
            time.sleep(0.02)
        return int(said.read_text())
    pid = int(ctypes.PyDLL(None).fork()) if how == "c-fork" else os.fork()
    if pid == 0:
        time.sleep(300)
        os._exit(0)
    return pid


def dsh_ends() -> list[int]:
    """dsh's ends of the watchdog's pipe and of the namespace's init's."""
    assert _WARDEN.pipe is not None
    space = _WARDEN.namespace
    return [_WARDEN.pipe.fileno(), *([space.life] if space is not None else [])]


def cloexec(fd: int) -> bool:
    return bool(fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC)


def hook(script: str, timeout: int) -> HookCommand:
    return HookCommand(argv=("sh", "-c", script), timeout=timeout, origin=ORIGIN)


async def leave_daemon(left: Path) -> None:
    """A hook that leaves a ``setsid`` daemon behind (kept: ``hook_helpers = "session"``)."""
    daemon = f"setsid sh -c 'echo {SHELL_PID} > {left}; exec sleep 300' </dev/null >/dev/null 2>&1"
    await run_hook(hook(f"{daemon} & while [ ! -s {left} ]; do sleep 0.02; done", 30), b"")


async def run_on(out: Path, ready: dict[str, object], left: list[str]) -> None:
    """A hook that runs until this process is killed; then ``ready`` to OUT, with the pids
    of what dsh started (``left`` and this hook's)."""
    running = out.with_suffix(".running")
    endless = hook(f"echo {SHELL_PID} > {running}; exec sleep 300", 300)
    task = asyncio.create_task(run_hook(endless, b""))
    while "@" not in (running.read_text() if running.exists() else ""):
        await asyncio.sleep(0.02)
    spawned = [*left, running.read_text().strip()]
    out.with_suffix(".tmp").write_text(json.dumps({**ready, "spawned": spawned}))
    out.with_suffix(".tmp").rename(out)
    await task


def main() -> None:
    containment, how, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    set_process_containment("namespace" if containment == "namespace" else "marks")
    set_hook_helpers("session")
    in_use, why = containment_in_use()
    left = out.with_suffix(".left")
    asyncio.run(leave_daemon(left))  # the watchdog (and the namespace) run: then the fork
    assert _WARDEN.watchdog is not None
    space = _WARDEN.namespace
    ready: dict[str, object] = {
        "in_use": in_use,
        "why": why,
        "watchdog": _WARDEN.watchdog.pid,
        "init": space.init if space is not None else None,
        "cloexec": all(cloexec(fd) for fd in dsh_ends()),
        "holder": hold(how, out),
    }
    asyncio.run(run_on(out, ready, [left.read_text().strip()]))


if __name__ == "__main__":
    main()
