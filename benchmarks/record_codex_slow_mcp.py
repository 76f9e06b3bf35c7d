"""Record how Codex 0.171 starts a slow MCP server (issue 30): does its first model request
wait for the server, and when do the server's tools reach the model?

usage: DSH_CODEX=... python benchmarks/record_codex_slow_mcp.py OUT.json

``codex exec`` against the Responses mock with two stdio servers of the standard library:
``quick`` answers at once, ``slow`` sleeps ``DELAY`` seconds before it reads anything. The
model calls ``slow``'s ``echo`` in its first reply, then runs ``sleep`` in the shell (past the
server's start), then calls ``echo`` again, then ends. Cases: the default
``startup_timeout_sec`` (10: longer than the sleep) and ``startup_timeout_sec = 1`` (shorter);
servers ready after 0.5 to 3 s under the default ``mcp_optional_startup_grace_ms``, under
``0`` (every server waited for), 1000, 1500, 2000 and 5000 ms.
Kept per model request: seconds since ``codex`` started, the MCP namespaces among its tools;
and the call's output, the exit code and the tail of stderr. Never run by ``make test``; its
output is ``tests/fixtures/codex_slow_mcp.json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _codex_side import ResponsesMock, codex_env, codex_path, exec_flags, provider_toml

from dsh.hooks.codex.config._trust import toml_string

DELAY = 3.0
SERVER = r"""
import json, sys, time
time.sleep(float(sys.argv[1]))
SCHEMA = {"type": "object", "properties": {"message": {"type": "string"}}}
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method = m.get("method")
    if method == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "s", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "echo", "inputSchema": SCHEMA}]}
    elif method == "tools/call":
        args = m["params"].get("arguments") or {}
        r = {"content": [{"type": "text", "text": "Echo: " + str(args.get("message"))}],
             "isError": False}
    else:
        r = {}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"""


def _servers(script: Path, delays: dict[str, float], timeout: float | None) -> str:
    lines: list[str] = []
    for name, delay in delays.items():
        args = ", ".join(toml_string(a) for a in (str(script), str(delay)))
        lines += [f"[mcp_servers.{name}]", f"command = {toml_string(sys.executable)}"]
        lines += [f"args = [{args}]"]
        if timeout is not None and name == "slow":
            lines.append(f"startup_timeout_sec = {timeout:g}")
        lines.append("")
    return "\n".join(lines)


def _namespaces(body: dict[str, Any]) -> list[str]:
    names = [t.get("name") for t in body.get("tools") or () if isinstance(t, dict)]
    return sorted(n for n in names if isinstance(n, str) and n.startswith("mcp__"))


def record(
    codex: str,
    name: str,
    delays: dict[str, float],
    *,
    timeout: float | None = None,
    grace_ms: int | None = None,
) -> dict[str, Any]:
    run = Path(tempfile.mkdtemp(prefix="dsh-rec-codex-slow-"))
    work, home = run / "w", run / "home" / ".codex"
    work.mkdir()
    home.mkdir(parents=True)
    script = run / "server.py"
    script.write_text(SERVER)
    with ResponsesMock() as mock:
        grace = "" if grace_ms is None else f"mcp_optional_startup_grace_ms = {grace_ms}\n"
        config = grace + provider_toml(mock.url, work) + "\n" + _servers(script, delays, timeout)
        (home / "config.toml").write_text(config)
        call = {"type": "function_call", "name": "echo", "arguments": {"message": "hi"}}
        call["namespace"] = "mcp__slow"
        wait = {"type": "auto_shell", "command": f"sleep {DELAY + 1:g}"}
        text = {"type": "text", "text": "done"}
        mock.load_script({"rules": [{"responses": [[call], [wait], [call], [text]]}]})
        arrivals: list[float] = []
        start = time.monotonic()
        done_event = threading.Event()

        def watch() -> None:
            while not done_event.is_set():
                while len(arrivals) < len(mock.main_requests()):
                    arrivals.append(round(time.monotonic() - start, 1))
                time.sleep(0.01)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        done = subprocess.run(
            [codex, "exec", *exec_flags(work), "go"], env=codex_env(home), cwd=work,
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        done_event.set()
        watcher.join()
        bodies = mock.main_requests()
    outputs = [
        item.get("output")
        for body in bodies
        for item in body.get("input") or ()
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    return {
        "case": name,
        "server_delays_sec": delays,
        "startup_timeout_sec": timeout,
        "mcp_optional_startup_grace_ms": grace_ms,
        "requests": [
            {"at_sec": at, "mcp_tools": _namespaces(body)}
            for at, body in zip(arrivals, bodies, strict=False)
        ],
        "call_outputs": outputs,
        "exit_code": done.returncode,
        "stderr_tail": done.stderr.replace(str(run), "${RUN_DIR}")[-1500:],
    }


def main() -> None:
    codex = codex_path()
    if codex is None:
        raise SystemExit("no codex: set DSH_CODEX")
    both = {"quick": 0.0, "slow": DELAY}
    steps = {"d05": 0.5, "d10": 1.0, "d15": 1.5, "slow": DELAY}
    cases = [
        record(codex, "slow-server-default-timeout", both),
        record(codex, "slow-server-timeout-1", both, timeout=1.0),
        record(codex, "delays-default-grace", steps),
        record(codex, "slow-server-grace-5000", both, grace_ms=5000),
        record(codex, "delays-grace-0", steps, grace_ms=0),
    ]
    # The default grace, bracketed: which of the servers ready after 0.5 to 2 s it takes.
    wide = {"d05": 0.5, "d10": 1.0, "d15": 1.5, "d20": 2.0, "slow": DELAY}
    cases += [record(codex, f"grace-{g}", wide, grace_ms=g) for g in (1000, 1500, 2000)]
    cases.append(record(codex, "grace-default", wide))
    Path(sys.argv[1]).write_text(json.dumps({"codex": "0.171", "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
