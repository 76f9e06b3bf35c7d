"""WebFetch through the real loop against a loopback HTTPS server, against 2.1.332's recording
(``tests/fixtures/claude_deferred_tools.json``, its ``fetch`` run): the same calls get the same
results, and the page-reading request the session's model gets is 2.1.332's word for word
(the page as Markdown, the prompt, the window and its notes)."""

from __future__ import annotations

import json
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar, cast

import pytest

from dsh.session import ToolResultEvent
from dsh.tools.builtin._html_markdown import html_to_markdown
from tests.agent.support import make_harness, of_type, replies, text, tool
from tests.cli.test_cli import dsh, write_script

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORDED = json.loads((FIXTURES / "claude_deferred_tools.json").read_text())
FETCH = RECORDED["fetch"]
CERT = FIXTURES / "tls" / "loopback.pem"
PAGE: str = RECORDED["inputs"]["page"]  # the recording's own


class _Handler(BaseHTTPRequestHandler):
    """The recording's pages (``benchmarks/record_claude_deferred_tools.py``)."""

    seen: ClassVar[list[str]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.seen.append(self.path)
        port = cast("HTTPServer", self.server).server_port
        kind, data = "text/html", PAGE.encode()
        if self.path == "/long":
            data = ("<p>" + "word " * 30_000 + "</p>").encode()
        elif self.path == "/text":
            kind, data = "text/plain", b"plain *text* <b>kept</b>\n"
        if self.path in ("/redirect", "/moved"):
            self.send_response(302 if self.path == "/redirect" else 301)
            host = "127.0.0.2" if self.path == "/redirect" else "127.0.0.1"
            self.send_header("Location", f"https://{host}:{port}/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200 if self.path in ("/page", "/long", "/text") else 404)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    """An HTTPS server on a free loopback port (the certificate in ``tests/fixtures/tls``)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(CERT, CERT.with_suffix(".key"))
    httpd.socket = tls.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield int(httpd.server_address[1])
    httpd.shutdown()
    httpd.server_close()


def _recorded_calls(port: int) -> list[dict[str, Any]]:
    calls = []
    for result in FETCH["results"]:
        arguments = json.loads(json.dumps(result["call"]["input"]).replace("${PORT}", str(port)))
        calls.append({**tool(result["call"]["name"], **arguments), "id": result["tool_use_id"]})
    return calls


def test_the_page_is_2_1_332s_markdown() -> None:
    side = FETCH["side_requests"][0]["messages"][0]["content"][0]["text"]
    assert f"\n---\n{html_to_markdown(PAGE)}\n---\n" in side


async def test_webfetch_answers_as_2_1_332(
    server: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", str(CERT))
    calls = _recorded_calls(server)
    script = replies(
        *([c] for c in calls),
        [text("done")],
        rules=[{"no_tools": True, "responses": [[text("SIDE-ANSWER")]]}],
    )
    h = make_harness(tmp_path, script)
    agent = h.agent()
    agent.send("fetch")
    assert (await agent.run_turn()).final_text == "done"
    results = {e.tool_use_id: e for e in of_type(agent.session.events, ToolResultEvent)}
    await agent.close()
    for recorded in FETCH["results"][1:]:  # after the ToolSearch
        ours = results[recorded["tool_use_id"]]
        expected = recorded["content"].replace("${PORT}", str(server))
        assert ours.content == expected, recorded["tool_use_id"]
        assert ours.is_error == bool(recorded.get("is_error")), recorded["tool_use_id"]
    # The page-reading requests: no tools, 2.1.332's system line and text, in order.
    side = [r for r in h.requests() if not r.get("tools")]
    theirs = FETCH["side_requests"]
    assert len(side) == len(theirs)
    for ours_request, their_request in zip(side, theirs, strict=True):
        their_text = their_request["messages"][0]["content"][0]["text"]
        ours_text = ours_request["messages"][0]["content"]
        if isinstance(their_text, str):
            assert ours_text == their_text
        else:  # a long text the recording kept as its length, head and tail
            assert isinstance(ours_text, str)
            assert len(ours_text) == their_text["length"]
            assert ours_text.startswith(their_text["head"])
            assert ours_text.endswith(their_text["tail"])
        assert ours_request["system"] == their_request["system"][-1]["text"]
    # Each page was fetched once (kept 15 minutes), as 2.1.332 fetched them.
    assert list(_Handler.seen) == FETCH["page_requests"]


async def test_localhost_and_bad_urls_are_refused_as_2_1_332_refuses_them(
    tmp_path: Path,
) -> None:
    plain = json.loads((FIXTURES / "claude_deferred_tools.json").read_text())["plain"]
    recorded = {r["tool_use_id"]: r for r in plain["results"]}
    h = make_harness(
        tmp_path,
        replies(
            [{**tool("WebFetch", url="http://localhost:9/page", prompt="S"), "id": "toolu_wf1"}],
            [{**tool("WebFetch", url="not a url", prompt="S"), "id": "toolu_wf3"}],
            [text("done")],
        ),
    )
    agent = h.agent()
    agent.send("fetch")
    await agent.run_turn()
    results = {e.tool_use_id: e for e in of_type(agent.session.events, ToolResultEvent)}
    await agent.close()
    for ident in ("toolu_wf1", "toolu_wf3"):
        assert results[ident].content == recorded[ident]["content"]
        assert results[ident].is_error


def test_a_domain_rule_denies_the_fetch(server: int, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    settings = {"permissions": {"deny": ["WebFetch(domain:127.0.0.1)"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    url = f"http://127.0.0.1:{server}/page"
    model = write_script(
        tmp_path / "script.json",
        [[{"type": "tool_use", "name": "WebFetch", "input": {"url": url, "prompt": "S"}}],
         [{"type": "text", "text": "done"}]],
    )  # fmt: skip
    before = len(_Handler.seen)
    done: subprocess.CompletedProcess[str] = dsh(
        "run", "fetch it", "--model", f"scripted:{model}", "--project", str(project),
        "--session-dir", str(tmp_path / "sessions"), "--output-format", "stream-json",
        "--verbose", cwd=tmp_path, env_extra={"NODE_EXTRA_CA_CERTS": str(CERT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    result = next(line for line in lines if line.get("type") == "user")
    block = result["message"]["content"][0]
    assert block["is_error"] is True
    assert block["content"] == "Permission to use WebFetch has been denied."
    assert len(_Handler.seen) == before  # never fetched
