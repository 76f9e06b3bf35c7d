"""MCP servers' cost: time to the first model request with 0, 1 and 5 stdio servers, and an
MCP tool call's overhead over the server's own time.

Run: .venv/bin/python benchmarks/bench_mcp.py [--runs N] [--before SRC]

The servers are ``_mcp_tiny_server.py`` (no SDK: its own start is a bare ``python -S``),
given with ``--mcp-config``. First request: from ``dsh run``'s spawn to the loopback model's
first request (``_loopback.LoopbackServer``), medians of ``--runs`` interleaved runs; the
servers' own start and handshake (the same, measured alone: spawn, initialize, tools/list)
is printed beside it so that dsh's part can be read off. Call overhead: ``tools/call`` of
``ping`` through ``dsh.mcp``'s connection against the same request written to the server
by hand (one JSON line, one line back), medians of 200 calls each, in this process.
``--before SRC`` (another checkout's ``src``, e.g. main's) runs the same first requests with
that tree too, interleaved, for a before/after in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _loopback import LoopbackServer

ROOT = Path(__file__).resolve().parent.parent
TINY = Path(__file__).with_name("_mcp_tiny_server.py")
ENTRY = "import sys; from dsh.cli import main; sys.argv[0] = 'dsh'; sys.exit(main())"
SERVER = [sys.executable, "-S", str(TINY)]


def answer(_raw: bytes) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}}]}
    done = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode()


def first_request(server: LoopbackServer, argv: list[str], env: dict[str, str], cwd: Path) -> float:
    before = len(server.arrivals)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    if done.returncode != 0 or len(server.arrivals) == before:
        sys.exit(f"{argv} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return server.arrivals[before] - start


def handshake_alone() -> float:
    """One tiny server's own start, initialize and tools/list, by hand."""
    start = time.perf_counter()
    proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None
    assert stdout is not None
    for n, method in enumerate(("initialize", "tools/list")):
        params = {"protocolVersion": "2025-06-18"} if method == "initialize" else {}
        message = {"jsonrpc": "2.0", "id": n, "method": method, "params": params}
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()
        stdout.readline()
    took = time.perf_counter() - start
    stdin.close()
    proc.wait()
    return took


def startup(runs: int, before: str | None) -> None:
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    trees = {"": str(ROOT / "src")} | ({"before ": before} if before else {})
    with tempfile.TemporaryDirectory(prefix="dsh-mcp-") as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        (root / "home").mkdir()
        env = base | {
            "DSH_API_KEY": "k",
            "HOME": str(root / "home"),
            "DSH_DATA_DIR": str(root / "data"),
        }
        server = LoopbackServer(answer)
        run = [sys.executable, "-c", ENTRY, "run", "--model", "m", "--base-url", server.url]
        run += ["--project", str(root / "project"), "--session-dir", str(root / "s"), "say hi"]
        argvs = {}
        for count in (0, 1, 5):
            servers = {f"s{i}": {"command": SERVER[0], "args": SERVER[1:]} for i in range(count)}
            config = root / f"mcp-{count}.json"
            config.write_text(json.dumps({"mcpServers": servers}))
            argvs[count] = [*run, "--mcp-config", str(config)] if count else run
        samples: dict[tuple[str, int], list[float]] = {(t, n): [] for t in trees for n in argvs}
        alone: list[float] = []
        for _ in range(runs):
            for tree, src in trees.items():
                for count, argv in argvs.items():
                    took = first_request(server, argv, env | {"PYTHONPATH": src}, root)
                    samples[tree, count].append(took)
            alone.append(handshake_alone())
        server.httpd.shutdown()
    own = statistics.median(alone) * 1000
    print(f"time to the first model request, medians of {runs} runs, ms")
    print(f"(one tiny server's own start + handshake, alone: {own:.1f} ms;")
    print(f" load average {os.getloadavg()[0]:.1f} at the end)")
    print("| tree | stdio servers | first request | over 0 servers |")
    print("| --- | ---: | ---: | ---: |")
    for (tree, count), values in samples.items():
        ms = statistics.median(values) * 1000
        base_ms = statistics.median(samples[tree, 0]) * 1000
        print(f"| {tree or 'this'} | {count} | {ms:.1f} | {ms - base_ms:+.1f} |")


def by_hand(calls: int) -> list[float]:
    """``tools/call`` of ``ping`` written to the server by hand: one line out, one line back."""
    proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None
    assert stdout is not None
    direct: list[float] = []
    for n in range(calls):
        message = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "ping"}}
        start = time.perf_counter()
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()
        stdout.readline()
        direct.append(time.perf_counter() - start)
    stdin.close()
    proc.wait()
    return direct


async def through_dsh(calls: int) -> list[float]:
    """The same calls through ``dsh.mcp``'s connection (dsh's own stdio client, ``_rpc``)."""
    sys.path.insert(0, str(ROOT / "src"))
    from dsh.mcp import McpServer
    from dsh.mcp._connection import McpConnection

    spec = McpServer(
        name="tiny",
        transport="stdio",
        source="dynamic",
        where="bench",
        command=SERVER[0],
        args=tuple(SERVER[1:]),
    )
    connection = McpConnection(spec, env=dict(os.environ), cwd=str(ROOT))
    connection.start()
    await connection.ready()
    assert connection.state == "connected", connection.error
    through: list[float] = []
    for _ in range(calls):
        start = time.perf_counter()
        await connection.call("ping", {})
        through.append(time.perf_counter() - start)
    await connection.close()
    return through


def call_overhead(calls: int) -> None:
    through = asyncio.run(through_dsh(calls))
    direct = by_hand(calls)
    mine, raw = statistics.median(through) * 1e6, statistics.median(direct) * 1e6
    print(f"\nan MCP tools/call, medians of {calls} calls, µs")
    print("| through dsh.mcp (its stdio client) | by hand (one line each way) | overhead |")
    print("| ---: | ---: | ---: |")
    print(f"| {mine:.0f} | {raw:.0f} | {mine - raw:+.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--before", help="another checkout's src, run interleaved")
    args = parser.parse_args()
    startup(args.runs, args.before)
    call_overhead(args.calls)


if __name__ == "__main__":
    main()
