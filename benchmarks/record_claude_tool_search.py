"""Record how the real Claude Code sends a ToolSearch result on the Anthropic wire (issue 29).

usage: python benchmarks/record_claude_tool_search.py CLAUDE OUT.json

Runs ``CLAUDE -p 'Load WebFetch'`` (2.1.332) headless against the loopback mock
(``_claude_recording``) whose model calls ToolSearch with ``select:WebFetch``, then answers
``done``. Keeps, per main request, the ``anthropic-beta`` header, the tools offered (name,
``defer_loading``) and the ``tool_result`` blocks sent. Never run by ``make test``; its
output is the fixture ``tests/fixtures/claude_tool_search_wire.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _claude_recording import DONE, Place, RecordingMock, claude_env, run_claude, tool_use

SEARCH = tool_use("toolu_ts1", "ToolSearch", query="select:WebFetch", max_results=5)


def _seen(body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    """One main request as the fixture keeps it: its betas, tools and tool results."""
    tools = body.get("tools") or []
    results = [
        b
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    return {
        "beta": (headers.get("anthropic-beta") or "").split(","),
        "tools": [{"name": t.get("name"), "defer_loading": t.get("defer_loading")} for t in tools],
        "tool_results": results,
    }


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    claude, out = sys.argv[1], Path(sys.argv[2])
    place = Place.make("tool-search")
    with RecordingMock(model="claude-opus-5-5") as mock:
        mock.load([[SEARCH], DONE])
        args = ["-p", "Load WebFetch", "--dangerously-skip-permissions"]
        run_claude(claude, args, place, claude_env(mock.url, place), timeout=120)
        requests = [_seen(b, h) for b, h in zip(mock.bodies, mock.headers, strict=True)]
    how = (
        "claude -p 'Load WebFetch' --dangerously-skip-permissions against a loopback server"
        " answering ToolSearch {query: select:WebFetch} then text"
        " (benchmarks/record_claude_tool_search.py)"
    )
    recorded = {"cli_version": "2.1.332 (Claude Code)", "how": how, "requests": requests}
    out.write_text(json.dumps(recorded, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
