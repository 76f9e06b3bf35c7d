"""Record which ``OTEL_*`` variables the real Codex passes to its hooks.

usage: DSH_CODEX=/path/to/codex python benchmarks/record_codex_hook_otel_env.py OUT.json

``record_hook_otel_env.py`` recorded Claude Code 2.1.332 leaving every ``OTEL_*`` variable
and ``CLAUDE_CODE_OTEL_DIAG_STDERR`` out of its hooks' environment. This asks Codex 0.171
the same: ``codex exec`` against the loopback Responses mock (``_codex_side``), with
``OTEL_*``, ``ANT_OTEL_*``, ``CLAUDE_CODE_OTEL_DIAG_STDERR`` and ``TRACEPARENT`` set, export
off and then on (``[otel]`` in ``config.toml``: every exporter to a closed loopback port),
a UserPromptSubmit hook writes the names of those variables it sees. Never run by ``make
test``; its output is ``tests/fixtures/hook_otel_env_codex.json``.
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
from record_hook_otel_env import SET

_DUMP = (
    "import json, os, sys; sys.stdin.read(); "
    "names = [k for k in os.environ if 'OTEL' in k or k.startswith(('TRACE', 'REC_'))]; "
    "print(json.dumps(sorted(names)), file=open(sys.argv[1], 'w'))"
)
_OTEL = """
[otel]
environment = "rec"
exporter = { otlp-http = { endpoint = "http://127.0.0.1:9/v1/logs", protocol = "binary" } }
trace_exporter = { otlp-http = { endpoint = "http://127.0.0.1:9/v1/traces", protocol = "binary" } }
"""


def record(telemetry: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rec-codex-otel-") as tmp, ResponsesMock() as mock:
        root = Path(tmp)
        work, home, seen = root / "w", root / "home" / ".codex", root / "seen.json"
        work.mkdir()
        command = f"{sys.executable} -c {json.dumps(_DUMP)} {seen}"
        case = SideCase(
            name="otel-env",
            prompt="go",
            replies=(Reply(text="done"),),
            hooks={"UserPromptSubmit": command},
        )
        mock.load(case)
        argv, env = codex_invocation(case, work, home, mock.url)
        if telemetry:
            config = home / "config.toml"
            config.write_text(config.read_text() + _OTEL)
        env |= SET
        done = subprocess.run(
            argv, env=env, cwd=work, stdin=subprocess.DEVNULL, capture_output=True, timeout=300
        )
        return {
            "exit_code": done.returncode,
            "set": sorted(SET),
            "hook_saw": json.loads(seen.read_text()) if seen.exists() else None,
        }


def main() -> int:
    out = Path(sys.argv[1])
    codex = codex_path()
    if codex is None:
        raise SystemExit("no codex: set DSH_CODEX or run `make bench-tools`")
    version = subprocess.run([codex, "--version"], capture_output=True, text=True).stdout
    recorded: dict[str, Any] = {"cli_version": version.strip()}
    for name, telemetry in (("export-off", False), ("export-on", True)):
        print("recording", name, flush=True)
        recorded[name] = record(telemetry)
    out.write_text(json.dumps(recorded, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
