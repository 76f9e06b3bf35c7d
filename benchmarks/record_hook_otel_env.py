"""Record which ``OTEL_*`` variables the real Claude Code passes to its hooks.

usage: python benchmarks/record_hook_otel_env.py CLAUDE OUT.json

The corpus records only a hook's ``CLAUDE*``/``CODEX*`` variables, so it cannot say what
Claude Code does with the OpenTelemetry ones. Run against the real Claude Code 2.1.332 (a
loopback Anthropic mock, ``_claude_recording``; a private ``CLAUDE_CONFIG_DIR``),
with ``OTEL_*``, ``ANT_OTEL_*``, ``CLAUDE_CODE_OTEL_DIAG_STDERR`` and ``TRACEPARENT`` set,
export off and then on (``CLAUDE_CODE_ENABLE_TELEMETRY=1``, every exporter ``none``), a
UserPromptSubmit hook writes the names of those variables it sees. Never run by
``make test``; its output is ``tests/fixtures/hook_otel_env_claude.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from _claude_recording import DONE, Place, RecordingMock, claude_env, claude_version, run_claude

SET: dict[str, str] = {
    "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
    "OTEL_EXPORTER_OTLP_HEADERS": "x-key=secret",
    "OTEL_RESOURCE_ATTRIBUTES": "team=rec",
    "OTEL_SERVICE_NAME": "rec",
    "OTEL_TRACES_EXPORTER": "none",
    "OTEL_METRICS_EXPORTER": "none",
    "OTEL_LOGS_EXPORTER": "none",
    "ANT_OTEL_REC": "1",
    "CLAUDE_CODE_OTEL_DIAG_STDERR": "1",
    "TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    "REC_PLAIN": "1",
}
_DUMP = (
    "import json, os, sys; json.load(sys.stdin); "
    "names = [k for k in os.environ if 'OTEL' in k or k.startswith(('TRACE', 'REC_'))]; "
    "print(json.dumps(sorted(names)), file=open(sys.argv[1], 'w'))"
)


def record(claude: str, mock: RecordingMock, telemetry: bool) -> dict[str, Any]:
    place = Place.make("otel-env")
    seen = place.root / "seen.json"
    command = f"{sys.executable} -c {json.dumps(_DUMP)} {seen}"
    hooks = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}
    settings = place.root / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    mock.load([DONE])
    env = claude_env(mock.url, place)
    env = {k: v for k, v in env.items() if "OTEL" not in k and not k.startswith("TRACE")}
    env = {k: v for k, v in env.items() if k != "DISABLE_TELEMETRY"} | SET
    if telemetry:
        env["CLAUDE_CODE_ENABLE_TELEMETRY"] = "1"
    args = ["-p", "hi", "--settings", str(settings),
            "--dangerously-skip-permissions", "--model", "claude-rec"]  # fmt: skip
    done = run_claude(claude, args, place, env)
    names = json.loads(seen.read_text()) if seen.is_file() else None
    return {"exit_code": done.returncode, "set": sorted(SET), "hook_saw": names}


def main() -> int:
    claude, out = sys.argv[1], Path(sys.argv[2])
    recorded: dict[str, Any] = {"cli_version": claude_version(claude)}
    with RecordingMock() as mock:
        for name, telemetry in (("export-off", False), ("export-on", True)):
            print("recording", name, flush=True)
            recorded[name] = record(claude, mock, telemetry)
    out.write_text(json.dumps(recorded, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
