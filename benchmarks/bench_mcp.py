"""MCP servers' cost: time to the first model request with 0, 1 and 5 stdio servers, and an
MCP tool call's overhead over the server's own time.

Run: .venv/bin/python benchmarks/bench_mcp.py [--runs N] [--before SRC]

The servers are ``_mcp_tiny_server.py`` (no SDK: its own start is a bare ``python -S``),
given with ``--mcp-config``. First request: from ``dsh run``'s spawn to the loopback model's
first request (``_loopback.LoopbackServer``), medians of ``--runs`` interleaved runs; the
servers' own start and handshake (the same, measured alone: spawn, initialize, tools/list)
is printed beside it so that dsh's part can be read off. Medians, then bests (the least
of the runs: what a machine shared with other work still shows of an idle one's figure).
Call overhead: ``tools/call`` of ``ping`` through ``dsh.mcp``'s connection against the same
request written to the server by hand (one JSON line, one line back), medians of 200 calls
each, in this process.
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

from _anthropic_mock import AnthropicMock, assistant_turns, is_main_loop
from _claude_side import claude_path
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


def handshake_alone(count: int) -> float:
    """``count`` tiny servers' own start, initialize and tools/list, by hand, in parallel."""
    start = time.perf_counter()
    procs = [
        subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(count)
    ]
    for n, method in enumerate(("initialize", "tools/list")):
        params = {"protocolVersion": "2025-06-18"} if method == "initialize" else {}
        message = {"jsonrpc": "2.0", "id": n, "method": method, "params": params}
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        for proc in procs:
            assert proc.stdout is not None
            proc.stdout.readline()
    took = time.perf_counter() - start
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.close()
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
        alone: dict[int, list[float]] = {1: [], 5: []}
        for _ in range(runs):
            for tree, src in trees.items():
                for count, argv in argvs.items():
                    took = first_request(server, argv, env | {"PYTHONPATH": src}, root)
                    samples[tree, count].append(took)
            for count, times in alone.items():
                times.append(handshake_alone(count))
        server.httpd.shutdown()
    for name, pick in (("medians", statistics.median), ("bests", min)):
        own = {count: pick(times) * 1000 for count, times in alone.items()}
        own[0] = 0.0
        print(f"time to the first model request, {name} of {runs} runs, ms")
        print("(the servers' own start + handshake, by hand, in parallel:", end=" ")
        print(f"1: {own[1]:.1f} ms, 5: {own[5]:.1f} ms;")
        print(f" load average {os.getloadavg()[0]:.1f} at the end)")
        print("| tree | stdio servers | first request | over 0 servers | less the servers' own |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for (tree, count), values in samples.items():
            ms = pick(values) * 1000
            over = ms - pick(samples[tree, 0]) * 1000
            row = f"| {tree or 'this'} | {count} | {ms:.1f} | {over:+.1f} |"
            print(f"{row} {over - own[count]:+.1f} |")
        print()


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


class McpCallScript(AnthropicMock):
    """The Anthropic mock scripted to call ``tool`` (``mcp__tiny__ping``) with ``tool_input``
    ``calls`` times, one call a turn, then end; the main-loop requests' arrival times and
    bodies are kept."""

    def __init__(
        self, calls: int, tool: str = "mcp__tiny__ping", tool_input: dict[str, object] | None = None
    ) -> None:
        super().__init__()
        self.calls = calls
        self.tool = tool
        self.tool_input = tool_input or {}
        self.arrivals: list[float] = []
        self.seen: list[dict[str, object]] = []

    def answer(
        self, path: str, raw: bytes, headers: dict[str, str] | None = None
    ) -> tuple[str, bytes]:
        body = json.loads(raw or b"{}") if path.endswith("/v1/messages") else {}
        if not isinstance(body, dict) or not is_main_loop(body):
            return super().answer(path, raw, headers)
        self.arrivals.append(time.perf_counter())
        self.seen.append(body)
        turn = assistant_turns(body)
        if turn < self.calls:
            block = {"type": "tool_use", "id": f"toolu_{turn:03d}", "name": self.tool}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(self.tool_input)}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": "done"}
            stop = "end_turn"
        usage = {"input_tokens": 10, "output_tokens": 1}
        message = {"id": f"msg_{turn}", "type": "message", "role": "assistant", "content": []}
        events: list[tuple[str, dict[str, object]]] = [
            ("message_start", {"message": message | {"model": "m", "usage": usage}}),
            ("content_block_start", {"index": 0, "content_block": block | {"input": {}}}),
            ("content_block_delta", {"index": 0, "delta": delta}),
            ("content_block_stop", {"index": 0}),
            ("message_delta", {"delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}}),
            ("message_stop", {}),
        ]
        if block["type"] == "text":
            events[1] = ("content_block_start", {"index": 0, "content_block": block})
        data = b"".join(
            f"event: {name}\ndata: {json.dumps({'type': name, **fields})}\n\n".encode()
            for name, fields in events
        )
        return "text/event-stream", data


def _call_gaps(argv: list[str], env: dict[str, str], cwd: Path, calls: int) -> list[float]:
    """The time from each turn's request to the next, the turn being one MCP call."""
    mock = McpCallScript(calls)
    with mock:
        env = env | {"ANTHROPIC_BASE_URL": mock.url, "ANTHROPIC_API_KEY": "sk-loopback"}
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
        if done.returncode != 0 or len(mock.arrivals) != calls + 1:
            sys.exit(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
        last = json.dumps(mock.seen[-1])
        if "pong" not in last:
            sys.exit(f"{argv[0]}: the tool's result never reached the model: {last[-1500:]}")
        return [b - a for a, b in zip(mock.arrivals, mock.arrivals[1:], strict=False)][1:]


def beside_claude(calls: int, runs: int) -> None:
    """An MCP call's turn in dsh and in the real Claude Code, the same server and script."""
    claude = claude_path()
    with tempfile.TemporaryDirectory(prefix="dsh-mcp-cc-") as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        config = root / "mcp.json"
        tiny = {"command": SERVER[0], "args": SERVER[1:]}
        config.write_text(json.dumps({"mcpServers": {"tiny": tiny}}))
        base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        dsh_env = base | {"HOME": str(root / "home"), "DSH_DATA_DIR": str(root / "data")}
        dsh_env |= {"PYTHONPATH": str(ROOT / "src"), "DSH_API_KEY": "", "OPENAI_API_KEY": ""}
        prompt = "call the tool"
        dsh = [sys.executable, "-c", ENTRY, "run", "--project", str(root / "project")]
        dsh += ["--permission-mode", "bypassPermissions", "--mcp-config", str(config), prompt]
        tools = {"dsh": (dsh, dsh_env)}
        if claude is not None:
            cc_env = base | {"CLAUDE_CONFIG_DIR": str(root / "cc"), "DISABLE_AUTOUPDATER": "1"}
            cc_env |= {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "HOME": str(root / "h")}
            if os.geteuid() == 0:
                cc_env["IS_SANDBOX"] = "1"
            cc = [claude, "-p", prompt, "--dangerously-skip-permissions"]
            tools["claude"] = ([*cc, "--mcp-config", str(config), "--strict-mcp-config"], cc_env)
        gaps: dict[str, list[float]] = {name: [] for name in tools}
        for _ in range(runs):
            for name, (argv, env) in tools.items():
                gaps[name] += _call_gaps(argv, env, root / "project", calls)
    own = statistics.median(by_hand(200)) * 1000
    print("\na turn of one MCP call (ping on the tiny server), request to next request,")
    print(f"medians of {runs} runs x {calls - 1} calls, ms (the server's own: {own:.3f} ms)")
    print("| tool | a turn with one MCP call | over the server's own |")
    print("| --- | ---: | ---: |")
    for name, values in gaps.items():
        ms = statistics.median(values) * 1000
        print(f"| {name} | {ms:.1f} | {ms - own:+.1f} |")
    if claude is None:
        print("(Claude Code not found: $DSH_CLAUDE, PATH or make bench-tools)")
    else:
        ratio = statistics.median(gaps["dsh"]) / statistics.median(gaps["claude"])
        print(f"dsh / Claude Code: {ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--before", help="another checkout's src, run interleaved")
    parser.add_argument("--turns", type=int, default=10, help="MCP calls a side-by-side run makes")
    parser.add_argument("--only", choices=("startup", "call", "claude"), default=None)
    args = parser.parse_args()
    if args.only in (None, "startup"):
        startup(args.runs, args.before)
    if args.only in (None, "call"):
        call_overhead(args.calls)
    if args.only in (None, "claude"):
        beside_claude(args.turns, max(args.runs // 3, 1))


if __name__ == "__main__":
    main()
