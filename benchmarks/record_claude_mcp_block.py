"""Record what 2.1.332 does with an ``mcp_tool`` PreCompact hook under ``onFailure: "block"``
(issue 30): plain text is no verdict on the gates, but 2.1.332 excepts PreCompact by name.

usage: DSH_CLAUDE=... python benchmarks/record_claude_mcp_block.py OUT.json

Each case: ``claude -p hi`` (one turn, the loopback mock), then ``claude -p /compact
--resume ID`` with a PreCompact ``mcp_tool`` handler (``onFailure: "block"``) on
``tests/mcp/sample_server.py`` and a PostCompact command hook that notes it ran. Cases: the
handler's tool answers plain text (``echo``), or fails (``fail``: a tool error). Kept: exit
codes, whether PostCompact ran (the compaction went on), the ``/compact`` run's result text.
Never run by ``make test``; its output is ``tests/fixtures/claude_mcp_block.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _claude_recording import Place, RecordingMock, claude_env, run_claude
from _claude_side import claude_path

SERVER = str(Path(__file__).resolve().parent.parent / "tests" / "mcp" / "sample_server.py")


def record(claude: str, mock: RecordingMock, name: str, tool: str) -> dict[str, Any]:
    place = Place.make(name, git=True)
    log = place.root / "post.log"
    handler = {
        "type": "mcp_tool",
        "server": "sample",
        "tool": tool,
        "input": {"message": "CASE-PRECOMPACT"} if tool == "echo" else {"reason": "CASE-FAIL"},
        "onFailure": "block",
    }
    hooks = {
        "PreCompact": [{"hooks": [handler]}],
        "PostCompact": [{"hooks": [{"type": "command", "command": f"echo ran >> {log}"}]}],
    }
    (place.root / "settings.json").write_text(json.dumps({"hooks": hooks}))
    server = {"command": sys.executable, "args": [SERVER]}
    (place.root / "mcp.json").write_text(json.dumps({"mcpServers": {"sample": server}}))
    flags = ["--settings", str(place.root / "settings.json"), "--output-format", "json"]
    flags += ["--mcp-config", str(place.root / "mcp.json"), "--strict-mcp-config"]
    env = claude_env(mock.url, place)
    mock.load()
    first = run_claude(claude, ["-p", "hi", *flags], place, env)
    session = json.loads(first.stdout)["session_id"]
    compact = run_claude(claude, ["-p", "/compact", "--resume", session, *flags], place, env)
    try:
        result = json.loads(compact.stdout).get("result")
    except ValueError:
        result = compact.stdout[-2000:]
    return {
        "case": name,
        "tool": tool,
        "exit_codes": [first.returncode, compact.returncode],
        "post_compact_ran": log.exists(),
        "result": place.placeholders(str(result)),
        "stderr_tail": place.placeholders(compact.stderr[-1500:]),
    }


def main() -> None:
    claude = claude_path()
    if claude is None:
        raise SystemExit("no claude: set DSH_CLAUDE")
    with RecordingMock() as mock:
        cases = [
            record(claude, mock, "precompact-plain-text", "echo"),
            record(claude, mock, "precompact-tool-error", "fail"),
        ]
    out = {"claude": "2.1.332", "cases": cases}
    Path(sys.argv[1]).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
