"""The OpenAI-compatible model's start-up, per backend: imports, and process start to first byte.

Run: .venv/bin/python benchmarks/bench_model_client.py
For each backend (``asyncio``, dsh's own HTTP/1.1 client, the default; ``httpx``,
dsh's transport over httpx2; and ``openai-sdk``), interleaved in one run:

- import: ``python -X importtime -c "import dsh.models; import <the backend's module>"``,
  the cumulative import time of what the backend adds once ``dsh.models`` is loaded;
- first byte: wall time from spawning a process that makes one streamed call
  (``OpenAICompatibleModel(...).complete``) to a loopback mock receiving the first
  byte of its request;
- ``dsh run`` first byte: the same for ``dsh run --model m --base-url URL "hi"``
  (``$DSH_MODEL_BACKEND`` picks the backend), the whole command's start-up.

Prints the medians and the ratios of the others to asyncio. dsh's bytecode is compiled
first, as an install does.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench_claude_cases import compile_bytecode

RUNS = 15
BACKENDS = {
    "asyncio": "dsh.models._http",
    "httpx": "dsh.models._httpx",
    "openai-sdk": "dsh.models._sdk",
}
CALL = textwrap.dedent(
    """
    import asyncio, sys
    from dsh.models import ModelRequest, OpenAICompatibleModel
    from dsh.messages import UserMessage

    async def call():
        model = OpenAICompatibleModel("m", sys.argv[1], api_key="k", backend=sys.argv[2])
        async with model:
            await model.complete(ModelRequest((UserMessage("hi"),)))

    asyncio.run(call())
    """
)
_CHUNK = {"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}
_REPLY = f"data: {json.dumps(_CHUNK)}\n\ndata: [DONE]\n\n".encode()


class _Mock(ThreadingHTTPServer):
    daemon_threads = True
    first_byte: float | None = None


class _Handler(BaseHTTPRequestHandler):
    server: _Mock

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.rfile.peek(1)  # type: ignore[attr-defined]  # blocks until the request's first byte
        if self.server.first_byte is None:
            self.server.first_byte = time.perf_counter()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(_REPLY)))
        self.end_headers()
        self.wfile.write(_REPLY)


@contextmanager
def mock() -> Iterator[_Mock]:
    server = _Mock(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01})
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def first_byte(server: _Mock, argv: list[str], env: dict[str, str], cwd: Path) -> float:
    server.first_byte = None
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, check=True, capture_output=True)
    assert server.first_byte is not None, "the mock was never asked"
    return server.first_byte - start


def call_argv(url: str, backend: str) -> list[str]:
    return [sys.executable, "-c", CALL, url, backend]


def run_argv(url: str, root: Path) -> list[str]:
    project, sessions = root / "project", root / "sessions"
    project.mkdir(exist_ok=True)
    return [
        *(sys.executable, "-m", "dsh", "run", "hi", "--model", "m", "--base-url", url),
        *("--project", str(project), "--session-dir", str(sessions)),
    ]


def import_time(module: str, env: dict[str, str]) -> float:
    """Seconds of cumulative import time of what ``module`` adds over ``dsh.models``."""
    code = f"import dsh.models; import {module}"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    rows: list[tuple[str, int]] = []  # (name indented by depth, cumulative µs), in output order
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((parts[2][1:], int(parts[1])))
    after = next(i for i, (name, _) in enumerate(rows) if name == "dsh.models") + 1
    return sum(us for name, us in rows[after:] if not name.startswith(" ")) / 1e6


def main() -> None:
    compile_bytecode()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DSH_", "OPENAI_"))}
    env["NO_COLOR"] = "1"
    samples: dict[str, dict[str, list[float]]] = {
        b: {"import": [], "call": [], "run": []} for b in BACKENDS
    }
    with mock() as server, tempfile.TemporaryDirectory(prefix="dsh-bench-") as tmp:
        root = Path(tmp)
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        for backend in BACKENDS:  # warm the page cache once
            first_byte(server, call_argv(url, backend), env, root)
        for _ in range(RUNS):
            for backend, module in BACKENDS.items():
                picked = {**env, "DSH_MODEL_BACKEND": backend}
                runs = samples[backend]
                runs["import"].append(import_time(module, env))
                runs["call"].append(first_byte(server, call_argv(url, backend), env, root))
                runs["run"].append(first_byte(server, run_argv(url, root), picked, root))
    med = {b: {k: statistics.median(v) for k, v in s.items()} for b, s in samples.items()}
    print(f"{RUNS} interleaved runs per backend, medians in seconds")
    print(f"{'backend':<12} {'import':>8} {'call: first byte':>17} {'dsh run: first byte':>20}")
    for backend, m in med.items():
        print(f"{backend:<12} {m['import']:>8.4f} {m['call']:>17.4f} {m['run']:>20.4f}")
    ours = med["asyncio"]
    for other in ("httpx", "openai-sdk"):
        them = med[other]
        print(
            f"{other} / asyncio: "
            + ", ".join(
                f"{k} {them[k] / ours[k]:.2f}x ({(them[k] - ours[k]) * 1000:+.0f} ms)"
                for k in ("import", "call", "run")
            )
        )


if __name__ == "__main__":
    main()
