"""Record the tools the real Claude Code defers behind ToolSearch, and what they answer (issue 28).

usage: python benchmarks/record_claude_deferred_tools.py CLAUDE OUT.json

Runs ``CLAUDE -p`` (2.1.332) headless, permissions skipped, with
``CLAUDE_CODE_ENABLE_TODO_TOOLS=1`` (the set-up of the conformance case ``task-tools-search``)
against the loopback mock of ``_claude_recording``. The model first loads every deferred tool
(``select:`` of the 15 the announcement names), then calls each tool in turn; a step's call may
depend on the previous results (a background shell's id for TaskStop, a cron job's id for
CronDelete). Kept: the deferred announcement, the tools array of the request after the load
(name, description, input schema, ``defer_loading``), the ToolSearch result, every tool result
the model was sent (in order, with the call that made it), the side requests' bodies (WebFetch's
and WebSearch's own model requests) and the files the calls changed. Run ``plain`` outside a git
repository; ``fetch`` WebFetch against a loopback HTTPS server (a page, a 404, a cross-host and a
same-host redirect, a long page, plain text; its self-signed certificate trusted through
``NODE_EXTRA_CA_CERTS``, and ``skipWebFetchPreflight`` set, as the domain check needs the
network); ``git`` in a repository with one commit (EnterWorktree/ExitWorktree). Never run by ``make
test``; its output is the fixture ``tests/fixtures/claude_deferred_tools.json``.
"""

from __future__ import annotations

import json
import re
import ssl
import subprocess
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _claude_recording import (
    DONE,
    Place,
    RecordingMock,
    claude_env,
    claude_version,
    run_claude,
    short,
    sse,
    tool_use,
)
from _loopback import Served

DEFERRED = (
    "CronCreate,CronDelete,CronList,EnterWorktree,ExitWorktree,Monitor,NotebookEdit,SendMessage,"
    "TaskCreate,TaskGet,TaskList,TaskStop,TaskUpdate,WebFetch,WebSearch"
)
NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": 1,
            "id": "c1",
            "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["1\n"]}],
            "source": ["print(1)"],
        },
        {"cell_type": "markdown", "id": "c2", "metadata": {}, "source": ["# Notes\n", "text"]},
    ],
    "metadata": {"language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}
PAGE = (
    "<html><head><title>Sample</title></head><body><h1>Hello</h1>"
    "<p>Some <b>bold</b> text and a <a href='/x'>link</a>.</p><ul><li>one</li><li>two</li></ul>"
    "</body></html>"
)

Step = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def _call(ident: str, tool: str, **arguments: Any) -> Step:
    return lambda _results: [{"type": "tool_use", "id": ident, "name": tool, "input": arguments}]


def _last_text(results: list[dict[str, Any]]) -> str:
    content = results[-1]["content"] if results else ""
    if isinstance(content, list):
        return " ".join(str(b.get("text", "")) for b in content)
    return str(content)


def _stop_background(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = re.search(r"ID: (\w+)", _last_text(results))
    return [tool_use("toolu_ts", "TaskStop", task_id=found.group(1) if found else "none")]


def _delete_cron(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    texts = " ".join(_text(r) for r in results if r["tool_use_id"] == "toolu_cc1")
    found = re.search(r"job (\w+)", texts) or re.search(r"\b([0-9a-f]{8})\b", texts)
    return [tool_use("toolu_cd1", "CronDelete", id=found.group(1) if found else "none")]


def _text(result: dict[str, Any]) -> str:
    content = result["content"]
    if isinstance(content, list):
        return " ".join(str(b.get("text", "")) for b in content)
    return str(content)


def plain_steps(nb: str, other: str, port: int) -> list[Step]:
    load = _call("toolu_load", "ToolSearch", query="select:" + DEFERRED)
    return [
        load,
        _call("toolu_rd", "Read", file_path=nb),
        _call("toolu_nb1", "NotebookEdit", notebook_path=nb, cell_id="c1", new_source="print(2)"),
        _call(
            "toolu_nb2",
            "NotebookEdit",
            notebook_path=nb,
            cell_id="c1",
            new_source="## Inserted",
            cell_type="markdown",
            edit_mode="insert",
        ),
        _call(
            "toolu_nb3",
            "NotebookEdit",
            notebook_path=nb,
            cell_id="c2",
            new_source="",
            edit_mode="delete",
        ),
        _call("toolu_nb4", "NotebookEdit", notebook_path=nb, cell_id="nope", new_source="x"),
        _call("toolu_nb5", "NotebookEdit", notebook_path=other, cell_id="c1", new_source="x"),
        _call("toolu_nb6", "NotebookEdit", notebook_path=nb, new_source="x", edit_mode="insert"),
        _call(
            "toolu_nb7",
            "NotebookEdit",
            notebook_path=nb,
            new_source="first",
            cell_type="code",
            edit_mode="insert",
        ),
        _call("toolu_nb8", "NotebookEdit", notebook_path=nb, cell_id="cell-1", new_source="y"),
        _call("toolu_rd2", "Read", file_path=nb),
        _call("toolu_bg", "Bash", command="sleep 60", run_in_background=True),
        _stop_background,
        _call("toolu_ts2", "TaskStop", task_id="nonexistent"),
        _call("toolu_ts3", "TaskStop"),
        _call("toolu_cc1", "CronCreate", cron="*/5 * * * *", prompt="check the build"),
        _call("toolu_cc2", "CronCreate", cron="7 9 1 1 *", prompt="once", recurring=False),
        _call("toolu_cl1", "CronList"),
        _delete_cron,
        _call("toolu_cd2", "CronDelete", id="nope"),
        _call("toolu_cc3", "CronCreate", cron="bad cron", prompt="x"),
        _call("toolu_cl2", "CronList"),
        _call("toolu_wf1", "WebFetch", url=f"http://localhost:{port}/page", prompt="Summarize"),
        _call("toolu_wf2", "WebFetch", url=f"http://127.0.0.1:{port}/page", prompt="Summarize"),
        _call("toolu_wf3", "WebFetch", url="not a url", prompt="Summarize"),
        _call("toolu_ws1", "WebSearch", query="dsh harness"),
        _call("toolu_ws2", "WebSearch", query="x"),
        _call(
            "toolu_mo1",
            "Monitor",
            description="two lines",
            timeout_ms=5000,
            command="echo one; echo two",
        ),
        _call("toolu_bash", "Bash", command="sleep 1; echo waited"),
        _call("toolu_ew1", "ExitWorktree", action="keep"),
        _call("toolu_en1", "EnterWorktree", name="w1"),
        lambda _results: DONE,
    ]


def fetch_steps(port: int) -> list[Step]:
    url = f"http://127.0.0.1:{port}/page"
    return [
        _call("toolu_load", "ToolSearch", query="select:WebFetch"),
        _call("toolu_wf1", "WebFetch", url=url, prompt="Summarize"),
        _call("toolu_wf2", "WebFetch", url=url, prompt="Summarize", offset=20),
        _call("toolu_wf3", "WebFetch", url=f"http://127.0.0.1:{port}/missing", prompt="What?"),
        _call("toolu_wf4", "WebFetch", url=f"http://127.0.0.1:{port}/redirect", prompt="Where?"),
        _call("toolu_wf5", "WebFetch", url=f"http://127.0.0.1:{port}/moved", prompt="Where?"),
        _call("toolu_wf6", "WebFetch", url=url, prompt="Summarize", offset=1000),
        _call("toolu_wf7", "WebFetch", url=f"http://127.0.0.1:{port}/long", prompt="Long"),
        _call(
            "toolu_wf8",
            "WebFetch",
            url=f"http://127.0.0.1:{port}/long",
            prompt="Long",
            offset=100000,
        ),
        _call("toolu_wf9", "WebFetch", url=f"http://127.0.0.1:{port}/text", prompt="Plain"),
        lambda _results: DONE,
    ]


def git_steps(project: str) -> list[Step]:
    show = "pwd; git branch --show-current"
    return [
        _call("toolu_load", "ToolSearch", query="select:EnterWorktree,ExitWorktree"),
        _call("toolu_en1", "EnterWorktree", name="bad name!"),
        _call("toolu_en2", "EnterWorktree", name="w1"),
        _call("toolu_sh1", "Bash", command=show),
        _call("toolu_en3", "EnterWorktree", name="w2"),
        _call("toolu_wr", "Bash", command="echo changed > new-file.txt"),
        _call("toolu_ex1", "ExitWorktree", action="remove"),
        _call("toolu_ex2", "ExitWorktree", action="keep"),
        _call("toolu_sh2", "Bash", command=show),
        _call("toolu_ex3", "ExitWorktree", action="keep"),
        _call("toolu_en4", "EnterWorktree", path=f"{project}/.claude/worktrees/w1"),
        _call("toolu_ex4", "ExitWorktree", action="remove", discard_changes=True),
        _call("toolu_sh3", "Bash", command=show + "; git worktree list; git branch"),
        lambda _results: DONE,
    ]


class StepMock(RecordingMock):
    """The recording mock whose reply to the main loop's turn ``i`` is ``steps[i]`` of the
    tool results so far; side requests are kept too."""

    def __init__(self) -> None:
        super().__init__(model="claude-opus-5-5")
        self.steps: list[Step] = []
        self.side_bodies: list[dict[str, Any]] = []

    def answer(self, path: str, raw: bytes, headers: dict[str, str]) -> tuple[int, str, bytes]:
        if not path.endswith("/v1/messages"):
            return super().answer(path, raw, headers)
        body = json.loads(raw or b"{}")
        if not any(t.get("name") == "Bash" for t in body.get("tools") or []):
            with self.lock:
                self.side_bodies.append(body)
            return 200, "text/event-stream", sse([{"type": "text", "text": "SIDE-ANSWER"}], 99)
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        self._keep(body, headers)
        results = _results(body)
        step = self.steps[min(turn, len(self.steps) - 1)]
        return 200, "text/event-stream", sse(step(results), turn, model=self.model)


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        b
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def _calls(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        b["id"]: {"name": b["name"], "input": b["input"]}
        for m in body["messages"]
        if m["role"] == "assistant" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_use"
    }


def _system_texts(body: dict[str, Any]) -> list[str]:
    """The texts of the request's system-role messages and user texts (not the prompt)."""
    texts = []
    for m in body["messages"]:
        content = m["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts += [b["text"] for b in blocks if b.get("type") == "text" and m["role"] == "system"]
    return texts


class Page(Served):
    """The loopback web page WebFetch is pointed at (HTTPS with ``cert`` when given: 2.1.332
    upgrades HTTP); every request is kept."""

    def __init__(self, cert: Path | None = None) -> None:
        self.seen: list[str] = []
        page = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                page.seen.append(self.path)
                port = cast("HTTPServer", self.server).server_port
                kind, data = "text/html", PAGE.encode()
                if self.path == "/long":
                    data = ("<p>" + "word " * 30_000 + "</p>").encode()
                elif self.path == "/text":
                    kind, data = "text/plain", b"plain *text* <b>kept</b>\n"
                status = {"/page": 200, "/long": 200, "/text": 200}.get(self.path, 404)
                if self.path in ("/redirect", "/moved"):
                    status = 302 if self.path == "/redirect" else 301
                    host = "127.0.0.2" if self.path == "/redirect" else "127.0.0.1"
                    self.send_response(status)
                    self.send_header("Location", f"https://{host}:{port}/page")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(Handler)
        if cert is not None:
            tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            tls.load_cert_chain(cert, cert.with_suffix(".key"))
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)


def _certificate(folder: Path) -> Path:
    """A self-signed certificate for 127.0.0.1 (the run trusts it: ``NODE_EXTRA_CA_CERTS``)."""
    cert = folder / "page.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(cert.with_suffix(".key")),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert


def _run(
    claude: str, mock: StepMock, place: Place, steps: list[Step], **extra: str
) -> dict[str, Any]:
    with mock.lock:
        mock.steps, mock.side_bodies = steps, []
        mock.bodies, mock.headers, mock.times = [], [], []
    args = ["-p", "Use the tools", "--dangerously-skip-permissions"]
    env = claude_env(mock.url, place, CLAUDE_CODE_ENABLE_TODO_TOOLS="1", **extra)
    done = run_claude(claude, [*args, "--output-format", "stream-json", "--verbose"], place, env)
    last = mock.bodies[-1]
    calls = _calls(last)
    results = [
        {"call": calls.get(r["tool_use_id"])} | {k: v for k, v in r.items() if k != "cache_control"}
        for r in _results(last)
    ]
    return {
        "exit_code": done.returncode,
        "stderr": done.stderr[-2000:],
        "announcement": [
            part
            for t in _system_texts(mock.bodies[0])
            for part in t.split("\n\n")
            if "deferred tools" in part
        ],
        "tools": [
            {
                "name": t["name"],
                "description": t.get("description"),
                "input_schema": t.get("input_schema"),
                "defer_loading": t.get("defer_loading"),
            }
            for t in (mock.bodies[1].get("tools") or [])
        ],
        "results": results,
        "notifications": [t for t in _system_texts(last) if "<task-notification>" in t],
        "side_requests": short(
            [
                {
                    "model": b.get("model"),
                    "max_tokens": b.get("max_tokens"),
                    "tools": b.get("tools"),
                    "messages": b.get("messages"),
                    "system": b.get("system"),
                }
                for b in mock.side_bodies
                if b.get("tools") or "Web page content" in json.dumps(b.get("messages"))
            ]
        ),
        "stream": [json.loads(line) for line in done.stdout.splitlines() if line.strip()][-3:],
    }


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    claude, out = sys.argv[1], Path(sys.argv[2])
    recorded: dict[str, Any] = {"cli_version": claude_version(claude)}
    recorded["inputs"] = {"notebook": NOTEBOOK, "page": PAGE}  # what the tests replay with
    with StepMock() as mock, Page() as page:
        port = int(page.url.rsplit(":", 1)[1])
        plain = Place.make("deferred", files={"nb.ipynb": json.dumps(NOTEBOOK, indent=1)})
        (plain.project / "other.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
        steps = plain_steps(
            str(plain.project / "nb.ipynb"), str(plain.project / "other.ipynb"), port
        )
        run = _run(claude, mock, plain, steps)
        run["notebook_after"] = json.loads((plain.project / "nb.ipynb").read_text())
        run["page_requests"] = list(page.seen)
        recorded["plain"] = json.loads(
            plain.placeholders(json.dumps(run)).replace(str(port), "${PORT}")
        )
        fetch = Place.make("deferred-fetch")
        (fetch.config / "settings.json").write_text('{"skipWebFetchPreflight": true}')
        cert = _certificate(fetch.root)
        with Page(cert) as tls_page:
            tls_port = int(tls_page.url.rsplit(":", 1)[1])
            run = _run(claude, mock, fetch, fetch_steps(tls_port), NODE_EXTRA_CA_CERTS=str(cert))
        run["page_requests"] = list(tls_page.seen)
        port = tls_port
        run.pop("tools"), run.pop("announcement")
        recorded["fetch"] = json.loads(
            fetch.placeholders(json.dumps(run)).replace(str(port), "${PORT}")
        )
        repo = Place.make("deferred-git", git=True, files={"README.md": "hi\n"})
        git = ["git", "-c", "user.name=r", "-c", "user.email=r@r"]
        subprocess.run([*git, "add", "-A"], cwd=repo.project, check=True)
        subprocess.run([*git, "commit", "-qm", "init"], cwd=repo.project, check=True)
        run = _run(claude, mock, repo, git_steps(str(repo.project)))
        recorded["git"] = json.loads(repo.placeholders(json.dumps(run)))
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    threading.stack_size(0)
    sys.exit(main())
