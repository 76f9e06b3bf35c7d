"""Text that is not valid UTF-8 in a prompt or a tool's output, through the real ``dsh run``.

A prompt's bytes that are not UTF-8 (on the command line or stdin) become U+FFFD at
the edge, as Claude Code reads them: recorded and sent as text. A lone surrogate that
reaches the log otherwise (a file name that is not UTF-8 in a tool's output) is kept
there as its JSON escape (lossless) and sent to the model as U+FFFD, so the turn
completes, and a session already holding one (as the writer stored ``hi \\udcff``
before) loads and resumes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.models.chat_server import Reply, chunk, serving

REPLACEMENT = "\ufffd"


def _dsh(tmp_path: Path, *args: str | bytes, url: str, stdin: bytes | None = None) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    env.update({"NO_COLOR": "1", "DSH_API_KEY": "test-key"})
    (tmp_path / "project").mkdir(exist_ok=True)
    common = ["--model", "test-model", "--base-url", url, "--project", str(tmp_path / "project")]
    common += ["--session-dir", str(tmp_path / "sessions")]
    return subprocess.run(
        [sys.executable, "-m", "dsh", "run", *args, *common],
        cwd=tmp_path,
        env=env,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=60,
        check=False,
    )


def _text(reply: str) -> Reply:
    return Reply(chunks=[chunk({"content": reply}, "stop")])


def _user_texts(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


def _logged_prompts(tmp_path: Path) -> list[str]:
    prompts = []
    for log in (tmp_path / "sessions").glob("*.jsonl"):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event["type"] == "user/message":
                prompts.append(event["content"])
    return prompts


def test_a_prompt_not_utf8_on_the_command_line_is_replaced(tmp_path: Path) -> None:
    with serving(_text("fine")) as server:
        done = _dsh(tmp_path, b"hi \xff", url=server.url)
    assert done.returncode == 0, done.stderr
    assert b"turn ended: completed" in done.stdout
    assert _user_texts(server.seen[0].body)[-1] == f"hi {REPLACEMENT}"
    assert _logged_prompts(tmp_path) == [f"hi {REPLACEMENT}"]


def test_a_prompt_not_utf8_on_stdin_is_replaced(tmp_path: Path) -> None:
    with serving(_text("fine")) as server:
        done = _dsh(tmp_path, url=server.url, stdin=b"hi \xff there\n")
    assert done.returncode == 0, done.stderr
    assert _user_texts(server.seen[0].body)[-1] == f"hi {REPLACEMENT} there"


def test_a_tool_output_holding_a_name_not_utf8_completes_the_turn(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / os.fsdecode(b"caf\xe9.txt")).write_text("x")
    call = {
        "tool_calls": [
            {
                "index": 0,
                "id": "call_1",
                "type": "function",
                "function": {"name": "Glob", "arguments": json.dumps({"pattern": "*.txt"})},
            }
        ]
    }
    with serving(Reply(chunks=[chunk(call, "tool_calls")]), _text("listed")) as server:
        done = _dsh(tmp_path, "list the files", url=server.url)
    assert done.returncode == 0, done.stderr
    assert b"turn ended: completed" in done.stdout
    tool_messages = [m for m in server.seen[1].body["messages"] if m["role"] == "tool"]
    assert f"caf{REPLACEMENT}.txt" in json.dumps(tool_messages, ensure_ascii=False)
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    assert b"caf\\udce9.txt" in log.read_bytes()  # the log keeps it losslessly


def test_a_session_already_holding_a_lone_surrogate_resumes(tmp_path: Path) -> None:
    with serving(_text("first"), _text("second")) as server:
        done = _dsh(tmp_path, "hi MARK", url=server.url)
        assert done.returncode == 0, done.stderr
        [log] = (tmp_path / "sessions").glob("*.jsonl")
        # What the writer stored for `dsh run $'hi \xff'` before (its JSON escape).
        log.write_bytes(log.read_bytes().replace(b"hi MARK", b"hi \\udcff"))
        resumed = _dsh(tmp_path, "again", "--resume", log.stem, url=server.url)
    assert resumed.returncode == 0, resumed.stderr
    assert b"turn ended: completed" in resumed.stdout
    assert _user_texts(server.seen[1].body) == [f"hi {REPLACEMENT}", "again"]
