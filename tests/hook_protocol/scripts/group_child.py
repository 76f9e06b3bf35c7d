"""Run by test_process_group.py: start one hook that reports where it runs, print it as JSON.

The hook says its pid (``PID@INODE``: inside dsh's namespace the numbers are the
namespace's, ``tests/nspids.py``) and waits on a FIFO while this dsh process looks at it
from outside: its group, its session, and the leader of its group (the hook itself, or the
``nsenter`` that runs it in dsh's namespace, its parent).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[3]))  # the checkout: tests.nspids

from dsh.base._process_group import own_session
from dsh.hook_protocol import HookCommand, HookOrigin
from dsh.hook_protocol._executor import run_hook
from tests.nspids import outer_pid

REPORT = """
import json, os, sys
try:
    os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    tty = "opened"
except OSError as exc:
    tty = exc.strerror
inode = os.stat("/proc/self/ns/pid").st_ino
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(f"{os.getpid()}@{inode}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
with open(sys.argv[2]) as f:
    f.read()
print(json.dumps({"tty": tty}))
"""


def look(said: Path, fifo: Path) -> dict[str, int]:
    """Where the hook runs, seen from here (a thread: it waits for the hook to say its pid)."""
    while not said.exists():
        time.sleep(0.01)
    pid = outer_pid(said.read_text())
    assert pid is not None
    stat = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    seen = {"pid": pid, "ppid": int(stat[1]), "pgid": os.getpgid(pid), "sid": os.getsid(pid)}
    with open(fifo, "w"):
        pass  # lets the hook go on
    return seen


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        said, fifo = Path(tmp, "pid"), Path(tmp, "go")
        os.mkfifo(fifo)
        hook = HookCommand(
            argv=(sys.executable, "-c", REPORT, str(said), str(fifo)),
            timeout=30,
            origin=HookOrigin(source="test", event="PreToolUse"),
        )
        run, where = await asyncio.gather(
            run_hook(hook, b"{}"), asyncio.to_thread(look, said, fifo)
        )
    seen = {
        "own_session": own_session(),
        "dsh_sid": os.getsid(0),
        "dsh_pgid": os.getpgid(0),
        "hook": where | json.loads(run.stdout),
    }
    print(json.dumps(seen), flush=True)


asyncio.run(main())
