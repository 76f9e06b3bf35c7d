"""``dsh acp`` latency: start-up to the first answer, and one prompt turn, beside the host.

Run: .venv/bin/python benchmarks/bench_acp.py
Prints the median wall time of: spawning ``dsh acp`` until ``initialize`` is
answered; ``session/new``; and one ``session/prompt`` turn with a scripted
model that makes one real Bash call (its updates included), beside the same
turn run in-process on ``open_host`` (the baseline: what dsh costs without ACP).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, Client, connect_to_agent, text_block

from dsh.host import HostOptions, open_host
from dsh.models import ScriptedModel

STARTS = 7
TURNS = 30
SCRIPT = {
    "responses": [
        [{"type": "tool_use", "name": "Bash", "input": {"command": "echo hi"}}],
        [{"type": "text", "text": "done"}],
    ]
}


class _Quiet:
    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("not asked in this benchmark")


async def _spawn(root: Path, script: Path) -> tuple[asyncio.subprocess.Process, Any]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "dsh",
        "acp",
        "--model",
        f"scripted:{script}",
        "--session-dir",
        str(root / "sessions"),
        "--no-claude-hooks",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    return proc, connect_to_agent(cast(Client, _Quiet()), proc.stdin, proc.stdout)


async def _stop(proc: asyncio.subprocess.Process, conn: Any) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    await proc.wait()
    await conn.close()


async def measure_acp(root: Path, project: Path, script: Path) -> dict[str, float]:
    starts, news = [], []
    for _ in range(STARTS):
        began = time.perf_counter()
        proc, conn = await _spawn(root, script)
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        starts.append(time.perf_counter() - began)
        began = time.perf_counter()
        await conn.new_session(cwd=str(project), mcp_servers=[])
        news.append(time.perf_counter() - began)
        await _stop(proc, conn)
    proc, conn = await _spawn(root, script)
    await conn.initialize(protocol_version=PROTOCOL_VERSION)
    turns = []
    for _ in range(TURNS):
        session = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        began = time.perf_counter()
        await conn.prompt(session_id=session, prompt=[text_block("run it")])
        turns.append(time.perf_counter() - began)
    await _stop(proc, conn)
    return {
        "start": statistics.median(starts),
        "new": statistics.median(news),
        "turn": statistics.median(turns),
    }


async def measure_host(root: Path, project: Path) -> float:
    turns = []
    for _ in range(TURNS):
        options = HostOptions(
            project=project, model=ScriptedModel(SCRIPT), session_dir=root / "host-sessions"
        )
        async with open_host(options) as host:
            began = time.perf_counter()
            host.agent.send("run it")
            await host.agent.run_turn()
            turns.append(time.perf_counter() - began)
    return statistics.median(turns)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="dsh-bench-acp-") as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        script = root / "script.json"
        script.write_text(json.dumps(SCRIPT))
        acp = asyncio.run(measure_acp(root, project, script))
        host = asyncio.run(measure_host(root, project))
    print(
        f"dsh acp spawn -> initialize answered: {acp['start'] * 1000:7.1f} ms (median of {STARTS})"
    )
    print(f"session/new:                          {acp['new'] * 1000:7.1f} ms")
    print(
        f"session/prompt, one Bash call + text:  {acp['turn'] * 1000:7.1f} ms (median of {TURNS})"
    )
    print(f"the same turn on open_host in-process: {host * 1000:7.1f} ms")
    print(f"ACP turn / host turn:                  {acp['turn'] / host:7.2f}x")


if __name__ == "__main__":
    main()
