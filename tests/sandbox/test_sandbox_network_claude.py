"""Claude Code 2.1.332's ``sandbox.network`` keys on Linux, through the real loop with real
commands: Unix sockets blocked unless ``allowAllUnixSockets`` (``allowUnixSockets`` has no
effect, diagnosed), the command's own loopback usable (``allowLocalBinding`` needs nothing),
the SOCKS5 side of the proxy, the user's own proxies (``httpProxyPort``/``socksProxyPort``),
2.1.332's proxy variables, and an unlisted host asked about through the approval seam (an
ACP client answers; headless it is refused; no PermissionRequest hook fires for it).
"""

from __future__ import annotations

import json
import shutil
import socket
import socketserver
import sys
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from dsh.base._sandbox import sandbox_mechanism
from tests.cli.support import run_dsh
from tests.cli.test_cli import dsh
from tests.sandbox.test_sandbox_network import Hello

pytestmark = [
    pytest.mark.skipif(
        sandbox_mechanism()[0] is None, reason=f"no sandbox here: {sandbox_mechanism()[1]}"
    ),
    pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed"),
]

VIA = "export NO_PROXY= no_proxy=; "
"""2.1.332's NO_PROXY lists localhost (the command's own loopback): a command clears it to
reach the test's server on the host's loopback by that name, through the proxy."""


class _Recorder(socketserver.BaseRequestHandler):
    """The user's own proxy: records what reached it; answers an HTTP request itself."""

    seen: list[bytes] = []  # noqa: RUF012 - one recorder per module

    def handle(self) -> None:
        data = self.request.recv(4096)
        _Recorder.seen.append(data)
        if data[:1].isalpha():
            line = data.split(b"\r\n", 1)[0]
            body = b"user proxy saw " + line + b"\n"
            head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
            self.request.sendall(head % len(body) + body)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, int, Path]]:
    """An HTTP server and a "user proxy" on the host's loopback, and a Unix socket server
    answering ``pong``: their ports and its path."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    recorder = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Recorder)
    path = tmp_path_factory.mktemp("unix") / "pong.sock"
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(str(path))
    unix.listen(8)

    def pong() -> None:
        while True:
            try:
                conn, _ = unix.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"pong\n")

    threads = [
        threading.Thread(target=httpd.serve_forever, daemon=True),
        threading.Thread(target=recorder.serve_forever, daemon=True),
        threading.Thread(target=pong, daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        yield int(httpd.server_address[1]), int(recorder.server_address[1]), path
    finally:
        httpd.shutdown()
        recorder.shutdown()
        httpd.server_close()
        recorder.server_close()
        unix.close()


def _run(tmp_path: Path, commands: list[str], settings: dict[str, Any], *flags: str) -> list[str]:
    """``dsh run`` of Bash ``commands`` with local ``settings`` (Bash allowed by a rule):
    each result's text (the project's hooks trusted)."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    settings = {"permissions": {"allow": ["Bash"]}, **settings}
    (project / ".claude" / "settings.local.json").write_text(json.dumps(settings))
    calls = [[{"type": "tool_use", "name": "Bash", "input": {"command": c}}] for c in commands]
    script = tmp_path / "script.json"
    responses = [*calls, [{"type": "text", "text": "done"}]]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "s"), *flags]
    done = dsh(*args, cwd=tmp_path)  # its data (the hooks' trust) under tmp_path
    assert done.returncode == 0, done.stderr
    [log] = (tmp_path / "s").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return [str(e["content"]) for e in events if e["type"] == "tool/result"]


def _unix(path: Path) -> str:
    code = (
        "import socket; s = socket.socket(socket.AF_UNIX);"
        f" s.connect({str(path)!r}); print(s.recv(9).decode())"
    )
    return f'{sys.executable} -c "{code}"'


_LOCAL = (
    f"{sys.executable} -c \"import socket; l = socket.create_server(('127.0.0.1', 0));"
    " c = socket.create_connection(l.getsockname()); a, _ = l.accept();"
    " a.sendall(b'local ok'); print(c.recv(9).decode())\""
)


def test_unix_sockets_are_blocked_and_allow_unix_sockets_changes_nothing(
    tmp_path: Path, servers: tuple[int, int, Path]
) -> None:
    _, _, path = servers
    network = {"allowUnixSockets": [str(path)], "allowLocalBinding": True}
    results = _run(tmp_path, [_unix(path)], {"sandbox": {"enabled": True, "network": network}})
    assert "PermissionError" in results[0]
    assert "Operation not permitted" in results[0]
    assert "pong" not in results[0]
    check = run_dsh("hooks", "check", "--project", str(tmp_path / "project"), cwd=tmp_path)
    assert "`sandbox.network.allowUnixSockets` has no effect on Linux" in check.stdout


def test_allow_all_unix_sockets_the_own_loopback_socks_and_the_variables(
    tmp_path: Path, servers: tuple[int, int, Path]
) -> None:
    port, _, path = servers
    socks = "curl -sS --socks5-hostname localhost:1080"
    commands = [
        _unix(path),
        _LOCAL,  # a server the command starts on its own loopback (no allowLocalBinding)
        f"{VIA}{socks} http://localhost:{port}/socks",
        f"{VIA}{socks} http://example.invalid/; echo rc=$?",
        "env | grep -E '^(SANDBOX_RUNTIME|HTTPS?_PROXY|ALL_PROXY|FTP_PROXY|RSYNC_PROXY|NO_PROXY)='",
    ]
    network = {"allowAllUnixSockets": True, "allowedDomains": ["localhost"]}
    results = _run(tmp_path, commands, {"sandbox": {"enabled": True, "network": network}})
    assert "pong" in results[0]
    assert "local ok" in results[1]
    assert "hello /socks" in results[2]
    assert "hello" not in results[3]
    assert "rc=97" in results[3]  # curl: the SOCKS5 proxy refused the connection
    variables = set(results[4].split())
    assert {
        "SANDBOX_RUNTIME=1",
        "HTTP_PROXY=http://localhost:3128",
        "HTTPS_PROXY=http://localhost:3128",
        "ALL_PROXY=http://localhost:3128",
        "FTP_PROXY=socks5h://localhost:1080",
        "RSYNC_PROXY=localhost:1080",
        "NO_PROXY=localhost,127.0.0.1,::1,169.254.0.0/16,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16",
    } <= variables


def test_the_users_own_proxies_get_the_traffic_unfiltered(
    tmp_path: Path, servers: tuple[int, int, Path]
) -> None:
    _, user_proxy, _ = servers
    _Recorder.seen.clear()
    commands = [
        "curl -sS http://unlisted.example/x",
        "echo $CLAUDE_CODE_HOST_HTTP_PROXY_PORT $CLAUDE_CODE_HOST_SOCKS_PROXY_PORT",
        "curl -sS -m 5 --socks5-hostname localhost:1080 http://other.example/; true",
    ]
    network = {"httpProxyPort": user_proxy, "socksProxyPort": user_proxy}
    results = _run(tmp_path, commands, {"sandbox": {"enabled": True, "network": network}})
    assert "user proxy saw GET http://unlisted.example/x HTTP/1.1" in results[0]
    assert results[1].split() == [str(user_proxy), str(user_proxy)]
    assert any(seen.startswith(b"\x05") for seen in _Recorder.seen)  # a SOCKS5 greeting
    # From a project's shared settings they would open the sandbox: not taken.
    shared = tmp_path / "shared"
    (shared / ".claude").mkdir(parents=True)
    sandbox = {"enabled": True, "network": {"httpProxyPort": user_proxy}}
    (shared / ".claude" / "settings.json").write_text(json.dumps({"sandbox": sandbox}))
    check = run_dsh("hooks", "check", "--project", str(shared), cwd=tmp_path)
    assert "`sandbox.network.httpProxyPort` is ignored" in check.stdout


def test_an_unlisted_host_is_refused_headless_without_a_hook_and_allowed_in_bypass(
    tmp_path: Path, servers: tuple[int, int, Path]
) -> None:
    port, _, _ = servers
    marker = tmp_path / "permission-request-fired"
    hook = {"type": "command", "command": f"touch {marker}"}
    settings = {
        "sandbox": {"enabled": True, "network": {"allowedDomains": ["example.org"]}},
        "hooks": {"PermissionRequest": [{"matcher": "*", "hooks": [hook]}]},
    }
    command = f"{VIA}curl -sS -i http://localhost:{port}/asked"
    results = _run(tmp_path, [command], settings)
    assert "403 Forbidden" in results[0]
    assert "does not allow localhost" in results[0]
    assert not marker.exists()  # 2.1.332 asks about a sandbox's host with no hook
    again = _run(tmp_path / "b", [command], settings, "--permission-mode", "bypassPermissions")
    assert "hello /asked" in again[0]


async def test_an_unlisted_host_is_asked_about_over_acp_once_per_session(
    tmp_path: Path, servers: tuple[int, int, Path]
) -> None:
    from tests.acp._harness import RecordingClient, run_agent_process, write_script
    from tests.acp.test_acp_turns import bash, prompt, text

    port, _, _ = servers
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    settings = {
        "permissions": {"allow": ["Bash"]},
        "sandbox": {"enabled": True, "network": {"allowedDomains": ["example.org"]}},
    }
    (project / ".claude" / "settings.local.json").write_text(json.dumps(settings))
    commands = [
        f"{VIA}curl -sS http://localhost:{port}/first",  # asked: allowed
        f"{VIA}curl -sS http://localhost:{port}/second",  # allowed for the session: not asked
        f"{VIA}curl -sS -i http://127.0.0.1:{port}/third",  # asked: refused
    ]
    turn = [[bash(c)] for c in commands]
    script = write_script(tmp_path / "s.json", [{"responses": [*turn, [text("done")]]}])
    client = RecordingClient()
    client.answers = ["allow_once"]  # then none: the second question is cancelled
    flags = ("--permission-mode", "default")
    async with run_agent_process(tmp_path, script, *flags, client=client) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        assert await prompt(agent, session, "go") == "end_turn"
    # Each question is about the Bash call whose command wants the host (2.1.332's wording).
    asked = [(q.tool_call_id, (q.field_meta or {})["dsh"]["reason"]) for q, _ in client.permissions]
    assert asked == [
        ("toolu_1", "Allow network connection to localhost?"),
        ("toolu_3", "Allow network connection to 127.0.0.1?"),
    ]
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    results = [str(e["content"]) for e in events if e["type"] == "tool/result"]
    assert "hello /first" in results[0]
    assert "hello /second" in results[1]
    assert "403 Forbidden" in results[2]
    assert "hello" not in results[2]
