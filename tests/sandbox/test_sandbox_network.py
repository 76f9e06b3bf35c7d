"""Claude Code's ``network.allowedDomains`` through the real loop: a sandboxed command reaches
a real loopback HTTP server through dsh's filtering proxy, by name, and nothing else.

The command runs in a network namespace of its own, where the proxy's socket is all there
is on its loopback: ``curl`` (plain HTTP and a ``CONNECT`` tunnel) and Python's ``urllib``
reach ``localhost``; ``127.0.0.1`` (allowed, then denied: denial wins) gets a 403 from the
proxy; a direct connection, past the proxy, finds nothing.
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from dsh.base._sandbox import sandbox_mechanism
from dsh.base._sandbox_proxy import allowed
from tests.cli.support import run_dsh

pytestmark = pytest.mark.skipif(
    sandbox_mechanism()[0] is None, reason=f"no sandbox here: {sandbox_mechanism()[1]}"
)


class Hello(BaseHTTPRequestHandler):
    """Answers every GET with ``hello PATH`` (the network tests' server on the host)."""

    def do_GET(self) -> None:
        body = f"hello {self.path}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    """A real HTTP server on the host's loopback (its port)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(httpd.server_address[1])
    finally:
        httpd.shutdown()
        httpd.server_close()


def _run(tmp_path: Path, commands: list[str], network: dict[str, Any]) -> list[str]:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    # Bash allowed by a rule, not bypassPermissions: in that mode 2.1.332 lets a sandboxed
    # command reach any host it is not denied (an unlisted one is asked about otherwise).
    settings = {
        "sandbox": {"enabled": True, "network": network},
        "permissions": {"allow": ["Bash"]},
    }
    (project / ".claude" / "settings.local.json").write_text(json.dumps(settings))
    calls = [[{"type": "tool_use", "name": "Bash", "input": {"command": c}}] for c in commands]
    script = tmp_path / "script.json"
    responses = [*calls, [{"type": "text", "text": "done"}]]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "s")]
    done = run_dsh(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "allowedDomains" not in done.stderr  # enforced, so not diagnosed
    [log] = (tmp_path / "s").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return [str(e["content"]) for e in events if e["type"] == "tool/result"]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_allowed_domains_reach_a_loopback_server_through_the_proxy_only(
    tmp_path: Path, server: int
) -> None:
    url = f"http://localhost:{server}"
    # Claude Code 2.1.332's NO_PROXY lists localhost (the command's own loopback); the host's
    # server is reached by that name through the proxy only when the command clears it.
    via = "export NO_PROXY= no_proxy=; "
    direct = (
        f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {server}))\""
    )
    commands = [
        f"{via}curl -sS {url}/plain",  # plain HTTP through the proxy
        f"{via}curl -sS -p {url}/tunnel",  # a CONNECT tunnel
        f'{via}{sys.executable} -c "import urllib.request as u;'
        f" print(u.urlopen('{url}/py').read())\"",
        f"{via}curl -sS -i http://127.0.0.1:{server}/ip",  # allowed, but denied too: denial wins
        f"{via}curl -sS -i http://example.invalid/",  # not allowed
        f"curl -sS --noproxy '*' {url}/direct; echo rc=$?",  # past the proxy: nothing there
        direct + "; echo rc=$?",
    ]
    network = {"allowedDomains": ["localhost", "127.0.0.1"], "deniedDomains": ["127.0.0.1"]}
    results = _run(tmp_path, commands, network)
    assert "hello /plain" in results[0]
    assert "hello /tunnel" in results[1]
    assert "hello /py" in results[2]
    assert "403 Forbidden" in results[3]
    assert "X-Proxy-Error: blocked-by-allowlist" in results[3]
    assert "does not allow 127.0.0.1" in results[3]
    assert "hello" not in results[3] + results[4] + results[5] + results[6]
    assert "does not allow example.invalid" in results[4]
    assert "rc=7" in results[5]  # curl: could not connect
    assert "ConnectionRefusedError" in results[6]


def test_allowed_domains_are_not_taken_from_shared_project_settings(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    sandbox = {"enabled": True, "network": {"allowedDomains": ["localhost"]}}
    (project / ".claude" / "settings.json").write_text(json.dumps({"sandbox": sandbox}))
    check = run_dsh("hooks", "check", "--project", str(project), cwd=tmp_path)
    assert "`sandbox.network.allowedDomains`" in check.stdout
    assert "does not take them from a project's shared settings" in check.stdout


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("example.com", True),
        ("EXAMPLE.com.", True),
        ("api.example.com", False),
        ("docs.example.org", True),
        ("example.org", False),  # *.example.org: subdomains only
        ("evil-example.org", False),
        ("bad.example.org", False),  # denied wins
        ("[::1]", True),
    ],
)
def test_domain_patterns(host: str, expected: bool) -> None:
    allowed_domains = ("example.com", "*.example.org", "::1")
    assert allowed(host, allowed_domains, ("bad.example.org",)) is expected


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_a_codex_permission_profile_s_domains_filter_exec_command(
    tmp_path: Path, server: int
) -> None:
    from tests.cli.test_cli import dsh

    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    project.mkdir()
    (home / ".codex" / "config.toml").write_text(
        'default_permissions = "net"\n[features]\nnetwork_proxy = true\n'
        '[permissions.net]\nextends = ":workspace"\n[permissions.net.network]\nenabled = true\n'
        'domains = { "localhost" = "allow" }\n'
    )
    cmds = [
        f"curl -sS http://localhost:{server}/codex",
        f"curl -sS -i http://127.0.0.1:{server}/",
    ]
    replies: list[Any] = [
        [{"type": "function_call", "name": "exec_command", "arguments": {"cmd": cmd}}]
        for cmd in cmds
    ]
    replies.append([{"type": "text", "text": "ok"}])
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"openai": {"rules": [{"responses": replies}]}}))
    args = ["run", "--model", f"scripted:{script}", "--project", str(project), "--hooks", "codex"]
    args += ["--session-dir", str(tmp_path / "s"), "--", "go"]
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    done = dsh(*args, cwd=tmp_path, env_extra=env, trust=False)
    assert done.returncode == 0, done.stderr
    [log] = (tmp_path / "s").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    outputs = [str(e["content"]) for e in events if e["type"] == "tool/result"]
    assert "hello /codex" in outputs[0]
    assert "403 Forbidden" in outputs[1]
    assert "X-Proxy-Error: blocked-by-allowlist" in outputs[1]
