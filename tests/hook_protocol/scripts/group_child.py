"""Run by test_process_group.py: start one hook that reports where it runs, print it as JSON."""

from __future__ import annotations

import asyncio
import json
import os
import sys

from dsh.base._process_group import own_session
from dsh.hook_protocol import HookCommand, HookOrigin
from dsh.hook_protocol._executor import run_hook

REPORT = """
import json, os
try:
    os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    tty = "opened"
except OSError as exc:
    tty = exc.strerror
print(json.dumps({"pid": os.getpid(), "pgid": os.getpgid(0), "sid": os.getsid(0), "tty": tty}))
"""


async def main() -> None:
    hook = HookCommand(
        argv=(sys.executable, "-c", REPORT),
        timeout=30,
        origin=HookOrigin(source="test", event="PreToolUse"),
    )
    run = await run_hook(hook, b"{}")
    seen = {"own_session": own_session(), "dsh_sid": os.getsid(0), "hook": json.loads(run.stdout)}
    print(json.dumps(seen), flush=True)


asyncio.run(main())
