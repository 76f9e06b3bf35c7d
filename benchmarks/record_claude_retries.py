"""Record how the real Claude Code retries a failed API request (issue 28).

usage: python benchmarks/record_claude_retries.py CLAUDE OUT.json

Runs ``CLAUDE -p`` (2.1.332) once per case against the loopback mock (``_claude_recording``)
answering every Messages request with the case's HTTP status and an Anthropic error body,
headless, in a private ``CLAUDE_CONFIG_DIR``, with the case's ``CLAUDE_CODE_MAX_RETRIES``
(and a ``retry-after`` header for one case). Keeps, per request, its time since the start,
its ``anthropic-beta`` header, how many tools it offered and its ``thinking``: a 400 is sent
six times at once with degraded requests whatever ``CLAUDE_CODE_MAX_RETRIES`` says, other
statuses (401 included) are retried with backoff up to ``CLAUDE_CODE_MAX_RETRIES``. Never
run by ``make test``; its output is the fixture ``tests/fixtures/claude_api_retries.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _claude_recording import Place, RecordingMock, claude_env, run_claude

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
# status, the case's environment, extra response headers
CASES: list[tuple[int, dict[str, str], dict[str, str]]] = [
    (400, {}, {}),
    (400, {"CLAUDE_CODE_MAX_RETRIES": "0"}, {}),
    (429, {"CLAUDE_CODE_MAX_RETRIES": "0"}, {}),
    (429, {"CLAUDE_CODE_MAX_RETRIES": "2"}, {}),
    (429, {"CLAUDE_CODE_MAX_RETRIES": "2"}, {"retry-after": "1"}),
    (500, {"CLAUDE_CODE_MAX_RETRIES": "1"}, {}),
    (401, {}, {}),
]


def record(
    claude: str, mock: RecordingMock, status: int, env: dict[str, str], headers: dict[str, str]
) -> Any:
    kind = _ERROR_TYPES.get(status, "api_error")
    error = {"type": "error", "error": {"type": kind, "message": f"CASE-MOCK-{status}"}}
    mock.load(fail=(status, error, headers))
    place = Place.make(f"retries-{status}")
    args = ["-p", "Please run echo hi", "--output-format", "json"]
    done = run_claude(
        claude, [*args, "--dangerously-skip-permissions"], place, claude_env(mock.url, place, **env)
    )
    requests = [
        {
            "t": t,
            "beta": head["anthropic-beta"].split(",") if head.get("anthropic-beta") else [],
            "tools": len(body.get("tools") or []),
            "thinking": body.get("thinking"),
        }
        for t, head, body in zip(mock.times, mock.headers, mock.bodies, strict=True)
    ]
    return {
        "status": status,
        "env": env,
        "headers": headers,
        "exit": done.returncode,
        "requests": requests,
    }


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    claude, out = sys.argv[1], Path(sys.argv[2])
    with RecordingMock() as mock:
        cases = [record(claude, mock, status, env, headers) for status, env, headers in CASES]
    out.write_text(json.dumps({"cli_version": "2.1.332 (Claude Code)", "cases": cases}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
