"""A model server that streams forever: dsh cuts the reply with a clear error, in bounded memory.

A real loopback server (``tests.models.raw_server``) answers the chat request with an
event stream that never ends, and ``dsh run`` talks to it through its own HTTP client.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import psutil

from tests.bounds.support import environment, of_type
from tests.models.raw_server import RawConn, raw_serving

_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


def _event(delta: Mapping[str, object]) -> bytes:
    line = "data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]}) + "\n\n"
    data = line.encode()
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _forever(delta: Mapping[str, object], pause: float) -> Callable[[RawConn], None]:
    def script(conn: RawConn) -> None:
        if conn.request() is None:
            return
        conn.send(_HEAD)
        piece = _event(delta)
        while True:
            conn.send(piece)
            if pause:
                time.sleep(pause)

    return script


def _run_against(tmp_path: Path, url: str, **env: str) -> tuple[int, str, int]:
    """``dsh run`` against ``url``: its exit code, output, and the peak RSS seen (bytes)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    environ = {**environment(tmp_path), "DSH_BASE_URL": url, "DSH_API_KEY": "k", **env}
    full = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    full.update({"NO_COLOR": "1", **environ})
    process = subprocess.Popen(
        [sys.executable, "-m", "dsh", "run", "go", "--model", "endless"],
        cwd=project,
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watched = psutil.Process(process.pid)
    peak = 0
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        try:
            peak = max(peak, watched.memory_info().rss)
        except psutil.Error:
            break
        time.sleep(0.05)
    if process.poll() is None:
        process.kill()
    out, err = process.communicate(timeout=10)
    return process.returncode, out + err, peak


def test_an_endless_stream_of_text_is_cut_at_the_size_bound(tmp_path: Path) -> None:
    delta = {"content": "x" * 60_000}
    with raw_serving(_forever(delta, 0)) as server:
        code, err, peak = _run_against(tmp_path, server.url, DSH_MODEL_MAX_REPLY_CHARS="2000000")
    assert code == 1, err
    assert "the reply is over 2,000,000 characters; it was cut off" in err
    assert peak < 300 * 1024 * 1024
    [end] = of_type(tmp_path, "turn/end")
    assert end["reason"] == "error"


def test_an_endless_tool_call_argument_is_cut_at_the_default_bound(tmp_path: Path) -> None:
    delta = {
        "tool_calls": [
            {"index": 0, "id": "c1", "function": {"name": "Write", "arguments": "y" * 60_000}}
        ]
    }
    with raw_serving(_forever(delta, 0)) as server:
        code, err, peak = _run_against(tmp_path, server.url)
    assert code == 1, err
    assert "the reply is over 8,388,608 characters; it was cut off" in err
    assert peak < 300 * 1024 * 1024


def test_a_slow_endless_stream_is_cut_at_the_time_bound(tmp_path: Path) -> None:
    started = time.monotonic()
    with raw_serving(_forever({"content": "z"}, 0.05)) as server:
        code, err, _ = _run_against(tmp_path, server.url, DSH_MODEL_REPLY_TIMEOUT="3")
    assert code == 1, err
    assert "the reply took over 3 seconds; it was cut off" in err
    assert time.monotonic() - started < 30
