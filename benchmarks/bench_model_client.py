"""The OpenAI-compatible model's start-up, per backend: imports, and process start to first byte.

Run: .venv/bin/python benchmarks/bench_model_client.py
For each backend (``httpx``, dsh's own transport over httpx2, the default; and
``openai-sdk``), interleaved in one run:

- import: ``python -X importtime -c "import dsh.models; import <the backend's module>"``,
  the cumulative import time of what the backend adds once ``dsh.models`` is loaded;
- first byte: wall time from spawning a process that makes one streamed call
  (``OpenAICompatibleModel(...).complete``) to a loopback mock receiving the first
  byte of its request.

Prints the medians and the ratio openai-sdk / httpx. dsh's bytecode is compiled
first, as an install does.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench_claude_cases import compile_bytecode

RUNS = 15
BACKENDS = {"httpx": "dsh.models._http", "openai-sdk": "dsh.models._sdk"}
CALL = textwrap.dedent(
    """
    import asyncio, sys
    from dsh.models import ModelRequest, OpenAICompatibleModel
    from dsh.session import UserMessage

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


def first_byte(server: _Mock, backend: str, env: dict[str, str]) -> float:
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.first_byte = None
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", CALL, url, backend], env=env, check=True, capture_output=True
    )
    assert server.first_byte is not None, "the mock was never asked"
    return server.first_byte - start


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
    imports: dict[str, list[float]] = {b: [] for b in BACKENDS}
    firsts: dict[str, list[float]] = {b: [] for b in BACKENDS}
    with mock() as server:
        for backend in BACKENDS:  # warm the page cache once
            first_byte(server, backend, env)
        for _ in range(RUNS):
            for backend, module in BACKENDS.items():
                imports[backend].append(import_time(module, env))
                firsts[backend].append(first_byte(server, backend, env))
    print(f"{RUNS} interleaved runs per backend, medians")
    print(f"{'backend':<12} {'import (s)':>11} {'first byte (s)':>15}")
    med = {b: (statistics.median(imports[b]), statistics.median(firsts[b])) for b in BACKENDS}
    for backend, (imp, first) in med.items():
        print(f"{backend:<12} {imp:>11.4f} {first:>15.4f}")
    (ours_imp, ours_first), (sdk_imp, sdk_first) = med["httpx"], med["openai-sdk"]
    print(
        f"openai-sdk / httpx: import {sdk_imp / ours_imp:.1f}x, first byte"
        f" {sdk_first / ours_first:.2f}x ({(sdk_first - ours_first) * 1000:.0f} ms sooner)"
    )


if __name__ == "__main__":
    main()
