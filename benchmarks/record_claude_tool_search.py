"""Record how the real Claude Code sends a ToolSearch result on the Anthropic wire (issue 29).

usage: python benchmarks/record_claude_tool_search.py CLAUDE OUT.json

Runs ``CLAUDE -p 'Load WebFetch'`` (2.1.332) headless against a loopback server whose model
calls ToolSearch with ``select:WebFetch``, then answers ``done``. Keeps, per main request,
the ``anthropic-beta`` header, the tools offered (name, ``defer_loading``) and the
``tool_result`` blocks sent. Never run by ``make test``; its output is the fixture
``tests/fixtures/claude_tool_search_wire.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SEARCH = {"type": "tool_use", "id": "toolu_ts1", "name": "ToolSearch"}
SEARCH_INPUT = {"query": "select:WebFetch", "max_results": 5}


def sse(blocks: list[dict[str, Any]]) -> bytes:
    """One streamed reply of ``blocks`` (text, or a tool_use with ``input``)."""
    out: list[str] = []

    def event(kind: str, data: dict[str, Any]) -> None:
        out.append(f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n")

    usage = {"input_tokens": 100, "output_tokens": 1}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-5-5"}
    event("message_start", {"message": {**message, "content": [], "usage": usage}})
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        event("content_block_start", {"index": i, "content_block": opening})
        event("content_block_delta", {"index": i, "delta": delta})
        event("content_block_stop", {"index": i})
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    event("message_delta", {"delta": {"stop_reason": stop}, "usage": {"output_tokens": 20}})
    event("message_stop", {})
    return "".join(out).encode()


class _Server(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.log: list[dict[str, Any]] = []


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        tools = body.get("tools") or []
        blocks: list[dict[str, Any]] = [{"type": "text", "text": "side"}]
        if any(t.get("name") == "Bash" for t in tools):
            results = [
                b
                for m in body["messages"]
                if m["role"] == "user" and isinstance(m["content"], list)
                for b in m["content"]
                if b.get("type") == "tool_result"
            ]
            self.server.log.append(
                {
                    "beta": (self.headers.get("anthropic-beta") or "").split(","),
                    "tools": [
                        {"name": t.get("name"), "defer_loading": t.get("defer_loading")}
                        for t in tools
                    ],
                    "tool_results": results,
                }
            )
            answered = any(m["role"] == "assistant" for m in body["messages"])
            search = {**SEARCH, "input": SEARCH_INPUT}
            blocks = [{"type": "text", "text": "done"}] if answered else [search]
        data = b'{"input_tokens": 10}' if "count_tokens" in self.path else sse(blocks)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    claude, out = sys.argv[1], Path(sys.argv[2])
    server = _Server()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "p"
        home.mkdir()
        project.mkdir()
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
            "ANTHROPIC_API_KEY": "dummy",
            "IS_SANDBOX": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        argv = [claude, "-p", "Load WebFetch", "--dangerously-skip-permissions"]
        subprocess.run(argv, cwd=project, env=env, capture_output=True, timeout=120, check=False)
    server.shutdown()
    server.server_close()
    how = (
        "claude -p 'Load WebFetch' --dangerously-skip-permissions against a loopback server"
        " answering ToolSearch {query: select:WebFetch} then text"
        " (benchmarks/record_claude_tool_search.py)"
    )
    recorded = {"cli_version": "2.1.332 (Claude Code)", "how": how, "requests": server.log}
    out.write_text(json.dumps(recorded, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
