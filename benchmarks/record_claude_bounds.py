"""Record what the real Claude Code does with large tool output and long errors (issue 27).

usage: python benchmarks/record_claude_bounds.py CLAUDE OUT.json

Runs ``CLAUDE -p`` (2.1.332: ``make bench-tools`` or an npm install anywhere) once per
case against a loopback Anthropic mock, headless, permissions skipped, a private
``CLAUDE_CONFIG_DIR``, with a recording hook on PreToolUse, PostToolUse and
PostToolUseFailure. For each case it keeps what the model was sent back (every
``tool_result`` block and ``role: system`` text after the first request), the hook
payloads (``tool_response`` / ``error``), and the files Claude Code wrote under its
``tool-results`` folders. Long texts are kept as ``{"length", "head", "tail"}`` so the
fixture stays small. Never run by ``make test``; its output is the fixture
``tests/fixtures/claude_bounds.json``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

LINES = (
    "import sys; sys.{stream}.write("
    "''.join(f'line {{i:06d}} ' + 'x' * 88 + '\\n' for i in range({n})))"
)


def _py(stream: str, n: int, code: int = 0) -> str:
    body = LINES.format(stream=stream, n=n) + f"; sys.exit({code})"
    return "python3 -c " + shlex.quote(body)


def _bash(ident: str, command: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": ident,
        "name": "Bash",
        "input": {"command": command, "description": "case step", **extra},
    }


def _tool(ident: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": name, "input": arguments}


_DONE = [{"type": "text", "text": "done"}]
_BIG_STDERR_HOOK = (
    "python3 -c \"import sys; sys.stdin.read(); sys.stderr.write('E' * 100000); sys.exit(2)\""
)

CASES: dict[str, dict[str, Any]] = {
    "bash-stdout-100k": {"replies": [[_bash("toolu_a", _py("stdout", 1000))], _DONE]},
    "bash-stderr-100k": {"replies": [[_bash("toolu_a", _py("stderr", 1000))], _DONE]},
    "bash-fail-stdout-100k": {"replies": [[_bash("toolu_a", _py("stdout", 1000, 1))], _DONE]},
    "bash-fail-stderr-100k": {"replies": [[_bash("toolu_a", _py("stderr", 1000, 3))], _DONE]},
    "bash-10mb": {"replies": [[_bash("toolu_a", _py("stdout", 100_000))], _DONE]},
    "bash-limit-env": {
        "env": {"BASH_MAX_OUTPUT_LENGTH": "50000"},
        "replies": [
            [_bash("toolu_a", _py("stdout", 400)), _bash("toolu_b", _py("stdout", 1000))],
            _DONE,
        ],
    },
    "bash-limit-env-over": {
        "env": {"BASH_MAX_OUTPUT_LENGTH": "500000"},
        "replies": [[_bash("toolu_a", _py("stdout", 1000))], _DONE],
    },
    "bash-limit-env-clamp": {
        "env": {"BASH_MAX_OUTPUT_LENGTH": "500000"},
        "replies": [[_bash("toolu_a", _py("stdout", 2000))], _DONE],
    },
    "bash-just-over": {
        "replies": [
            [_bash("toolu_a", _py("stdout", 300)), _bash("toolu_b", _py("stdout", 301))],
            _DONE,
        ]
    },
    "bash-background": {
        "replies": [
            [_bash("toolu_a", _py("stdout", 1000), run_in_background=True)],
            [_bash("toolu_b", "sleep 3")],
            _DONE,
        ]
    },
    "read-missing": {
        "replies": [
            [_tool("toolu_a", "Read", file_path="/nonexistent/" + "d" * 200 + "/f.txt")],
            _DONE,
        ]
    },
    "edit-error": {
        "files": {"f.txt": "hello\n"},
        "replies": [
            [_tool("toolu_r", "Read", file_path="${PROJECT_DIR}/f.txt")],
            [
                _tool(
                    "toolu_a",
                    "Edit",
                    file_path="${PROJECT_DIR}/f.txt",
                    old_string="Q" * 100_000,
                    new_string="x",
                )
            ],
            _DONE,
        ],
    },
    "pretool-exit2-100k": {
        "hook": {"PreToolUse": _BIG_STDERR_HOOK},
        "replies": [[_bash("toolu_a", "echo hi")], _DONE],
    },
    "posttool-exit2-100k": {
        "hook": {"PostToolUse": _BIG_STDERR_HOOK},
        "replies": [[_bash("toolu_a", "echo hi")], _DONE],
    },
}


def _stderr_hook(size: int) -> str:
    body = f"import sys; sys.stdin.read(); sys.stderr.write('E' * {size}); sys.exit(2)"
    return f'python3 -c "{body}"'


# Where 2.1.332 starts to save a hook's blocking error (the 100,000 case above is saved).
for _size in (9_000, 11_000, 30_000, 60_000):
    CASES[f"pretool-exit2-{_size // 1000}k"] = {
        "hook": {"PreToolUse": _stderr_hook(_size)},
        "replies": [[_bash("toolu_a", "echo hi")], _DONE],
    }


def _substitute(value: Any, project: str) -> Any:
    if isinstance(value, str):
        return value.replace("${PROJECT_DIR}", project)
    if isinstance(value, list):
        return [_substitute(v, project) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, project) for k, v in value.items()}
    return value


def _sse(blocks: list[dict[str, Any]], turn: int) -> bytes:
    tool = any(b["type"] == "tool_use" for b in blocks)
    usage = {
        "input_tokens": 10,
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    start: dict[str, Any] = {
        "id": f"msg_{turn}",
        "type": "message",
        "role": "assistant",
        "model": "claude-rec",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": opening},
            ),
            ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": i}),
        ]
    stop = {"stop_reason": "tool_use" if tool else "end_turn", "stop_sequence": None}
    events += [
        ("message_delta", {"type": "message_delta", "delta": stop, "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return b"".join(f"event: {n}\ndata: {json.dumps(d)}\n\n".encode() for n, d in events)


class Mock:
    def __init__(self) -> None:
        self.replies: list[list[dict[str, Any]]] = [_DONE]
        self.bodies: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, kind: str, data: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = self.path.split("?", 1)[0]
                if not path.endswith("/v1/messages"):
                    self._send("application/json", b'{"input_tokens": 10}')
                    return
                body = json.loads(raw or b"{}")
                tools = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
                if "Bash" in tools:
                    turns = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
                    with mock.lock:
                        mock.bodies.append(body)
                        reply = mock.replies[min(turns, len(mock.replies) - 1)]
                else:
                    turns, reply = 99, [{"type": "text", "text": "ok"}]
                self._send("text/event-stream", _sse(reply, turns))

            def do_GET(self) -> None:
                self._send("application/json", b'{"data": [], "has_more": false}')

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def _short(value: Any, whole: int = 12_200, keep: int = 2_000) -> Any:
    """``value`` with every string over ``whole`` characters kept as its length, head and tail."""
    if isinstance(value, str) and len(value) > whole:
        return {"length": len(value), "head": value[:keep], "tail": value[-keep:]}
    if isinstance(value, list):
        return [_short(v, whole, keep) for v in value]
    if isinstance(value, dict):
        return {k: _short(v, whole, keep) for k, v in value.items()}
    return value


def _model_view(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per request after the first: its tool results and system-role texts (the last message on)."""
    view = []
    for body in bodies[1:]:
        seen: list[dict[str, Any]] = []
        for message in body["messages"][-3:]:
            content = message.get("content")
            if message.get("role") == "system":
                if "# Environment" not in json.dumps(content)[:200]:  # the vendor's prompt
                    seen.append({"system": content})
            elif isinstance(content, list):
                for block in content:
                    if block.get("type") == "tool_result":
                        seen.append({"tool_result": block})
                    elif block.get("type") == "text" and message.get("role") == "user":
                        seen.append({"user_text": block["text"]})
        view.append({"messages": len(body["messages"]), "seen": seen})
    return view


def record(
    claude: str, name: str, case: dict[str, Any], mock: Mock, hook_script: Path
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"rec-{name}-") as tmp:
        root = Path(tmp)
        project, config, home = root / "project", root / "config", root / "home"
        for d in (project, config, home):
            d.mkdir()
        for rel, text in case.get("files", {}).items():
            (project / rel).write_text(text)
        log = root / "hooks.jsonl"
        hooks: dict[str, Any] = {}
        for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
            command = f"python3 {hook_script} {event}"
            if event in case.get("hook", {}):
                command = case["hook"][event]
            hooks[event] = [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]
        settings = root / "settings.json"
        settings.write_text(json.dumps({"hooks": hooks}))
        with mock.lock:
            mock.replies = _substitute(case["replies"], str(project))
            mock.bodies = []
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        env |= {
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": mock.url,
            "ANTHROPIC_API_KEY": "sk-rec-loopback",
            "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "IS_SANDBOX": "1",
            "CASE_HOOK_LOG": str(log),
            **case.get("env", {}),
        }
        argv = [
            claude,
            "-p",
            "go",
            "--output-format",
            "stream-json",
            "--verbose",
            "--settings",
            str(settings),
            "--dangerously-skip-permissions",
            "--model",
            "claude-rec",
        ]
        done = subprocess.run(
            argv, cwd=project, env=env, capture_output=True, text=True, timeout=300
        )
        if raw_dir := os.environ.get("RECORD_RAW_DIR"):
            Path(raw_dir, f"{name}.json").write_text(json.dumps(mock.bodies))
        payloads = (
            [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        )
        files = {}
        for path in sorted(config.rglob("tool-results/*")):
            if path.is_file():
                data = path.read_bytes()
                rel = str(path.relative_to(config))
                files[rel] = {
                    "bytes": len(data),
                    "mode": oct(path.stat().st_mode & 0o777),
                    "dir_mode": oct(path.parent.stat().st_mode & 0o777),
                    "text": _short(data.decode("utf-8", "replace")),
                }
        return {
            "exit_code": done.returncode,
            "stderr": done.stderr[-2000:],
            "config_dir": str(config),
            "project_dir": str(project),
            "model_view": _short(_model_view(mock.bodies)),
            "hooks": _short([{"event": p["event"], "payload": p["payload"]} for p in payloads]),
            "tool_results_files": files,
        }


def main() -> int:
    claude, out = sys.argv[1], Path(sys.argv[2])
    only = sys.argv[3:]
    hook_script = Path(os.environ.get("RECORD_HOOK", "/work/shared/conformance/record_hook.py"))
    mock = Mock()
    recorded = json.loads(out.read_text()) if out.exists() and only else {}
    version = subprocess.run([claude, "--version"], capture_output=True, text=True).stdout.strip()
    recorded["cli_version"] = version
    for name, case in CASES.items():
        if only and name not in only:
            continue
        print("recording", name, flush=True)
        recorded[name] = {
            "case": _short(case, 300, 100),
            **record(claude, name, case, mock, hook_script),
        }
        out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
