"""Record how the real Claude Code continues a subagent with SendMessage (issue 28).

usage: python benchmarks/record_claude_send_message.py CLAUDE OUT.json

Runs ``CLAUDE -p`` (2.1.332) headless, permissions skipped, a private ``CLAUDE_CONFIG_DIR``,
against a loopback Anthropic server whose parent model loads SendMessage with ToolSearch
(``select:SendMessage``), runs a foreground Agent call (``run_in_background: false``), then
sends that agent a message (``to``: the id from the Agent result) and ends; the subagent
answers each request with a numbered report. A hook on every tool and subagent event logs
its stdin. Keeps: the SendMessage tool as offered once loaded (name, description, schema),
the deferred-tools announcement, every request's tool results and the subagent's messages
(what a continued agent is shown), and the hook payloads in order. Never run by
``make test``; its output is the fixture ``tests/fixtures/claude_send_message.json``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PARENT = "PARENT-MARKER: delegate, then continue the agent."
SUBTASK = "SUBTASK-MARKER: report."
EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "SubagentStart",
    "SubagentStop",
    "UserPromptSubmit",
    "Stop",
)
HOOK = (
    'python3 -c "import sys,os; d=sys.stdin.read();'
    " open(os.environ['CASE_LOG'],'a').write(d.strip()+chr(10))\""
)


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


def _use(ident: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": name, "input": arguments}


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        b
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def _parent_reply(done: int, body: dict[str, Any]) -> list[dict[str, Any]]:
    if done == 0:
        return [_use("toolu_ts1", "ToolSearch", query="select:SendMessage", max_results=5)]
    if done == 1:
        agent = _use(
            "toolu_ag1",
            "Agent",
            description="Report once",
            subagent_type="general-purpose",
            prompt=SUBTASK,
            run_in_background=False,
        )
        return [agent]
    if done == 2:
        found = re.search(r"agentId: (a[0-9a-f]{16})", json.dumps(_results(body)))
        to = found.group(1) if found else "missing"
        message = "CONTINUE-MARKER: report again."
        return [
            _use(
                "toolu_sm1",
                "SendMessage",
                to=to,
                summary="Ask for a second report",
                message=message,
            )
        ]
    return [{"type": "text", "text": "parent done"}]


class _Server(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.log: list[dict[str, Any]] = []
        self.tools: dict[str, Any] = {}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        tools = body.get("tools") or []
        first = json.dumps(body.get("messages", [{}])[0]) if body.get("messages") else ""
        turns = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        blocks: list[dict[str, Any]] = [{"type": "text", "text": "side"}]
        who = None
        if "count_tokens" not in self.path and SUBTASK in first:
            who = "subagent"
            blocks = [{"type": "text", "text": f"subagent report {turns + 1}"}]
        elif "count_tokens" not in self.path and PARENT in first and tools:
            who = "parent"
            blocks = _parent_reply(len(_results(body)), body)
        if who is not None:
            for tool in tools:
                if tool.get("name") in ("SendMessage", "Agent", "ToolSearch"):
                    self.server.tools[tool["name"]] = tool
            system = [
                b.get("text") if isinstance(b, dict) else b
                for m in body["messages"]
                if m["role"] == "system"
                for b in (m["content"] if isinstance(m["content"], list) else [m["content"]])
            ]
            self.server.log.append(
                {
                    "who": who,
                    "tools": [
                        {"name": t.get("name"), "defer_loading": t.get("defer_loading")}
                        for t in tools
                    ],
                    "deferred_announcement": [
                        s for s in system if isinstance(s, str) and "deferred tools" in s
                    ],
                    "tool_results": _results(body),
                    "messages": body["messages"] if who == "subagent" else None,
                    "reply": blocks,
                }
            )
        data = b'{"input_tokens": 10}' if "count_tokens" in self.path else sse(blocks)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _reduce(recorded: dict[str, Any]) -> str:
    """The fixture's text: Claude Code's own system text and reminders left out of the
    subagent's messages, the announcement cut to its deferred-tools paragraph, temporary
    paths as ``${RUN_DIR}``."""
    for request in recorded["requests"]:
        if request["messages"]:
            request["messages"] = [m for m in request["messages"] if m["role"] != "system"]
            for m in request["messages"]:
                if isinstance(m["content"], list):
                    m["content"] = [
                        b
                        for b in m["content"]
                        if not (b.get("type") == "text" and b["text"].startswith("<system-"))
                    ]
        request["deferred_announcement"] = [
            s[s.index("The following deferred") : s.index("WebSearch") + 9]
            for s in request["deferred_announcement"]
        ]
    text = json.dumps(recorded, indent=1, ensure_ascii=False)
    return re.sub(r"/tmp/tmp[a-z0-9_]+", "${RUN_DIR}", text)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    claude, out = sys.argv[1], Path(sys.argv[2])
    server = _Server()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        home, project, log = Path(tmp) / "home", Path(tmp) / "p", Path(tmp) / "hooks.jsonl"
        home.mkdir()
        project.mkdir()
        hooks = {
            e: [{"matcher": "*", "hooks": [{"type": "command", "command": HOOK}]}] for e in EVENTS
        }
        settings = Path(tmp) / "settings.json"
        settings.write_text(json.dumps({"hooks": hooks}))
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
            "CASE_LOG": str(log),
        }
        argv = [claude, "-p", PARENT, "--dangerously-skip-permissions", "--settings", str(settings)]
        try:
            done = subprocess.run(
                argv, cwd=project, env=env, capture_output=True, timeout=90, check=False
            )
            code, tail = done.returncode, done.stdout.decode(errors="replace")[-3000:]
        except subprocess.TimeoutExpired as stuck:
            code, tail = -1, (stuck.stdout or b"").decode(errors="replace")[-3000:]
        payloads = (
            [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        )
        text = (
            json.dumps(payloads).replace(str(project), "${PROJECT_DIR}").replace(tmp, "${RUN_DIR}")
        )
    server.shutdown()
    server.server_close()
    how = (
        "claude -p PARENT --dangerously-skip-permissions against a loopback server: ToolSearch"
        " select:SendMessage, a foreground Agent call, SendMessage to its agentId, text"
        " (benchmarks/record_claude_send_message.py)"
    )
    recorded = {
        "cli_version": "2.1.332 (Claude Code)",
        "how": how,
        "exit_code": code,
        "stdout_tail": tail,
        "tools": {k: v for k, v in server.tools.items() if k == "SendMessage"},
        "requests": server.log,
        "hooks": json.loads(text),
    }
    out.write_text(_reduce(recorded))
    return 0


if __name__ == "__main__":
    sys.exit(main())
