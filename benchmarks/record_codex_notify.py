"""Record what the real Codex sends its ``notify`` program (issue 31).

usage: DSH_CODEX=/path/to/codex python benchmarks/record_codex_notify.py OUT.json

Runs ``codex exec`` (0.171) against the loopback Responses mock (``_codex_side``) with
``notify = [python3, <recorder>]`` in ``config.toml`` and a turn that runs one shell command,
then answers. The recorder keeps its argv (the JSON argument Codex appends), its working
directory and its environment's names. Never run by ``make test``; its output is
``tests/fixtures/codex_notify.json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _codex_side import ResponsesMock, codex_invocation, codex_path
from _side_cases import Reply, SideCase

from dsh.hooks.codex.config._trust import toml_string

RECORDER = """import json, os, sys
with open(os.environ["NOTIFY_LOG"], "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(),
                        "env": sorted(k for k in os.environ if k.startswith("CODEX"))}) + "\\n")
"""


def record() -> dict[str, Any]:
    replies = (Reply(bash=("echo hi",)), Reply(text="CASE-NOTIFY-DONE"))
    case = SideCase(name="notify", prompt="CASE-NOTIFY-PROMPT", replies=replies, hooks={})
    with tempfile.TemporaryDirectory() as tmp, ResponsesMock() as mock:
        root = Path(tmp)
        work, home = root / "w", root / "home" / ".codex"
        work.mkdir()
        recorder, log = root / "recorder.py", root / "notify.jsonl"
        recorder.write_text(RECORDER)
        mock.load(case)
        argv, env = codex_invocation(case, work, home, mock.url)
        config = home / "config.toml"
        notify = f"notify = [{toml_string(sys.executable)}, {toml_string(str(recorder))}]\n"
        config.write_text(notify + config.read_text())
        done = subprocess.run(
            argv,
            env={**env, "NOTIFY_LOG": str(log)},
            cwd=work,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=300,
        )
        calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        text = json.dumps(calls).replace(str(work), "${WORKDIR}").replace(str(root), "${RUN_DIR}")
        return {"exit_code": done.returncode, "calls": json.loads(text)}


def main() -> int:
    out = Path(sys.argv[1])
    codex = codex_path()
    if codex is None:
        raise SystemExit("no codex: set DSH_CODEX or run `make bench-tools`")
    version = subprocess.run([codex, "--version"], capture_output=True, text=True).stdout
    recorded: dict[str, Any] = {"cli_version": version.strip(), "notify": record()}
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
