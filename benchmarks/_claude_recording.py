"""What the scripts that record the real Claude Code share (``record_claude_*.py``).

``RecordingMock``: a loopback Anthropic Messages API (a context manager, on a free port in a
daemon thread). A main-loop request (one offering Bash) with ``i`` assistant turns in its
history gets ``replies[i]`` (raw content blocks; past the end, the last), streamed as the
API streams; ``fail`` (a status, an error body, headers) fails every Messages request
instead. Side requests (a title, a quota probe) get ``ok`` (``side``, which a recording may
override); with ``sub_replies``, a request offering Bash but no ``Agent`` (a subagent's) gets
those instead; token counting, model lists and other endpoints a harmless answer. Each
main request's body, headers and time since ``load`` are kept. ``sse`` is the stream for a
list of blocks.

``Place``: a private run folder (``project``, ``home``, ``home/.claude`` the config dir);
``claude_env``: the environment Claude Code records in (the mock's URL and a dummy key, its
own ``HOME`` and ``CLAUDE_CONFIG_DIR``, no updater, telemetry or non-essential traffic);
``run_claude``: one headless run in the project. ``short`` keeps a fixture small,
``substitute`` puts the run's project path into a script, ``claude_version`` asks the binary.

``record_cases``: a recording script's ``main``: ``SCRIPT CLAUDE OUT.json [CASE ...]`` records
each case (or only the named ones, into OUT.json's earlier cases) against one mock, OUT.json
rewritten after each; ``record_hook`` is the corpus's ``record_hook.py`` the scripts register.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, TypeVar

from _loopback import Served

__all__ = [
    "DONE",
    "Place",
    "RecordingMock",
    "claude_env",
    "claude_version",
    "record_cases",
    "record_hook",
    "run_claude",
    "short",
    "sse",
    "substitute",
    "tool_use",
]

Blocks = list[dict[str, Any]]
DONE: Blocks = [{"type": "text", "text": "done"}]


def tool_use(ident: str, name: str, **arguments: Any) -> dict[str, Any]:
    """A ``tool_use`` block calling ``name`` with ``arguments``."""
    return {"type": "tool_use", "id": ident, "name": name, "input": arguments}


def sse(blocks: Blocks, turn: int, *, model: str = "claude-rec") -> bytes:
    """The event stream the Messages API sends for a reply of ``blocks``."""
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
        "model": model,
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
        start_block = {"type": "content_block_start", "index": i, "content_block": opening}
        events += [
            ("content_block_start", start_block),
            ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": i}),
        ]
    tool = any(b["type"] == "tool_use" for b in blocks)
    stop = {"stop_reason": "tool_use" if tool else "end_turn", "stop_sequence": None}
    events += [
        ("message_delta", {"type": "message_delta", "delta": stop, "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return b"".join(f"event: {n}\ndata: {json.dumps(d)}\n\n".encode() for n, d in events)


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)]


def _is_main(body: dict[str, Any]) -> bool:
    return "Bash" in _tool_names(body)


class RecordingMock(Served):
    """The loopback Messages API a recording runs Claude Code against."""

    def __init__(self, *, model: str = "claude-rec") -> None:
        self.model = model
        self.replies: list[Blocks] = [DONE]
        self.sub_replies: list[Blocks] | None = None
        self.fail: tuple[int, dict[str, Any], dict[str, str]] | None = None
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.times: list[float] = []
        self.lock = threading.Lock()
        self._start = time.time()
        super().__init__(self._handler())

    def load(
        self,
        replies: Sequence[Blocks] = (DONE,),
        *,
        fail: tuple[int, dict[str, Any], dict[str, str]] | None = None,
        sub_replies: Sequence[Blocks] | None = None,
    ) -> None:
        """The next run's script (or failure); what was kept so far is dropped."""
        with self.lock:
            self.replies, self.fail = list(replies), fail
            self.sub_replies = None if sub_replies is None else list(sub_replies)
            self.bodies, self.headers, self.times = [], [], []
            self._start = time.time()

    def _keep(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self.lock:
            self.bodies.append(body)
            self.headers.append(headers)
            self.times.append(round(time.time() - self._start, 2))

    def answer(self, path: str, raw: bytes, headers: dict[str, str]) -> tuple[int, str, bytes]:
        """The status, content type and body for a POST to ``path``."""
        if not path.endswith("/v1/messages"):
            return 200, "application/json", b'{"input_tokens": 10}'
        body = json.loads(raw or b"{}")
        if self.fail is not None:
            self._keep(body, headers)
            return self.fail[0], "application/json", json.dumps(self.fail[1]).encode()
        if not _is_main(body):
            return 200, "text/event-stream", sse(self.side(body), 99)
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        self._keep(body, headers)
        with self.lock:
            script = self.replies
            if self.sub_replies is not None and "Agent" not in _tool_names(body):
                script = self.sub_replies
            reply = script[min(turn, len(script) - 1)]
        return 200, "text/event-stream", sse(reply, turn, model=self.model)

    def side(self, body: dict[str, Any]) -> Blocks:
        """The answer to a side request (one offering no Bash): a title, a probe, a judge."""
        return [{"type": "text", "text": "ok"}]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, kind: str, data: bytes, extra: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                seen = {k.lower(): v for k, v in self.headers.items()}
                status, kind, data = mock.answer(self.path.split("?", 1)[0], raw, seen)
                extra = mock.fail[2] if mock.fail is not None and status != 200 else {}
                self._send(status, kind, data, extra)

            def do_GET(self) -> None:
                self._send(200, "application/json", b'{"data": [], "has_more": false}', {})

        return Handler


@dataclass(frozen=True)
class Place:
    """A run's private folder: the project Claude Code runs in, its home and config dir."""

    root: Path

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def config(self) -> Path:
        return self.home / ".claude"

    @classmethod
    def make(cls, prefix: str, *, git: bool = False, files: dict[str, str] | None = None) -> Place:
        """A new folder under the system's temp dir; ``files`` written in the project."""
        place = cls(Path(tempfile.mkdtemp(prefix=f"rec-{prefix}-")))
        place.project.mkdir()
        place.config.mkdir(parents=True)
        for rel, text in (files or {}).items():
            (place.project / rel).parent.mkdir(parents=True, exist_ok=True)
            (place.project / rel).write_text(text)
        if git:
            subprocess.run(["git", "init", "-q"], cwd=place.project, check=True)
        return place

    def placeholders(self, text: str) -> str:
        """``text`` with this run's paths as the fixtures write them."""
        for path, name in (
            (self.project, "${PROJECT_DIR}"),
            (self.config, "${CONFIG_DIR}"),
            (self.home, "${HOME}"),
            (self.root, "${RUN_DIR}"),
        ):
            text = text.replace(str(path), name)
        return text


def claude_env(url: str, place: Place, **extra: str) -> dict[str, str]:
    """Claude Code's environment for a recording against the mock at ``url``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    return env | {
        "HOME": str(place.home),
        "CLAUDE_CONFIG_DIR": str(place.config),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-rec-loopback",
        "IS_SANDBOX": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        **extra,
    }


def run_claude(
    claude: str, args: Sequence[str], place: Place, env: dict[str, str], *, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``claude ARGS`` headless in ``place``'s project (no stdin), its output captured."""
    return subprocess.run(
        [claude, *args],
        cwd=place.project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def claude_version(claude: str) -> str:
    done = subprocess.run([claude, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip()


def short(value: Any, whole: int = 12_200, keep: int = 2_000) -> Any:
    """``value`` with every string over ``whole`` characters kept as its length, head and tail."""
    if isinstance(value, str) and len(value) > whole:
        return {"length": len(value), "head": value[:keep], "tail": value[-keep:]}
    if isinstance(value, list):
        return [short(v, whole, keep) for v in value]
    if isinstance(value, dict):
        return {k: short(v, whole, keep) for k, v in value.items()}
    return value


def substitute(value: Any, project: str) -> Any:
    """``value`` (JSON) with ``${PROJECT_DIR}`` the run's project."""
    if isinstance(value, str):
        return value.replace("${PROJECT_DIR}", project)
    if isinstance(value, list):
        return [substitute(v, project) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, project) for k, v in value.items()}
    return value


def record_hook() -> Path:
    """The corpus's ``record_hook.py`` (``RECORD_HOOK`` names another)."""
    return Path(os.environ.get("RECORD_HOOK", "/work/shared/conformance/record_hook.py"))


Case = TypeVar("Case")
Mock = TypeVar("Mock", bound=Served)


def record_cases(
    doc: str,
    cases: Mapping[str, Case],
    record: Callable[[str, str, Case, Mock], Any],
    mock: Callable[[], Mock],
    *,
    version: bool = True,
    sort_keys: bool = False,
) -> int:
    """``SCRIPT CLAUDE OUT.json [CASE ...]``: ``record(claude, name, case, mock)`` per case.

    With case names, only those are recorded, into what OUT.json held. OUT.json is rewritten
    after each case (an interrupted run keeps what it made), with ``cli_version`` (the
    binary's ``--version``) first unless ``version`` is false. ``doc`` is the usage shown on
    a wrong command line (the script's docstring).
    """
    if len(sys.argv) < 3 or any(name not in cases for name in sys.argv[3:]):
        print(doc, f"cases: {' '.join(cases)}", sep="\n", file=sys.stderr)
        return 2
    claude, out, only = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    recorded: dict[str, Any] = json.loads(out.read_text()) if out.exists() and only else {}
    if version:
        recorded["cli_version"] = claude_version(claude)
    with mock() as served:
        for name, case in cases.items():
            if only and name not in only:
                continue
            print("recording", name, flush=True)
            recorded[name] = record(claude, name, case, served)
            text = json.dumps(recorded, indent=1, ensure_ascii=False, sort_keys=sort_keys)
            out.write_text(text + "\n")
    return 0
