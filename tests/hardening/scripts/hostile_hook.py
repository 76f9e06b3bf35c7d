"""A hook that misbehaves as its mode says: ``hostile_hook.py MODE RUN_DIR``.

It appends its event to ``RUN_DIR/ran.txt`` first (so a test knows each invocation
started), then does what ``MODE`` names: writes an answer's bytes
(``RUN_DIR/answer.bin``), floods a stream, dies by a signal, sleeps past its timeout,
leaves processes behind, ... ``RUN_DIR`` is on every command line it starts, so a test
finds its leftovers in ``/proc``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

MODE, RUN = sys.argv[1], sys.argv[2]
CHUNK = b"x" * (1 << 20)


def event() -> str:
    try:
        payload = json.loads(sys.stdin.read() or "{}")
    except ValueError:
        return "?"
    return str(payload.get("hook_event_name", "?")) if isinstance(payload, dict) else "?"


def first_time(name: str) -> bool:
    """True once per run: the 1 GiB floods happen at the first invocation only."""
    try:
        os.close(os.open(os.path.join(RUN, name), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def flood(stream: int, mib: int) -> None:
    for _ in range(mib):
        os.write(stream, CHUNK)


def sleeper(*, setsid: bool) -> None:
    code = f"import time; time.sleep(600)  # {RUN}"
    subprocess.Popen(
        [sys.executable, "-c", code],
        start_new_session=setsid,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def daemon() -> None:
    """A double fork: the grandchild is re-parented away from the hook."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(
                sys.executable, [sys.executable, "-c", f"import time; time.sleep(600)  # {RUN}"]
            )
        os._exit(0)
    os.wait()


def main() -> None:
    name = event() if MODE != "no-stdin" else "?"
    with open(os.path.join(RUN, "ran.txt"), "a") as f:
        f.write(f"{name}\n")
    out = sys.stdout.buffer
    if MODE == "answer":
        with open(os.path.join(RUN, "answer.bin"), "rb") as f:
            out.write(f.read())
    elif MODE == "exit1-garbage":
        sys.stderr.buffer.write(bytes(range(256)) * 8)
        sys.exit(1)
    elif MODE == "exit2-32MiB-stderr":
        flood(2, 32)
        sys.exit(2)
    elif MODE == "exit2-escapes":
        sys.stderr.write("\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x9b2J\n")
        sys.exit(2)
    elif MODE == "sigkill-self":
        os.kill(os.getpid(), signal.SIGKILL)
    elif MODE == "abort":
        os.abort()
    elif MODE == "timeout":
        time.sleep(600)
    elif MODE == "timeout-setsid-child":
        sleeper(setsid=True)
        time.sleep(600)
    elif MODE == "double-fork-daemon":
        daemon()
        out.write(b"{}")
    elif MODE == "children-left":
        for _ in range(20):
            sleeper(setsid=False)
    elif MODE == "close-and-hang":
        out.write(b'{"systemMessage": "bye"}')
        out.flush()
        os.close(1)
        os.close(2)
        time.sleep(600)
    elif MODE == "no-stdin":
        out.write(b'{"systemMessage": "never read stdin"}')
    elif MODE == "1GiB-stdout-once":
        flood(1, 1024 if first_time("flood-out") else 1)
    elif MODE == "1GiB-stderr-once":
        flood(2, 1024 if first_time("flood-err") else 1)
        sys.exit(2)
    elif MODE == "16MiB-stdout":
        flood(1, 16)
    elif MODE == "env-dump":
        out.write(json.dumps({"systemMessage": json.dumps(dict(os.environ))}).encode())
    else:
        raise SystemExit(f"unknown mode {MODE}")
    out.flush()


if __name__ == "__main__":
    main()
