"""Peak memory of ``dsh run`` while a hook writes 1 GiB to stdout and to stderr (issue 15).

Not part of ``make bench`` (it writes 2 GiB through pipes): run it as

    .venv/bin/python benchmarks/hook_flood.py [MiB]

It runs a real ``dsh run`` twice in a temporary project whose trusted UserPromptSubmit
hook writes MiB mebibytes (default 1024) to stdout and as much to stderr (exit 2, so the
stderr is the block reason the model would see), then once with a hook that writes
nothing, and prints each run's peak RSS (``VmHWM`` of the dsh process, polled) and the
growth. The figure goes in ``docs/reliability.md``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLOOD = (
    "import sys\n"
    "sys.stdin.read()\n"
    "n = int(sys.argv[1])\n"
    "chunk = b'x' * (1 << 20)\n"
    "for _ in range(n):\n"
    "    sys.stdout.buffer.write(chunk)\n"
    "    sys.stderr.buffer.write(chunk)\n"
    "sys.exit(2 if n else 0)\n"
)


def peak_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(root: Path, mebibytes: int) -> tuple[int, float]:
    project = root / f"p{mebibytes}"
    (project / ".claude").mkdir(parents=True)
    (root / "flood.py").write_text(FLOOD)
    command = f"{sys.executable} {root / 'flood.py'} {mebibytes}"
    hooks = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    script = {"anthropic": {"responses": [[{"type": "text", "text": "ok"}]]}}
    (root / "script.json").write_text(json.dumps(script))
    env = {**os.environ, "HOME": str(root / "home"), "XDG_DATA_HOME": str(root / "data")}
    argv = [sys.executable, "-m", "dsh", "run", "hi", "--model", f"scripted:{root / 'script.json'}"]
    argv += ["--project", str(project), "--session-dir", str(root / "s"), "--trust-project"]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, peak_kib(proc.pid))
        time.sleep(0.02)
    if proc.returncode != 0:
        raise SystemExit(f"dsh run exited {proc.returncode}")
    return peak, time.perf_counter() - started


def main() -> None:
    mebibytes = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "home").mkdir()
        quiet, quiet_s = run(root, 0)
        flood, flood_s = run(root, mebibytes)
    print(f"quiet hook: peak RSS {quiet / 1024:.1f} MiB ({quiet_s:.1f} s)")
    print(f"hook writing {mebibytes} MiB to stdout and to stderr: peak RSS {flood / 1024:.1f} MiB")
    print(f"  ({flood_s:.1f} s); growth {(flood - quiet) / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
